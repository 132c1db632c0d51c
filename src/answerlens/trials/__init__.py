"""Repeated trials: datasets, the durable resumable runner, the typed trial log, summaries and gates."""
