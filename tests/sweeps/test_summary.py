"""What changed between cells, from assessments built through the real pipeline (replayed replies)."""

from answerlens.assessment import derive_assessment
from answerlens.config import AnswerabilityConfig
from answerlens.sweeps.summary import _flips
from tests.oracle_server import judgement
from tests.sweeps.helpers import QUESTION, bundle

CONFIG = AnswerabilityConfig(provider="openai", model="m", base_url="http://127.0.0.1:9/v1")


def assessed(*requirements: tuple[str, str, list[str]]):  # type: ignore[no-untyped-def]
    import json

    return derive_assessment(QUESTION, bundle(), json.dumps(judgement(*requirements)), config=CONFIG)


def test_requirements_are_matched_by_position_when_both_list_as_many() -> None:
    was = assessed(("version", "supported", ["m1"]), ("owner", "supported", ["m4"]))
    now = assessed(("the version", "supported", ["m1"]), ("the owner", "unsupported", []))
    [flip] = _flips(was, now)
    assert (flip.requirement, flip.status_from.value, flip.status_to.value) == ("owner", "supported", "unsupported")


def test_otherwise_by_text_and_a_repeated_text_counts_once() -> None:
    was = assessed(("Owner", "unsupported", []), ("owner", "unsupported", []), ("version", "supported", ["m1"]))
    now = assessed(("owner", "supported", ["m4"]))
    [flip] = _flips(was, now)
    assert (flip.requirement, flip.status_to.value) == ("Owner", "supported")
