"""The Compare page: two assessments side by side (same inputs? same output?) with a requirement diff."""
