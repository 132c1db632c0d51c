"""The engine that runs trials and sweeps: every (case, repeat) assessed at a bounded concurrency, each sample
made durable as it finishes, resumed after a check of every saved sample (``answerlens.verification``).

    runner  a run or a shard of a dataset        merge  shards back into one run
    sweep   a packing sweep: its cells as the runner's cases
"""
