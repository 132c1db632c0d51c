"""Claim verification: one declarative claim against exact passages with a pinned NLI model, fail-closed, audited.

Import each name from the module that defines it; the package exports nothing itself, so importing one submodule
(the trial log imports the models) does not import the whole package.
"""
