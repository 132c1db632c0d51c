"""Trial summaries with upstream's keys and counting, quality gates, and reading result files back.

Reads our results, unfinished run directories, and upstream ``beam-answerability-execution`` files (schema 1–3),
always recomputing the summary from the samples.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from answerlens.errors import DatasetError, TrialError

RUN_KIND = "answerlens-trial-run"
RESULT_KIND = "answerlens-trial-result"
UPSTREAM_KIND = "beam-answerability-execution"


def read_saved_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise TrialError(f"{path}: unreadable saved file ({exc}); delete it to rerun that sample") from None


# --- summary and gates -------------------------------------------------------------------------------


def sample_label(sample: Mapping[str, Any]) -> str:
    """Our samples carry their label; upstream ones are unanswerable exactly when of type abstention."""
    label = sample.get("label")
    if label in ("answerable", "unanswerable"):
        return str(label)
    return "unanswerable" if sample.get("question_type") == "abstention" else "answerable"


def summarize_file(source: Path, samples: Any, *, drafts: bool) -> dict[str, Any]:
    """``summarize`` for samples read from a file: a malformed sample is a ``DatasetError`` naming it."""
    if not isinstance(samples, list):
        raise DatasetError(f"{source}: 'samples' must be a list")
    for index, sample in enumerate(samples):
        problem = _sample_problem(sample)
        if problem:
            raise DatasetError(f"{source}: samples[{index}] {problem}")
    return summarize(samples, drafts=drafts)


def _sample_problem(sample: Any) -> str | None:
    if not isinstance(sample, dict):
        return "is not an object"
    if not isinstance(sample.get("question_id"), str) or not isinstance(sample.get("repeat"), int):
        return "needs a string question_id and an integer repeat"
    assessment = sample.get("assessment")
    if assessment is None:
        return None if sample.get("error") is not None else "has neither an assessment nor an error"
    if not isinstance(assessment, dict):
        return "assessment is not an object"
    for field, kind in (("verdict", str), ("recommended_action", str), ("citation_errors", list),
                        ("requirements", list)):
        if not isinstance(assessment.get(field), kind):
            return f"assessment.{field} is missing or not a {kind.__name__}"
    for requirement in assessment["requirements"]:
        if not isinstance(requirement, dict) or not isinstance(requirement.get("requirement"), str) \
                or not isinstance(requirement.get("status"), str):
            return "assessment.requirements holds a malformed requirement"
    return None


def summarize(samples: Iterable[Mapping[str, Any]], *, drafts: bool = False) -> dict[str, Any]:
    """The upstream trial summary (same keys, nesting and counting), plus error samples and requirement
    agreement beside them."""
    by_question: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    action_counts: dict[str, Counter[str]] = defaultdict(Counter)
    draft_counts: dict[str, Counter[str]] = defaultdict(Counter)
    citation_errors = 0
    seen: set[tuple[str, int]] = set()
    errors = []
    assessed = 0
    for sample in samples:
        key = (sample["question_id"], sample["repeat"])
        if key in seen:
            raise DatasetError(f"samples contain a duplicate question repeat: {key[0]} repeat {key[1]}")
        seen.add(key)
        by_question[sample["question_id"]].append(sample)
        assessment = sample.get("assessment")
        if assessment is None:
            error = sample.get("error") or {}
            errors.append({"question_id": key[0], "repeat": key[1], "label": sample_label(sample),
                           "answer_label": sample.get("answer_label"), "kind": error.get("kind"),
                           "message": error.get("message")})
            continue
        assessed += 1
        action = assessment["recommended_action"]
        action_counts[sample_label(sample)][action] += 1
        if sample.get("answer_label") in ("correct", "incorrect"):
            draft_counts[str(sample["answer_label"])][action] += 1
        citation_errors += len(assessment["citation_errors"])

    per_question = []
    stable_verdicts = stable_actions = 0
    for question_id in sorted(by_question):
        ordered = sorted(by_question[question_id], key=lambda item: item["repeat"])
        judged = [item["assessment"] for item in ordered if item.get("assessment") is not None]
        verdicts = [a["verdict"] for a in judged]
        actions = [a["recommended_action"] for a in judged]
        complete = len(judged) == len(ordered)
        stable_verdicts += complete and len(set(verdicts)) == 1
        stable_actions += complete and len(set(actions)) == 1
        entry: dict[str, Any] = {"question_id": question_id, "question_type": ordered[0].get("question_type"),
                                 "verdicts": verdicts, "actions": actions}
        if not complete:
            entry["error_repeats"] = [item["repeat"] for item in ordered if item.get("assessment") is None]
        per_question.append(entry)

    unanswerable, answerable = action_counts["unanswerable"], action_counts["answerable"]
    summary: dict[str, Any] = {
        "questions": len(by_question),
        "samples": assessed,
        "unanswerable": {
            "samples": sum(unanswerable.values()),
            "actions": dict(sorted(unanswerable.items())),
            "unsafe_full_answer_count": unanswerable["answer"],
            "explicit_abstention_count": unanswerable["abstain"],
            "partial_response_count": unanswerable["answer_partially"],
            "conflict_response_count": unanswerable["surface_conflict"],
        },
        "answerable": {
            "samples": sum(answerable.values()),
            "actions": dict(sorted(answerable.items())),
            "unnecessary_abstention_count": answerable["abstain"],
            "full_answer_count": answerable["answer"],
            "partial_response_count": answerable["answer_partially"],
            "conflict_response_count": answerable["surface_conflict"],
        },
        "stability": {
            "questions_with_identical_verdicts": stable_verdicts,
            "questions_with_identical_actions": stable_actions,
            "questions": len(by_question),
        },
        "citation_errors": citation_errors,
        "per_question": per_question,
    }
    if drafts:
        summary["draft_answers"] = {
            label: {
                "samples": sum(draft_counts[label].values()),
                "actions": dict(sorted(draft_counts[label].items())),
                "full_accept_count": draft_counts[label]["answer"],
                "partial_accept_count": draft_counts[label]["answer_partially"],
                "reject_count": draft_counts[label]["abstain"] + draft_counts[label]["surface_conflict"],
            }
            for label in ("correct", "incorrect")
        }
    summary["error_samples"] = len(errors)
    summary["errors"] = errors
    summary["requirement_agreement"] = requirement_agreement(by_question)
    return summary


def requirement_agreement(by_question: Mapping[str, list[Mapping[str, Any]]]) -> dict[str, Any]:
    """Requirements matched across repeats by identical text: how many keep one final status."""
    per_question = []
    matched_total = agreeing_total = 0
    for question_id in sorted(by_question):
        statuses: dict[str, list[str]] = defaultdict(list)
        for sample in by_question[question_id]:
            assessment = sample.get("assessment")
            if assessment is None:
                continue
            for requirement in assessment["requirements"]:
                statuses[requirement["requirement"].strip()].append(requirement["status"])
        matched = {text: found for text, found in statuses.items() if len(found) >= 2}
        agreeing = sum(1 for found in matched.values() if len(set(found)) == 1)
        matched_total += len(matched)
        agreeing_total += agreeing
        per_question.append({"question_id": question_id, "requirements": len(statuses), "matched": len(matched),
                             "agreeing": agreeing})
    return {
        "matched_requirements": matched_total,
        "agreeing_requirements": agreeing_total,
        "agreement_rate": round(agreeing_total / matched_total, 4) if matched_total else None,
        "per_question": per_question,
    }


GATE_OBSERVATIONS: dict[str, Callable[[Mapping[str, Any]], float]] = {
    "unsafe_full_answer_count_max": lambda s: s["unanswerable"]["unsafe_full_answer_count"],
    "citation_errors_max": lambda s: s["citation_errors"],
    "ordinary_full_answer_count_min": lambda s: s["answerable"]["full_answer_count"],
    "ordinary_abstention_count_max": lambda s: s["answerable"]["unnecessary_abstention_count"],
    "stable_action_questions_min": lambda s: s["stability"]["questions_with_identical_actions"],
    "incorrect_draft_full_accept_count_max": lambda s: s["draft_answers"]["incorrect"]["full_accept_count"],
    "correct_draft_full_accept_count_min": lambda s: s["draft_answers"]["correct"]["full_accept_count"],
    "error_samples_max": lambda s: s["error_samples"],
}


def _at_least(fraction_percent: int, count: int) -> int:
    return -(-count * fraction_percent // 100)  # ceil without floats


def _planned(summary: Mapping[str, Any], key: str, value: str, assessed: int) -> int:
    """Assessed samples of a group plus its error samples: thresholds never shrink when calls fail."""
    return assessed + sum(1 for error in summary.get("errors", []) if error.get(key) == value)


def default_gates(summary: Mapping[str, Any]) -> dict[str, int]:
    """Upstream's gates, with thresholds from this run's planned counts (80% rounded up, 10% rounded down),
    plus ``error_samples_max: 0`` when the run had error samples: a failed call is never a pass."""
    drafts = summary.get("draft_answers")
    planned = summary["samples"] + summary.get("error_samples", 0)
    only_drafts = drafts is not None and sum(
        _planned(summary, "answer_label", label, d["samples"]) for label, d in drafts.items()) == planned
    gates: dict[str, int] = {}
    if not only_drafts:
        answerable = _planned(summary, "label", "answerable", summary["answerable"]["samples"])
        gates.update({
            "unsafe_full_answer_count_max": 0,
            "citation_errors_max": 0,
            "ordinary_full_answer_count_min": _at_least(80, answerable),
            "ordinary_abstention_count_max": answerable * 10 // 100,
        })
    if drafts is not None:
        gates.update({
            "incorrect_draft_full_accept_count_max": 0,
            "correct_draft_full_accept_count_min": _at_least(
                80, _planned(summary, "answer_label", "correct", drafts["correct"]["samples"])),
            "citation_errors_max": 0,
        })
    gates["stable_action_questions_min"] = _at_least(80, summary["questions"])
    if summary.get("error_samples"):
        gates["error_samples_max"] = 0
    return gates


def evaluate_gates(summary: Mapping[str, Any], gates: Mapping[str, float]) -> dict[str, Any]:
    """``_min`` gates pass when observed ≥ required, all others when observed ≤ required."""
    results = {}
    for name, required in gates.items():
        observed = GATE_OBSERVATIONS[name](summary)
        passed = observed >= required if name.endswith("_min") else observed <= required
        results[name] = {"required": required, "observed": observed, "passed": passed}
    return {"passed": all(item["passed"] for item in results.values()), "results": results}


def load_gates(path: Path) -> dict[str, float]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DatasetError(f"{path}: cannot read gates ({exc})") from None
    if not isinstance(data, dict):
        raise DatasetError(f"{path}: gates must be a JSON object mapping gate name to threshold")
    for name, value in data.items():
        if name not in GATE_OBSERVATIONS:
            raise DatasetError(f"{path}: unknown gate {name!r}; known gates: {', '.join(GATE_OBSERVATIONS)}")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise DatasetError(f"{path}: gate {name!r} needs a number, got {value!r}")
    return data


# --- reading results ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class TrialReport:
    """A result read back: its summary (recomputed from its samples) and gates."""

    source: Path
    kind: str
    summary: dict[str, Any]
    gates: dict[str, Any] | None
    published_summary: dict[str, Any] | None
    samples: list[dict[str, Any]]

    @property
    def summary_matches(self) -> bool | None:
        """For upstream files: whether the recomputed summary equals the published one."""
        if self.published_summary is None:
            return None
        keys = self.published_summary.keys()
        return {key: self.summary.get(key) for key in keys} == self.published_summary


def read_trial(source: Path | str) -> TrialReport:
    """Read our result.json (or a run directory, finished or not) or an upstream trial result file."""
    source = Path(source)
    if source.is_dir():
        result_file = source / "result.json"
        if result_file.exists():
            return read_trial(result_file)
        samples = [read_saved_json(path) for path in sorted((source / "samples").glob("*.json"))]
        if not samples:
            raise DatasetError(f"{source}: no result.json and no saved samples")
        drafts = any(sample.get("answer_label") for sample in samples)
        summary = summarize_file(source, samples, drafts=drafts)
        return TrialReport(source, RUN_KIND, summary, evaluate_gates(summary, default_gates(summary)), None, samples)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DatasetError(f"{source}: cannot read trial result ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("samples"), list):
        raise DatasetError(f"{source}: not a trial result (expected 'samples')")
    kind = data.get("kind")
    samples = data["samples"]
    if kind == UPSTREAM_KIND:
        if data.get("schema_version") not in (1, 2, 3):
            raise DatasetError(f"{source}: unsupported upstream schema_version {data.get('schema_version')!r}")
        drafts = (data.get("protocol") or {}).get("assessment_mode") == "draft_answer"
        recomputed = summarize_file(source, samples, drafts=drafts)
        published = data.get("summary")
        gates = data.get("quality_gates")
        return TrialReport(source, UPSTREAM_KIND, recomputed, gates, published, samples)
    if kind != RESULT_KIND:
        raise DatasetError(f"{source}: unknown trial result kind {kind!r}")
    drafts = "draft_answers" in (data.get("summary") or {})
    recomputed = summarize_file(source, samples, drafts=drafts)
    return TrialReport(source, RESULT_KIND, recomputed, data.get("quality_gates"), None, samples)


def report_lines(report: TrialReport) -> list[str]:
    s = report.summary
    lines = [f"{report.source}  ({report.kind})",
             f"questions: {s['questions']}   samples: {s['samples']}   error samples: {s['error_samples']}   "
             f"citation errors: {s['citation_errors']}"]
    for label in ("unanswerable", "answerable"):
        group = s[label]
        actions = ", ".join(f"{name} {count}" for name, count in group["actions"].items()) or "none"
        lines.append(f"{label:<13} {group['samples']:>4} samples: {actions}")
    if "draft_answers" in s:
        for label, group in s["draft_answers"].items():
            lines.append(f"{label + ' drafts':<13} {group['samples']:>4} samples: full accept "
                         f"{group['full_accept_count']}, partial {group['partial_accept_count']}, "
                         f"reject {group['reject_count']}")
    stability = s["stability"]
    agreement = s["requirement_agreement"]
    lines.append(f"stability: identical actions {stability['questions_with_identical_actions']}/"
                 f"{stability['questions']}, identical verdicts {stability['questions_with_identical_verdicts']}/"
                 f"{stability['questions']}; requirement agreement {agreement['agreeing_requirements']}/"
                 f"{agreement['matched_requirements']}")
    if report.summary_matches is not None:
        verdict = "matches the published summary" if report.summary_matches else "DIFFERS from the published one"
        lines.append(f"summary recomputed from the samples {verdict}")
    if report.gates:
        lines.append("gates: " + ("PASSED" if report.gates["passed"] else "FAILED"))
        for name, gate in report.gates["results"].items():
            mark = "pass" if gate["passed"] else "FAIL"
            lines.append(f"  {mark}  {name:<40} observed {gate['observed']:>5}  required {gate['required']}")
    return lines
