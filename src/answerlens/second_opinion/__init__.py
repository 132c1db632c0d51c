"""Second opinion on every requirement (answerlens only): typed evidence and deterministic flags."""
