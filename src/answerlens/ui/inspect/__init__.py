"""The Inspect page: one assessment with its highlighted context, verdict, why, requirements and audit."""
