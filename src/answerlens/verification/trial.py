"""A trial's checks: what a saved sample must agree with before it is resumed, merged or verified (its case in the
dataset, the run, and its own assessment, which must be of that case's inputs and must verify); a run folder's
files against its result; a result's summary and gates against its samples.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from answerlens.assessment import ReplyOrigin
from answerlens.audit import configuration_sha256, manifest_sha256, sha256_text
from answerlens.config import AnswerabilityConfig
from answerlens.errors import DatasetError, TrialError, describe_validation
from answerlens.prompts import PROMPTS
from answerlens.records import MemoryBundle
from answerlens.trials import limits
from answerlens.trials.dataset import Dataset, LoadedCase
from answerlens.trials.folder import (
    plain_value,
    sample_label,
    sample_mismatches,
)
from answerlens.trials.gates import Gate, default_gates, evaluate_gates
from answerlens.trials.log import (
    ResultKind,
    TrialSample,
    UpstreamSample,
    json_difference,
    parse_samples,
    round_trip_problem,
)
from answerlens.trials.result import TrialResult
from answerlens.trials.summary import summarize
from answerlens.verification.assessment import verify_assessment
from answerlens.verification.notes import Notes
from answerlens.verification.opinion import verify_second_opinion
from answerlens.verification.samples import SampleCount


def sample_problems(sample: TrialSample, item: LoadedCase | None, *, dataset_sha256: str,
                    configuration_sha256: str | None, manifest: str | None, rederive: bool = True) -> list[str]:
    """Every way ``sample`` disagrees with its case ``item`` and the run (``sample_mismatches``); ``rederive`` also
    verifies its assessment against the case's bundle (every citation resolved in the exact context)."""
    problems = sample_mismatches(sample, item, dataset_sha256=dataset_sha256,
                                 configuration_sha256=configuration_sha256, manifest=manifest)
    if item is None or sample.assessment is None or not rederive:
        return problems
    if not any(problem.startswith("assessment.context_sha256") for problem in problems):
        problems += [f"assessment: {problem}"
                     for problem in verify_assessment(sample.assessment, bundle=item.bundle).problems]
    return problems


def dataset_problems(result: TrialResult, dataset: Dataset, *, rederive: bool = True) -> list[str]:
    """A result (or run folder) checked against ``dataset``: the same file, each question record as the dataset
    writes it, and every sample against its case (``sample_problems``)."""
    recorded = result.dataset.sha256 if result.dataset is not None else None
    if recorded != dataset.sha256:
        return [f"dataset: {dataset.path} is not the run's dataset (sha256 {dataset.sha256[:12]}…, the run's "
                f"{(recorded or 'unrecorded')[:12]}…)"]
    cases = {item.case.id: item for item in dataset.cases}
    problems = []
    for record in result.questions:
        item = cases.get(record.question_id)
        if item is None:
            problems.append(f"questions: {record.question_id!r} is not a case of this dataset")
            continue
        for name in ("question", "label", "question_type", "answer_label"):
            if plain_value(getattr(record, name)) != plain_value(getattr(item.case, name)):
                problems.append(f"questions: {record.question_id}: {name} differs from the dataset's")
    for sample in result.samples:
        if isinstance(sample, TrialSample):
            problems += [f"samples: {sample_label(sample)}: {problem}" for problem in sample_problems(
                sample, cases.get(sample.case_id), dataset_sha256=dataset.sha256,
                configuration_sha256=result.configuration_sha256, manifest=result.manifest_sha256,
                rederive=rederive)]
    return problems


def load_run_dataset(result: TrialResult, given: Dataset | None) -> Dataset:
    """The dataset a run's samples are checked against: ``given``, else the file the run recorded, when it is
    still there with the same bytes; else a ``TrialError`` saying to pass it."""
    from answerlens.trials.dataset import load_dataset

    if given is not None:
        return given
    recorded = result.dataset
    if recorded is None:
        raise TrialError("the run records no dataset: pass --dataset FILE")
    try:
        dataset = load_dataset(recorded.path)
    except (DatasetError, OSError) as exc:
        raise TrialError(f"the run's dataset {recorded.path} cannot be read ({exc}): pass --dataset FILE so every "
                         "sample can be checked against it") from None
    if dataset.sha256 != recorded.sha256:
        raise TrialError(f"{recorded.path} has changed since the run (sha256 {dataset.sha256[:12]}…, the run's "
                         f"{recorded.sha256[:12]}…): pass the run's dataset with --dataset FILE")
    return dataset


@dataclass(frozen=True)
class CheckedTrial:
    """A trial result as read back (None when it does not read), every problem found, and its samples against its
    manifest's cases × repeats (None for an upstream result, or a file written before manifests)."""

    result: TrialResult | None
    problems: tuple[str, ...]
    samples: SampleCount | None = None


def trial_problems(raw: Mapping[str, Any], *, bundles: Mapping[str, MemoryBundle] | None = None) -> CheckedTrial:
    """A trial result as recorded (``result.json``, or a report's embedded ``result``): read back, its manifest
    recomputed, every case holding ``repeats`` samples, its summary and gates recomputed, every sample's assessment
    and second opinion verified (over its case's bundle, by case id, when ``bundles`` has it)."""
    try:
        result = read_result(raw)
    except DatasetError as exc:
        return CheckedTrial(None, (f"result: {exc}",))
    problems, count = manifest_problems(result)
    problems += _summary_problems(raw, result)
    problems += _gate_problems(result)
    problems += verify_samples(result.samples, bundles or {})
    try:
        result = result.model_copy(update={"summary": summarize(result.samples, drafts=_drafts(result))})
    except DatasetError:
        pass  # reported by _summary_problems; the recorded summary stays on show
    return CheckedTrial(result, tuple(problems), count)


def verify_samples(samples: Sequence[TrialSample | UpstreamSample], bundles: Mapping[str, MemoryBundle],
                   labels: Sequence[str] | None = None) -> list[str]:
    """Every assessed sample's assessment and second opinion verified, over its case's bundle when there is one;
    each problem starts with the sample's label (default: its position in the result)."""
    problems = []
    for position, sample in enumerate(samples):
        if sample.assessment is None:
            continue
        bundle = bundles.get(sample.case_id)
        found = list(verify_assessment(sample.assessment, bundle=bundle).problems)
        opinion = sample.second_opinion if isinstance(sample, TrialSample) else None
        if opinion is not None:
            found += verify_second_opinion(opinion, sample.assessment, bundle=bundle)
        label = labels[position] if labels is not None else \
            f"samples[{position}] {sample.question_id} repeat {sample.repeat}"
        problems += [f"{label}: {problem}" for problem in found]
    return problems


def asked_problems(samples: Sequence[TrialSample | UpstreamSample], configuration: AnswerabilityConfig | None, *,
                   configuration_sha256: str | None, prompt_version: str | None, prompt_sha256: str | None,
                   second_opinion: bool) -> list[str]:
    """Every sample of a run against what its manifest says was asked, with no dataset needed: the configuration
    (the sample's and its assessment's hash of it; a sample asked at another temperature, policy or model is another
    run's), the provider and model it names (a sample relabelled to another model is caught even where no
    provenance hash covers it), the prompt it records, and a second opinion beside every assessed sample exactly
    when the run gives one (a stripped opinion would drop its flags and a strict verdict; a transplanted one would
    add them)."""
    if configuration is None:
        return []
    wanted = (configuration.provider, configuration.model)
    problems = []
    for sample in samples:
        if not isinstance(sample, TrialSample):
            continue
        if configuration_sha256 is not None and sample.configuration_sha256 != configuration_sha256:
            problems.append(f"{sample_label(sample)}: configuration_sha256 is not the run's configuration's")
        if sample.assessment is None:
            continue
        assessment, label = sample.assessment, sample_label(sample)
        if configuration_sha256 is not None and assessment.configuration_sha256 != configuration_sha256:
            problems.append(f"{label}: assessment.configuration_sha256 is not the run's configuration's")
        if (assessment.provider, assessment.model) != wanted:
            problems.append(f"{label}: assessment names {assessment.provider} {assessment.model!r}, the run's "
                            f"configuration {wanted[0]} {wanted[1]!r}")
        if prompt_version is not None and (assessment.prompt_version, assessment.prompt_sha256) != (
                prompt_version, prompt_sha256):
            problems.append(f"{label}: assessment names prompt {assessment.prompt_version} "
                            f"({assessment.prompt_sha256[:12]}…), the run records {prompt_version} "
                            f"({str(prompt_sha256)[:12]}…)")
        if (sample.second_opinion is not None) != second_opinion:
            problems.append(f"{label}: " + ("no second opinion, and the run gives every assessed sample one"
                                            if second_opinion else "a second opinion, and the run gives none"))
    return problems


def gate_notes(result: TrialResult) -> Notes:
    """Gates are re-evaluated over the samples at the thresholds the result records, and those thresholds are the
    runner's (or merger's) choice, covered by no hash: where they are not answerlens' defaults for this run, say
    which, so loosened gates are seen wherever the verdict is read."""
    if result.kind == ResultKind.UPSTREAM or result.quality_gates is None:
        return Notes()
    defaults = {gate.value: threshold for gate, threshold in default_gates(result.summary).items()}
    recorded = {name: gate.required for name, gate in result.quality_gates.results.items()}
    sign = {gate.value: "≥" if gate.at_least else "≤" for gate in Gate}
    changed = [f"{name} {sign[name]} {recorded[name]:g} (default {sign[name]} {defaults[name]:g})"
               for name in recorded if name in defaults and recorded[name] != defaults[name]]
    changed += [f"{name} {sign[name]} {recorded[name]:g} (not a default gate)" for name in recorded
                if name not in defaults]
    changed += [f"{name} left out (default {sign[name]} {defaults[name]:g})" for name in defaults
                if name not in recorded]
    if not changed:
        return Notes()
    return Notes(caveats=("gates at thresholds of the runner's choosing, not answerlens' defaults for this run (no "
                          "hash covers thresholds): " + "; ".join(changed),))


def question_problems(result: TrialResult) -> list[str]:
    """Each question as the result lists it against its assessed samples' ``query_sha256`` (no dataset needed: an
    edited question text is seen on the page that shows it)."""
    texts = {record.question_id: sha256_text(record.question.strip()) for record in result.questions}
    wrong = sorted({sample.case_id for sample in result.samples if isinstance(sample, TrialSample)
                    and sample.assessment is not None and sample.case_id in texts
                    and sample.assessment.query_sha256 != texts[sample.case_id]})
    return [f"questions: {case_id}: question is not the one its samples were asked (query_sha256)" for case_id in wrong]


def copy_problems(samples: Sequence[TrialSample | UpstreamSample]) -> list[str]:
    """A sample that is another repeat's copy under its own repeat number: two live calls never agree to the
    microsecond in both their latencies (a replayed reply may: its copy is what a rerun would give, so it is let be).
    A copy would outvote an inconvenient repeat, or stand in for a failed one. Latencies are in no hash, so this
    catches a verbatim copy only: a copy with a latency edited is the same as a rerun's to every check here."""
    first: dict[tuple[str, str], int] = {}
    problems = []
    for sample in samples:
        meta = sample.assessment.provider_metadata if isinstance(sample, TrialSample) and sample.assessment else None
        if meta is None or meta.origin != ReplyOrigin.LIVE or not meta.latency_ms:  # 0: timings not kept
            continue
        assert isinstance(sample, TrialSample)
        key = (sample.case_id, sample.model_dump_json(exclude={"repeat", "node"}))
        if key in first:
            problems.append(f"{sample_label(sample)}: a copy of repeat {first[key]} (the same live call, to the "
                            "microsecond): refused")
        else:
            first[key] = sample.repeat
    return problems


def manifest_problems(result: TrialResult) -> tuple[list[str], SampleCount | None]:
    """A result's manifest against its own fields, every sample against it (this run's, its case's hash, a repeat
    of the run's, counted once), and the count of the samples the manifest plans (the shard's, for a shard). A
    finished result (``result.json``) holding fewer is a problem: a runner writes it once every sample exists, so
    its missing samples were taken out; a run folder without one is unfinished, and its count says so."""
    if result.kind == ResultKind.UPSTREAM:
        return [], None
    manifest = result.manifest()
    if manifest is None or result.manifest_sha256 is None:
        return ["manifest: none recorded (written by an answerlens from before manifests), so its samples cannot be "
                "proved to be this run's, or complete; run the trial again into a fresh folder"], None
    assert result.repeats is not None and result.case_hashes is not None
    try:  # before anything is planned: a run's bounds, so an edited repeats costs no memory
        limits.check_counts(repeats=result.repeats, concurrency=None)
        limits.check_samples(len(result.case_hashes), result.repeats)
    except TrialError as exc:
        return [f"repeats: {exc} — no run is written so: it was edited"], None
    problems = identity_problems(manifest, result.manifest_sha256)
    seen: set[tuple[str, int]] = set()
    for position, sample in enumerate(result.samples):
        if not isinstance(sample, TrialSample):
            continue
        why = _foreign(sample, result, seen)
        if why:
            problems.append(f"samples[{position}] {sample_label(sample)}: {why}")
        else:
            seen.add((sample.case_id, sample.repeat))
    problems += copy_problems(result.samples)
    problems += question_problems(result)
    problems += asked_problems(result.samples, result.configuration,
                               configuration_sha256=manifest["configuration_sha256"],
                               prompt_version=manifest["prompt_version"],
                               prompt_sha256=manifest["prompt_sha256"], second_opinion=bool(manifest["second_opinion"]))
    planned = [(case, repeat) for case in result.case_hashes for repeat in range(result.repeats)
               if result.shard is None or result.shard.holds(case, repeat)]
    failed = sum(1 for sample in result.samples if sample.error is not None)
    count = SampleCount(len(planned), len(seen & set(planned)), failed, written=result.kind == ResultKind.RESULT,
                        shard=result.shard.label if result.shard is not None else None)
    if count.written and count.found < count.expected:
        problems.append(f"result: written as finished, but it holds {count.found} of {count.expected} samples: "
                        "samples it counted are gone")
    return problems, count


def identity_problems(manifest: Mapping[str, Any], recorded: str | None) -> list[str]:
    """A trial's manifest fields against the hashes beside them: its ``manifest_sha256``, its configuration's hash,
    and a prompt identity that is one of answerlens' prompts (version and hash together)."""
    problems = []
    if manifest_sha256(manifest) != recorded:
        problems.append("manifest_sha256: not that of the run's fields (dataset, cases, repeats, configuration, "
                        "prompt, second opinion): they were edited after the run")
    config = manifest["configuration"]
    if configuration_sha256(config) != manifest["configuration_sha256"]:
        problems.append("configuration_sha256: not that of the configuration recorded beside it")
    problems += prompt_problems(manifest["prompt_version"], manifest["prompt_sha256"])
    return problems


def prompt_problems(version: object, sha256: object) -> list[str]:
    """A recorded prompt identity that is none of answerlens' prompts (the configuration's dump leaves the prompt's
    name out, so the identity is checked against every prompt a run can use)."""
    known = {(prompt.version, prompt.sha256) for prompt in PROMPTS.values()}
    if (version, sha256) in known:
        return []
    return [f"prompt: the run records {version} ({str(sha256)[:12]}…), which is none of answerlens' prompts ("
            + ", ".join(f"{prompt.version} {prompt.sha256[:12]}…" for prompt in PROMPTS.values()) + ")"]


def _foreign(sample: TrialSample, result: TrialResult, seen: set[tuple[str, int]]) -> str | None:
    """Why a sample is not one of this run's planned samples, or None."""
    assert result.case_hashes is not None and result.repeats is not None
    if sample.manifest_sha256 != result.manifest_sha256:
        return "a sample of another run (its manifest_sha256 differs): refused"
    if sample.case_id not in result.case_hashes:
        return "not a case of the run's dataset"
    if sample.case_sha256 != result.case_hashes[sample.case_id]:
        return "case_sha256: not the case the manifest lists"
    if sample.repeat >= result.repeats:
        return f"repeat {sample.repeat}, and the run has {result.repeats} repeat(s)"
    if result.shard is not None and not result.shard.holds(sample.case_id, sample.repeat):
        return f"belongs to another shard than {result.shard.label}"
    if (sample.case_id, sample.repeat) in seen:
        return "recorded twice"
    return None


def recorded_summary_problems(raw: Mapping[str, Any], result: TrialResult) -> list[str]:
    """The summary and gates a result file records, against what its samples give (readers recompute them, so
    an edited summary or gate would otherwise pass unseen). ``result`` is the result as read; the gates are taken
    from ``raw`` as recorded."""
    try:
        recorded = read_result(raw)
    except DatasetError as exc:
        return [f"result: {exc}"]
    return _summary_problems(raw, result) + _gate_problems(recorded)


def read_result(raw: Mapping[str, Any]) -> TrialResult:
    """A dumped ``TrialResult``, typed; one that does not read back exactly as recorded is a ``DatasetError``."""
    samples: tuple[TrialSample, ...] | tuple[UpstreamSample, ...]
    if raw.get("kind") == ResultKind.UPSTREAM:
        samples = parse_samples(raw.get("samples"), UpstreamSample, "result")
    else:
        samples = parse_samples(raw.get("samples"), TrialSample, "result")
    try:
        result = TrialResult.model_validate({**raw, "samples": samples})
    except ValidationError as exc:
        raise DatasetError(describe_validation(exc)) from None
    recorded = {key: value for key, value in raw.items() if key != "samples"}
    problem = round_trip_problem(recorded, result.model_dump(mode="json", exclude={"samples"}))
    if problem:
        raise DatasetError(problem)
    return result


def _summary_problems(raw: Mapping[str, Any], result: TrialResult) -> list[str]:
    try:
        recomputed = summarize(result.samples, drafts=_drafts(result)).model_dump(mode="json")
    except DatasetError as exc:
        return [f"samples: {exc}"]
    where = first_difference(raw.get("summary"), recomputed, "summary")
    return [f"{where}: differs from what the samples give"] if where else []


def _gate_problems(result: TrialResult) -> list[str]:
    """Our gates are re-evaluated from the summary; upstream's are shown as published."""
    gates = result.quality_gates
    if gates is None or result.kind == ResultKind.UPSTREAM:
        return []
    known = {gate.value for gate in Gate}
    unknown = [name for name in gates.results if name not in known]
    if unknown:
        return [f"quality_gates.results.{name}: not a gate answerlens evaluates" for name in unknown]
    try:
        summary = summarize(result.samples, drafts=_drafts(result))
    except DatasetError:
        return []  # reported by _summary_problems
    fresh = evaluate_gates(summary,
                           {Gate(name): gate.required for name, gate in gates.results.items()})
    where = first_difference(gates.model_dump(mode="json"), fresh.model_dump(mode="json"), "quality_gates")
    return [f"{where}: differs from the gates re-evaluated over the samples"] if where else []


def _drafts(result: TrialResult) -> bool:
    return result.drafts or any(sample.answer_label is not None for sample in result.samples)


def first_difference(recorded: Any, fresh: Any, path: str) -> str | None:
    """The JSON path of the first place two JSON values differ (type included, keys of either side), or None."""
    found = json_difference(recorded, fresh, path, added_keys_ok=False)
    return found.path if found is not None else None
