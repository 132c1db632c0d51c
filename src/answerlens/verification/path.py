"""``verify_path``: which checks apply to a file or folder, and what they found. The command line prints it, the
app and the report page show the same findings; nothing else decides what a path is verified as.

    an HTML report          its embedded data checked, its page rendered again and compared (``report``)
    a sweep folder          manifest, samples counted and re-derived over their cells, result (``sweep``)
    a trial run folder      manifest, sample files, result, every planned sample there (``folder``)
    a trial result file     manifest, samples, summary and gates (``trial``); upstream's as published
    a saved sample, an assessment (ours or PRME's, a printed one with its second opinion)   (``assessment``)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from answerlens.errors import VerificationError
from answerlens.records import MemoryBundle
from answerlens.trials.dataset import Dataset
from answerlens.verification.notes import Notes
from answerlens.verification.outcome import PathCheck, sample_notes
from answerlens.verification.trial_path import trial_or_assessment

HTML_STARTS = (b"<!doctype html", b"<html")


def verify_path(path: Path | str, *, bundle: MemoryBundle | Path | str | None = None,
                dataset: Dataset | Path | str | None = None) -> PathCheck:
    """Verify whatever ``path`` holds (see the module's table). ``bundle``: the bundle an assessment or report was
    made over (its every citation re-derived in its exact context); ``dataset``: the dataset a trial ran over (every
    sample against its case, and re-derived over its case's bundle). Either is a path or loaded.

    Raises ``VerificationError`` for a path that is none of these, or an option that does not apply to what it is;
    ``BundleError``/``DatasetError`` for a bundle or dataset that cannot be read. A file that is recognisably one of
    them but does not verify is a ``PathCheck`` with problems, never an exception.
    """
    path = Path(path)
    if not path.exists():
        raise VerificationError(f"{path}: no such file or folder")
    from answerlens.sweeps.found import is_sweep

    if path.is_file() and is_html(path):
        _refuse(dataset, "--dataset applies to a trial result or run folder; a report holds no contexts (verify the "
                "run folder with --dataset)")
        return _report(path, _bundle(bundle))
    if is_sweep(path):
        _refuse(bundle, "a sweep carries its bundle (bundle.json): --bundle does not apply")
        _refuse(dataset, "a sweep carries its bundle (bundle.json): --dataset applies to a trial")
        return _sweep(path)
    from answerlens.verification.imported import sample_of

    imported = sample_of(str(bundle)) if isinstance(bundle, (Path, str)) else None  # checked against import blocks
    return trial_or_assessment(path, bundle=_bundle(bundle), dataset=_dataset(dataset), sample=imported)


def is_html(path: Path) -> bool:
    """Whether a file starts like an HTML document (a report)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(64)
    except OSError:
        return False
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").lower().startswith(HTML_STARTS)


def _refuse(option: Any, message: str) -> None:
    if option is not None:
        raise VerificationError(message)


def _bundle(bundle: MemoryBundle | Path | str | None) -> MemoryBundle | None:
    if bundle is None or isinstance(bundle, MemoryBundle):
        return bundle
    from answerlens.json_reader import read_json
    from answerlens.loading import load_bundle
    from answerlens.samples import is_sample

    data = read_json(Path(bundle))
    return load_bundle(data["bundle"] if is_sample(data) else data, name=str(bundle))


def _dataset(dataset: Dataset | Path | str | None) -> Dataset | None:
    if dataset is None or isinstance(dataset, Dataset):
        return dataset
    from answerlens.trials.dataset import load_dataset

    return load_dataset(Path(dataset))


def _report(path: Path, bundle: MemoryBundle | None) -> PathCheck:
    from answerlens.json_reader import read_text
    from answerlens.verification.report import verify_report

    check = verify_report(read_text(path), bundle=bundle)
    return PathCheck(path, f"{check.kind} report", problems=check.problems,
                     notes=Notes(check.notes, check.caveats), samples=check.samples)


def _sweep(path: Path) -> PathCheck:
    from answerlens.errors import AnswerlensError
    from answerlens.verification.sweep import verify_sweep

    try:
        checked = verify_sweep(path)
    except (AnswerlensError, ValueError) as exc:  # recognisably a sweep whose files do not read: not verified
        return PathCheck(path, "sweep", problems=(str(exc),))
    samples = checked.result.samples
    return PathCheck(path, "sweep", sum(1 for sample in samples if sample.assessment is not None), checked.problems,
                     sample_notes(samples), checked.samples)


