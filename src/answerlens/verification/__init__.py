"""Re-checking recorded files, the product's central promise: one home for every check.

    assessment  one assessment: hashes, verdict, everything its raw reply determines, optionally in its exact
                context (``verify_assessment``)
    opinion     a second opinion against its assessment; the printed document (assessment + opinion)
    inputs      a report's or stored run's question, draft and context against the assessment's input hashes;
                the format citations are re-derived in
    trial       a trial's samples against their cases and the run; its result, summary and gates; its folder
    sweep       a sweep's samples re-derived over their cells' contexts; its result recomputed
    report      report files: made (data rendered with its findings) and checked (data, then the page)
    samples     a run's samples against its manifest (the count; unfinished or complete)
    folder      a trial run folder; the saved samples a resume reuses
    notes       replay marks and caveats, for any set of assessments
    imported    an imported sample's assessment: where its evidence came from, its import block's consistency
    outcome     ``PathCheck``: what a check of a path found
    path        ``verify_path``: which checks apply to a file or folder (``trial_path``: trials, assessments)
"""
