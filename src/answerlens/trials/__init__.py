"""Repeated trials, and their typed log.

    dataset   labelled cases, read whole and checked up front
    runner    every (case, repeat) at bounded concurrency  ->  folder: run.json, one durable file per sample
    log       the log's entries: TrialSample (ours), UpstreamSample, closed vocabularies, the round-trip rule
    summary   TrialSummary (upstream's counts, and ours) from samples      gates   thresholds and results
    result    RunManifest and TrialResult (result.json, and what every reader returns)
    reader    the one reader: result.json, a run folder, or (through upstream) a PRME BEAM result file
    report    the text report of trial / trial-report
"""
