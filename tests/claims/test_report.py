import json

from answerlens.claims.models import ClaimEvidence, ClaimVerification
from answerlens.claims.report import report_lines
from tests.claims.fixtures import PRME

NO_MODEL = json.loads((PRME / "claims" / "claim_verifier_no_model.json").read_text())
EVIDENCE = [ClaimEvidence.model_validate(item) for item in NO_MODEL["bundle_evidence_reader_citations"]]


def test_an_uncalled_result_reads_plainly() -> None:
    lines = report_lines(ClaimVerification.model_validate(NO_MODEL["requires_complete_set"]), EVIDENCE)
    assert lines[:6] == ['claim: "There are exactly two dashboard caches."', "status: incomplete",
                         "supporting group: none", "refuting group: none",
                         "limitations: complete_set_requires_structured_aggregation", "scored: nothing (no model call)"]
    assert lines[-1] == f"result_sha256: {NO_MODEL['requires_complete_set']['result_sha256']}"


def test_deciding_groups_show_their_passages_quoted_on_one_line() -> None:
    m5 = EVIDENCE[4]  # "Line one of a note.\nLine two says \"quoted\" text."
    result = ClaimVerification.model_validate({
        **NO_MODEL["no_evidence"], "status": "contested", "model_called": True, "resolved_revision": "abc",
        "supporting_group": [str(EVIDENCE[0].memory_id), str(m5.memory_id)], "supporting_basis": "model_entailment",
        "refuting_group": ["00000000-0000-4000-8000-000000000009"], "refuting_basis": "explicit_negation_overlap",
    })
    lines = report_lines(result, EVIDENCE)
    assert lines[2:7] == [
        "supporting group (model_entailment):",
        '  [m2] "The dashboard project used MySQL as its primary database."',
        '  [m5] "Line one of a note.\\nLine two says \\"quoted\\" text."',
        "refuting group (explicit_negation_overlap):",
        "  00000000-0000-4000-8000-000000000009",  # a memory not among the passages shown: its id
    ]
    assert "model: cross-encoder/nli-deberta-v3-base @ 6c749ce3425cd33b46d187e45b92bbf96ee12ec7 (ran: abc)" in lines
