"""Second opinion on every requirement (answerlens only): typed evidence, deterministic flags and the claim
verifier, stored beside the assessment with its own hashes, and the optional strict evidence policy.

Import each name from the module that defines it; the package exports nothing itself, so importing one submodule
(the trial log imports the models) does not import the whole package.
"""
