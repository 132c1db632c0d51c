"""PRME 0.15.0's prompt, kept verbatim: its identity, user message and reply schema equal PRME's own."""

import json
from pathlib import Path

from answerlens import prme_prompt
from answerlens.audit import sha256_text
from answerlens.prompts import prompt_for

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "prme"
PRME_ASSESSMENT = json.loads((FIXTURES / "assessments" / "assessment_reader_openai.json").read_text())


def test_prmes_prompt_carries_prmes_identity_byte_for_byte() -> None:
    assert prme_prompt.PROMPT_VERSION == PRME_ASSESSMENT["prompt_version"] == "answerability_requirements_v2"
    assert sha256_text(prme_prompt.SYSTEM_PROMPT) == PRME_ASSESSMENT["prompt_sha256"]
    assert PRME_ASSESSMENT["prompt_sha256"].startswith("51db73f0")
    # Upstream's backslash-continued lines keep their indentation: the hash depends on these three spaces.
    assert 'For "background and   previous projects"' in prme_prompt.SYSTEM_PROMPT


def test_prmes_reply_schema_is_the_published_one() -> None:
    schema = json.loads((FIXTURES / "assessments" / "answerability_response_schema.json").read_text())
    assert prme_prompt.RESPONSE_SCHEMA == schema
    assert prme_prompt.RESPONSE_SCHEMA_NAME == schema["title"] == "_RawAssessment"
    assert "evidence_refs" not in schema["$defs"]["_RawRequirement"]["required"]  # hence strict: false


def test_the_prme_choice_is_this_prompt() -> None:
    prme = prompt_for("prme")
    assert (prme.version, prme.system, prme.schema) == (prme_prompt.PROMPT_VERSION, prme_prompt.SYSTEM_PROMPT,
                                                        prme_prompt.RESPONSE_SCHEMA)
    assert prme.sha256 == PRME_ASSESSMENT["prompt_sha256"]
    assert (prme.schema_name, prme.strict_schema) == ("_RawAssessment", False)
    assert prme.draft_instruction == prme_prompt.DRAFT_INSTRUCTION
