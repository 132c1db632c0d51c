"""The one bounded JSON reader: any file type read in bounded chunks, strict UTF-8, JSON that Python can hold
exactly (no lone surrogates, no out-of-range numbers), an optional cap on the number of objects, and every
failure an error that names the source and the line, column or JSON path."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from answerlens.errors import BundleError, json_problem

MB = 1024 * 1024
DEFAULT_MAX_BYTES = 50 * MB
"""Largest file read (50 MB, counted as MiB)."""


ErrorFactory = Callable[[str, "str | None"], Exception]
"""Builds the error a reader raises from a message and the source's label."""


def _bundle_error(message: str, label: str | None) -> Exception:
    return BundleError(message, source=label)


def read_text(path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES, error: ErrorFactory = _bundle_error) -> str:
    """A file's UTF-8 text, read in bounded chunks whatever the file is (regular file, FIFO, device).

    A regular file over the limit is refused before reading; anything else stops one chunk past it.
    """
    label = str(path)
    try:
        if path.is_dir():
            raise error("is a directory, not a JSON file", label)
        size = path.stat().st_size
        if path.is_file() and size > max_bytes:
            raise error(_too_large(size, max_bytes), label)
        chunks, total = [], 0
        with path.open("rb") as handle:
            while chunk := handle.read(min(1 << 20, max_bytes + 1 - total)):
                chunks.append(chunk)
                total += len(chunk)
                if total > max_bytes:
                    raise error(f"is larger than the limit of {_mb(max_bytes)} — pack fewer records", label)
    except FileNotFoundError:
        raise error("file not found", label) from None
    except OSError as exc:
        raise error(f"cannot read file ({exc.strerror or exc})", label) from None
    return decode(b"".join(chunks), label, error=error)


def _too_large(size: int, max_bytes: int) -> str:
    exact = f" ({size:,} bytes)" if size >= 1024 else ""
    return f"file is {_mb(size)}{exact}; the limit is {_mb(max_bytes)} — pack fewer records"


def _mb(size: int) -> str:
    """A size as people read it: ``52.4 MB``, ``640 KB``, ``11 bytes``."""
    if size >= MB:
        return f"{size / MB:.1f} MB".replace(".0 MB", " MB")
    if size >= 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size} bytes"


def decode(data: bytes, label: str | None, *, max_bytes: int | None = None,
           error: ErrorFactory = _bundle_error) -> str:
    """UTF-8 text (a leading BOM is dropped); bytes over ``max_bytes`` or not UTF-8 are refused."""
    if max_bytes is not None and len(data) > max_bytes:
        raise error(_too_large(len(data), max_bytes), label)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"not UTF-8 text (byte {exc.start})", label) from None


def parse_json(text: str, label: str | None, *, error: ErrorFactory = _bundle_error,
               max_objects: int | None = None) -> Any:
    """JSON that Python can hold exactly: no lone surrogate in a string, no number out of range.

    ``max_objects`` stops parsing once that many JSON objects were built, so a file of millions of tiny
    records is refused before it fills memory. Every failure names the line and column, or the JSON path.
    """
    found: list[str] = []
    hook = _counting_hook(max_objects) if max_objects is not None else None
    try:
        data = json.loads(text, parse_int=_int_or_marker(found), parse_float=_float_or_marker(found),
                          object_pairs_hook=hook)
    except _TooManyObjects:
        raise error(f"holds more than {max_objects:,} JSON objects — more records than the limit allows; "
                    "pack fewer records, or raise the record limit", label) from None
    except json.JSONDecodeError as exc:
        raise error(f"invalid JSON at line {exc.lineno} column {exc.colno}: {json_problem(exc)}", label) from None
    except RecursionError:
        raise error("JSON is nested too deeply", label) from None
    if found or _SURROGATE_ESCAPE.search(text):
        problem = _unrepresentable(data)
        if problem is not None:
            raise error(problem, label)
    return data


def read_json(path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES, error: ErrorFactory = _bundle_error,
              max_objects: int | None = None) -> Any:
    """The one bounded JSON reader: ``read_text`` then ``parse_json``."""
    text = read_text(path, max_bytes=max_bytes, error=error)
    return parse_json(text, str(path), error=error, max_objects=max_objects)



_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class _TooManyObjects(Exception):
    pass


def _counting_hook(limit: int) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    count = 0

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal count
        count += 1
        if count > limit:
            raise _TooManyObjects
        return dict(pairs)
    return hook


class _OutOfRange:
    """A JSON number Python cannot hold exactly (kept as its text until the path is known)."""

    def __init__(self, text: str) -> None:
        self.text = text


def _int_or_marker(found: list[str]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            return int(text)
        except ValueError:  # more digits than int() converts
            found.append(text)
            return _OutOfRange(text)
    return parse


def _float_or_marker(found: list[str]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        value = float(text)
        if math.isinf(value):
            found.append(text)
            return _OutOfRange(text)
        return value
    return parse


def _unrepresentable(data: Any) -> str | None:
    """The first out-of-range number or lone surrogate, with its JSON path (walked without recursion)."""
    stack: list[tuple[Any, str]] = [(data, "$")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, _OutOfRange):
            shown = value.text if len(value.text) <= 24 else f"{value.text[:20]}… ({len(value.text)} digits)"
            return f"at {path}: the number {shown} is out of range"
        if isinstance(value, str) and _has_lone_surrogate(value):
            return f"at {path}: the text holds a lone surrogate (an unpaired \\ud800–\\udfff escape), not valid Unicode"
        if isinstance(value, dict):
            for key, item in reversed(value.items()):
                if _has_lone_surrogate(key):
                    return f"at {path}: a key holds a lone surrogate, not valid Unicode"
                stack.append((item, f"{path}.{key}"))
        elif isinstance(value, list):
            stack.extend((item, f"{path}[{index}]") for index, item in reversed(list(enumerate(value))))
    return None


def _has_lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


