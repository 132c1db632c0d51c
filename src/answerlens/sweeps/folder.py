"""A sweep's folder: ``run.json``, ``bundle.json`` (the records the cells were cut from), the trial engine's
``samples/`` and ``result.json``; and the checks of a resume. Writes go through the trial folder's durable writer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from answerlens import storage
from answerlens.audit import canonical_json_ascii, configuration_sha256, manifest_sha256, sha256_text
from answerlens.errors import AnswerlensError, TrialError, describe_validation
from answerlens.json_reader import DEFAULT_MAX_BYTES, read_text
from answerlens.loading import load_bundle
from answerlens.records import MemoryBundle
from answerlens.sweeps.result import SweepManifest, SweepResult
from answerlens.trials import folder as trial_folder

MANIFEST = trial_folder.MANIFEST
RESULT = trial_folder.RESULT
SAMPLES = trial_folder.SAMPLES
BUNDLE = "bundle.json"


def bundle_json(bundle: MemoryBundle) -> Any:
    return bundle.model_dump(mode="json")


def bundle_sha256(bundle: MemoryBundle) -> str:
    """Identity of the bundle's records and packed context (canonical JSON of its dump)."""
    return sha256_text(canonical_json_ascii(bundle_json(bundle)))


def sweep_sha256(question: str, answer: str | None, bundle_sha: str, settings: list[dict[str, str]]) -> str:
    return sha256_text(canonical_json_ascii({"kind": "sweep", "question": question, "answer": answer,
                                       "bundle_sha256": bundle_sha, "settings": settings}))


def prepare(out: Path, manifest: SweepManifest, bundle: MemoryBundle) -> Path:
    """Create the folder (or check it holds this sweep); the samples folder. Call it holding the run lock."""
    samples = out / SAMPLES
    run_file = out / MANIFEST
    if not run_file.exists():
        refuse_foreign(out)
    samples.mkdir(parents=True, exist_ok=True)
    for leftover in samples.glob(".*.tmp"):
        leftover.unlink()  # a write killed before its rename (no other runner: the caller holds the lock)
    if not run_file.exists():
        storage.replace_file(out / BUNDLE, json.dumps(bundle_json(bundle), ensure_ascii=False) + "\n")
        storage.replace_file(run_file, trial_folder.json_text(manifest))
        storage.sync_directory(out)  # one sync makes both renames durable
        return samples
    saved = read_manifest(out)
    for name, was, now in (("question, answer, bundle or settings", saved.sweep_sha256, manifest.sweep_sha256),
                           ("configuration", saved.configuration_sha256, manifest.configuration_sha256),
                           ("prompt", saved.prompt_sha256, manifest.prompt_sha256),
                           ("second-opinion setting", str(saved.second_opinion), str(manifest.second_opinion)),
                           ("number of repeats", str(saved.repeats), str(manifest.repeats)),
                           ("manifest", str(saved.manifest_sha256), str(manifest.manifest_sha256))):
        if was != now:
            raise TrialError(f"{out} holds a sweep with a different {name} ({was[:12]}… ≠ {now[:12]}…); refusing to "
                             "mix samples — use a fresh --out directory, or delete this one to start over")
    try:
        read_bundle(out, saved)
    except (AnswerlensError, ValueError, OSError):  # deleted or damaged: it is the bundle given (sweep_sha256 agrees)
        storage.replace_file(out / BUNDLE, json.dumps(bundle_json(bundle), ensure_ascii=False) + "\n")
        storage.sync_directory(out)
    return samples


def refuse_foreign(out: Path) -> None:
    """A fresh sweep's folder must hold nothing it did not write (a user's own ``bundle.json`` would be lost)."""
    trial_folder.refuse_foreign(out, "sweep", "run.json, bundle.json, result.json and samples/")


def read_manifest(out: Path) -> SweepManifest:
    path = out / MANIFEST
    try:
        manifest = SweepManifest.model_validate(trial_folder.read_saved_json(path, trial_folder.MANIFEST_MAX_BYTES))
    except ValidationError as exc:
        raise TrialError(f"{path}: not the manifest of an answerlens sweep ({describe_validation(exc)})") from None
    problem = manifest_problem(manifest)
    if problem:
        raise TrialError(f"{path}: {problem}")
    return manifest


def manifest_problem(manifest: SweepManifest) -> str | None:
    """Why a manifest's recorded hashes are not those of what it lists (it was edited), or None."""
    listed = [item.identity() for item in manifest.settings]
    if manifest.sweep_sha256 != sweep_sha256(manifest.question, manifest.answer, manifest.bundle_sha256, listed):
        return (f"edited: its sweep_sha256 is not that of its question, answer, bundle_sha256 and settings; "
                f"{MANIFEST} must be as the sweep wrote it")
    if manifest.configuration_sha256 != configuration_sha256(manifest.configuration.public_dump()):
        return f"edited: its configuration_sha256 is not that of its configuration; {MANIFEST} must be as written"
    if manifest.manifest_sha256 is None:
        return ("no manifest_sha256: written by an answerlens from before manifests, so its samples cannot be "
                "proved to be this sweep's, or complete; run the sweep again into a fresh folder")
    if manifest.manifest_sha256 != manifest_sha256(manifest.manifest()):
        return (f"edited: its manifest_sha256 is not that of its fields (question, draft, bundle, settings, repeats, "
                f"prompt, configuration, second opinion); {MANIFEST} must be as the sweep wrote it")
    return None


def read_bundle(out: Path, manifest: SweepManifest) -> MemoryBundle:
    """The sweep's bundle, refused when it is not the one ``run.json`` names."""
    path = out / BUNDLE
    text = read_text(path, max_bytes=2 * DEFAULT_MAX_BYTES, inside=out, remedy=trial_folder.NOT_WRITTEN_HERE,
                     error=lambda message, label: TrialError(f"{label}: {message}"))
    bundle = load_bundle(text, name=str(path))
    if bundle_sha256(bundle) != manifest.bundle_sha256:
        raise TrialError(f"{out / BUNDLE}: not the bundle this sweep ran over (sha256 differs from {MANIFEST}'s)")
    return bundle


def write_result(out: Path, result: SweepResult) -> Path:
    path = out / RESULT
    storage.write_atomically(path, result.file_text())
    return path
