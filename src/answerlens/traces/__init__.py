"""Bring your own traces: a retrieval span of a RAG pipeline traced with OpenInference, read from an OTLP JSON file
or a running Phoenix, becomes an ordinary sample (``import-trace``); an assessment of that sample goes back onto the
span as Phoenix annotations (``annotate``). DESIGN §13.

Modules: ``spans`` (one span, whatever its source), ``otlp`` (OTLP JSON files), ``phoenix`` (Phoenix's REST API),
``retrieval`` (span → sample), ``importer`` (a source → a sample), ``annotations`` (assessment → annotations),
and ``writeback`` (annotations → Phoenix). The ``import`` block itself, which samples and assessments carry, is
``answerlens.trace_import``; what ``verify`` says of it is ``answerlens.verification.imported``. Nothing here is
imported until a trace is read or written.
"""
