"""Where the app's bundles come from: sample files, uploads and pasted JSON, loaded into one ``Source``.

No streamlit here: pages cache and display; this module only reads and validates. Text never doubles as
a path (``load_bundle`` would read a file named by a pasted string), so uploads and pastes are parsed here.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from answerlens.audit import sha256_text
from answerlens.errors import BundleError, describe_validation
from answerlens.html.escape import plain
from answerlens.json_reader import parse_json, read_json
from answerlens.loading import MAX_BUNDLE_BYTES, load_bundle
from answerlens.recording import RECORDING_FORMAT
from answerlens.records import MemoryBundle
from answerlens.samples import Sample, is_sample, list_samples

SAMPLES_ENV = "ANSWERLENS_SAMPLES_DIR"
"""Overrides the sample directory (tests point it at their own files)."""


@dataclass(frozen=True)
class Source:
    """A loaded bundle and, when it came from a sample file, the sample's question and recorded reply."""

    name: str
    bundle: MemoryBundle
    sample: Sample | None = None
    sha256: str | None = None
    """Of the file's bytes as read (an upload's, a pasted text's UTF-8): what a recording from it names, as the
    command line's does, so one recorded reply has one ``provenance_sha256`` whichever path replays it."""

    @property
    def context(self) -> str:
        """Exactly what is hashed and highlighted: ``render().strip()``."""
        return self.bundle.exact_context

    @cached_property
    def context_sha256(self) -> str:
        """The exact context's hash (an assessment's ``context_sha256``), computed once per loaded bundle."""
        return sha256_text(self.context)

    @property
    def title(self) -> str:
        return self.sample.title if self.sample else self.name

    @property
    def question(self) -> str:
        return self.sample.question if self.sample else ""

    @property
    def answer(self) -> str | None:
        return self.sample.answer if self.sample else None

    @property
    def recorded_reply(self) -> dict[str, Any] | None:
        return self.sample.recorded_reply if self.sample else None


def samples_dir(app_root: Path) -> Path:
    """``$ANSWERLENS_SAMPLES_DIR`` or ``sample_bundles/`` next to the app."""
    override = os.environ.get(SAMPLES_ENV)
    return Path(override) if override else app_root / "sample_bundles"


def sample_files(directory: Path) -> dict[str, Path]:
    """Every ``*.json`` in the directory by stem (a missing directory has none)."""
    return list_samples(directory) if directory.is_dir() else {}


def from_data(data: Any, name: str, sha256: str | None = None) -> Source:
    """A sample (``question`` + ``bundle``) or a bundle as parsed JSON (an object or a list of records)."""
    if not isinstance(data, (dict, list)):
        # load_bundle would take a JSON string for a file path; parsed data never names a file here.
        raise BundleError(f"expected a JSON object or a list of records, got {type(data).__name__}", source=name)
    if _is_reply(data):
        raise BundleError("this is a model reply (or a recording or an assessment), not a bundle: load the bundle "
                          "here, and give the reply under Recorded response in the sidebar", source=name)
    if is_sample(data):
        try:
            sample = Sample.model_validate(data)
        except ValidationError as exc:
            raise BundleError(describe_validation(exc), source=name) from None
        return Source(name=name, bundle=sample.load(name), sample=sample, sha256=sha256)
    return Source(name=name, bundle=load_bundle(data, name=name), sha256=sha256)


def _is_reply(data: Any) -> bool:
    if not isinstance(data, dict) or "sections" in data or "records" in data:
        return False
    return ("requirements" in data and "reasoning" in data) or RECORDING_FORMAT in data or "evaluation_id" in data


def from_path(path: Path) -> Source:
    data = read_json(path)
    return from_data(data, path.name, hashlib.sha256(path.read_bytes()).hexdigest())


def from_bytes(data: bytes, name: str) -> Source:
    """An uploaded file: size-checked, decoded as UTF-8, parsed as JSON."""
    check_size(len(data), name)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BundleError(f"not UTF-8 text (byte {exc.start}); upload a JSON file", source=name) from None
    if not text.strip():
        raise BundleError("nothing to load: the text is empty", source=name)
    return from_data(parse_json(text, name), name, hashlib.sha256(data).hexdigest())


def from_text(text: str, name: str = "pasted JSON") -> Source:
    if not text.strip():
        raise BundleError("nothing to load: the text is empty", source=name)
    encoded = text.encode("utf-8")
    check_size(len(encoded), name)
    return from_data(parse_json(text, name), name, hashlib.sha256(encoded).hexdigest())


def check_size(size: int, name: str) -> None:
    if size > MAX_BUNDLE_BYTES:
        raise BundleError(
            f"file is {size / 2**20:.1f} MB; the limit is {MAX_BUNDLE_BYTES / 2**20:.0f} MB — pack fewer records",
            source=name,
        )


def sample_label(stem: str, loaded: Source | BundleError) -> str:
    """How the sample picker names a sample file: its title and stem, or that it cannot be loaded (plain text:
    invisible and reordering characters shown as their codes)."""
    if isinstance(loaded, BundleError):
        return plain(f"{stem} (cannot be loaded)")
    return plain(f"{loaded.title}  ·  {stem}")


def reply_text(data: bytes, name: str) -> str:
    """A recorded raw reply file, kept as its exact text (its hash is the raw output's hash)."""
    check_size(len(data), name)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BundleError(f"not UTF-8 text (byte {exc.start})", source=name) from None
