"""The Trials page: run a labelled dataset repeatedly, or open a result; summary, gates, charts, samples."""
