"""A finished run's ``TrialResult`` from its samples: one builder for a single run, a shard and a merge, so a
merge of shards writes exactly what one machine would have written."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone

from answerlens.trials import folder
from answerlens.trials.dataset import Dataset
from answerlens.trials.gates import Gate, Threshold, default_gates, evaluate_gates
from answerlens.trials.log import ResultKind, TrialSample
from answerlens.trials.result import DatasetRecord, QuestionRecord, RunIdentity, TrialResult
from answerlens.trials.shard import Shard
from answerlens.trials.summary import summarize


def question_records(dataset: Dataset) -> dict[str, QuestionRecord]:
    """Every case as ``result.json`` lists it, without its sample files yet."""
    return {item.case.id: QuestionRecord(question_id=item.case.id, question=item.case.question, label=item.case.label,
                                         question_type=item.case.question_type, answer_label=item.case.answer_label,
                                         sample_files=()) for item in dataset.cases}


def dataset_record(dataset: Dataset) -> DatasetRecord:
    return DatasetRecord(path=str(dataset.path), sha256=dataset.sha256, cases=len(dataset.cases))


def assemble(record: DatasetRecord, questions: Mapping[str, QuestionRecord], samples: Sequence[TrialSample],
             identity: RunIdentity, *, repeats: int, concurrency: int | None, gates: Mapping[Gate, Threshold] | None,
             wall_seconds: float, drafts: bool, shard: Shard | None = None,
             finished_at: datetime | None = None) -> TrialResult:
    """The result of ``samples`` (in the run's order: by case, then repeat); each question lists the files of
    its samples present, in repeat order (all of them, except in a shard)."""
    summary = summarize(samples, drafts=drafts)
    files: dict[str, list[str]] = defaultdict(list)
    for sample in sorted(samples, key=lambda item: item.repeat):
        files[sample.case_id].append(folder.sample_filename(sample.case_id, sample.repeat))
    listed = tuple(questions[entry.question_id].model_copy(update={"sample_files": tuple(files[entry.question_id])})
                   for entry in summary.per_question)
    return TrialResult(
        kind=ResultKind.RESULT, schema_version=1, dataset=record, **dict(identity), repeats=repeats,
        concurrency=concurrency,
        finished_at=finished_at or datetime.now(timezone.utc).replace(microsecond=0),
        wall_seconds=round(wall_seconds, 3), summary=summary,
        quality_gates=evaluate_gates(summary, gates if gates is not None else default_gates(summary)),
        questions=listed, samples=tuple(samples), shard=shard,
    )
