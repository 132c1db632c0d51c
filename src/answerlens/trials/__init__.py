"""Repeated trials, and their typed log.

    dataset   labelled cases, read whole and checked up front      limits   the bounds of a run, checked first
    runner    every (case, repeat) of a run or a shard, one worker per request in flight  ->  folder
    lock      one runner per run folder (flock; pid and start time)   preflight  endpoints up, model there
    endpoints replicas with per-endpoint concurrency and failover      writer   durable samples, one thread
    folder    run.json, one file per sample, result.json (assembled the same for a run, a shard and a merge);
              resume checks                                                 shard  the stable split, 1-based
    merge     shards back into one run
    log       the log's entries: TrialSample (ours), UpstreamSample, closed vocabularies, the round-trip rule
    summary   TrialSummary (upstream's counts, and ours) from samples      gates   thresholds and results
    opinions  second-opinion counts and chart rows    failures  grouped errors, early stop    rates  min samples
    result    RunManifest and TrialResult (result.json, and what every reader returns)
    reader    the one reader: result.json, a run folder, or (through upstream) a PRME BEAM result file; and
              the assessments any file holds (for verify and Compare)
    report    the text report of trial / trial-report / trial-merge
"""
