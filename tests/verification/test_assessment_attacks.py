"""Forgeries with every hash recomputed, as a careful attacker would make them: `verify` must re-derive what the
assessment claims from the exact context, and say NOT VERIFIED (never ok) for what it cannot re-derive."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from answerlens import AnswerabilityConfig, AnswerabilityEvaluator, load_bundle, verify_assessment
from answerlens.cli import main
from answerlens.samples import load_sample
from tests.forgery import FOREIGN_ID, PUBLISHED, forged
from tests.paths import PRME, SAMPLES

READER = PRME / "bundles" / "bundle_reader_citations.json"
def replayed(name: str) -> tuple[Any, Any]:
    sample = load_sample(SAMPLES / f"{name}.json")
    bundle = sample.load()
    config = AnswerabilityConfig(provider="replay", model=sample.recorded_model)

    async def assess() -> Any:
        async with AnswerabilityEvaluator(config, recording=sample.recording()) as evaluator:
            return await evaluator.assess(sample.question, bundle, answer=sample.answer)

    return bundle, asyncio.run(assess())


M1 = "058174e2-f93c-468d-9e87-17703afc81da"
M3 = "9959102e-e007-4f09-9772-eb4407f6fb30"
M5 = "d8025c97-34b9-4120-8986-e78694d94b03"


@pytest.mark.parametrize(("index", "status", "refs", "ids", "named"), [
    pytest.param(3, "supported", ["m999"], [FOREIGN_ID], "'m999'", id="unknown_ref_supported"),
    pytest.param(3, "supported", ["m3"], [M5], "requirements[3].evidence_ids[0]", id="ref_names_another_memory"),
    pytest.param(2, "conflicting", ["m2", "m77"], ["14061fff-40d1-4326-9536-4d88693e0768", FOREIGN_ID], "'m77'",
                 id="conflicting_with_one_unknown"),
    pytest.param(3, "unsupported", ["m42"], [FOREIGN_ID], "'m42'", id="unknown_ref_kept_on_unsupported"),
    pytest.param(3, "supported", ["m1", "m1"], [M1, M1], "more than once", id="same_ref_twice"),
])
def test_a_prme_shaped_forgery_is_refused_against_its_bundle(index: int, status: str, refs: list[str],
                                                             ids: list[str], named: str) -> None:
    data = forged(index, status, refs, ids)
    report = verify_assessment(data, bundle=load_bundle(READER))
    assert not report.ok
    assert any(named in problem for problem in report.problems), report.problems


@pytest.mark.parametrize("name", [pytest.param("auditable_uuid_citations", id="auditable"),
                                  pytest.param("compact_citation_errors", id="compact"),
                                  pytest.param("conflicting_deploy_freeze", id="reader")])
def test_prme_shaped_forgeries_of_every_format_are_refused(name: str) -> None:
    bundle, assessment = replayed(name)
    prme = assessment.prme_dict()
    assert verify_assessment(prme, bundle=bundle).ok
    token = FOREIGN_ID if name.startswith("auditable") else "m999"
    data = forged(0, "supported", [token], [FOREIGN_ID], base=prme)
    problems = verify_assessment(data, bundle=bundle).problems
    assert any(repr(token) in problem for problem in problems), problems


def test_an_auditable_reference_must_name_its_own_memory() -> None:
    bundle, assessment = replayed("auditable_uuid_citations")
    prme = assessment.prme_dict()
    ref = next(r for item in prme["requirements"] for r in item["evidence_refs"])
    data = forged(0, "supported", [ref], [FOREIGN_ID], base=prme)
    problems = verify_assessment(data, bundle=bundle).problems
    assert any("evidence_ids[0]" in problem for problem in problems), problems


def run(capsys: Any, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out + err


def test_verify_command_refuses_the_forgery_with_the_bundle(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged(3, "supported", ["m999"], [FOREIGN_ID])))
    code, out = run(capsys, "verify", str(path), "--bundle", str(READER))
    assert code == 1 and "'m999'" in out and "ok" not in out.splitlines()[-1]


def test_verify_without_a_context_says_what_it_did_not_check(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "published.json"
    path.write_text(json.dumps(PUBLISHED))
    code, out = run(capsys, "verify", str(path))
    assert code == 0 and "not resolved in an exact context" in out and "--bundle" in out
    code, out = run(capsys, "verify", str(path), "--bundle", str(READER))
    assert code == 0 and "not resolved" not in out
