"""The packing sweep (DESIGN §12): one question over one bundle at a grid of packing settings, on the trial engine.

    settings  formats, budgets, depths, chunk sizes as typed; the grid    cut  the one cut (also the Packing page's)
    run       contexts -> the trial engine (cells as cases) -> ``result.json``       folder  run.json, bundle.json
    summary   cells counted from samples; what changed along each axis               result  the typed log
    reader    the one reader of a sweep folder; ``verify_sweep``     view  its words     found  is this a sweep?

"""
