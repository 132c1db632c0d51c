"""The one bounded reader of files: regular files only (never blocking on a FIFO or a device), inside the folder
they are read in, up to a cap named in the message; then strict UTF-8, JSON that Python can hold
exactly (no lone surrogates, no out-of-range numbers), an optional cap on the number of objects, and every
failure an error that names the source and the line, column or JSON path."""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from answerlens.errors import BundleError, json_problem

MB = 1024 * 1024
DEFAULT_MAX_BYTES = 50 * MB
"""Largest file read (50 MB, counted as MiB)."""
PACK_FEWER = "pack fewer records"
"""What to do about a bundle over the limit (other readers say what fits them)."""


ErrorFactory = Callable[[str, "str | None"], Exception]
"""Builds the error a reader raises from a message and the source's label."""


def _bundle_error(message: str, label: str | None) -> Exception:
    return BundleError(message, source=label)


def read_bytes(path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES, error: ErrorFactory = _bundle_error,
               inside: Path | None = None, pipes: bool = False, remedy: str = PACK_FEWER) -> bytes:
    """The one way answerlens reads a file: its bytes, from a regular file only, up to ``max_bytes``.

    A FIFO, a device or a socket is refused without ever blocking on it (opened non-blocking, then looked at):
    a FIFO in a run folder would hang every reader, ``/dev/zero`` would never end. ``pipes`` lets a FIFO through
    where a user names one to stream a bundle from (``<(jq … bundle.json)``); it is then read up to the limit.
    With ``inside``, the file must resolve into that folder: a symlink out of it is refused. A regular file over
    the limit is refused from its size, before a byte is read; one that grows while read stops one chunk past it.
    The messages name the file, and the cap with ``remedy``.
    """
    label = str(path)
    if inside is not None:
        _check_inside(path, inside, label, error)
    with _open_regular(path, label, error=error, pipes=pipes) as handle:
        found = os.fstat(handle.fileno())
        if stat.S_ISREG(found.st_mode) and found.st_size > max_bytes:
            raise error(_too_large(found.st_size, max_bytes, remedy), label)
        chunks, total = [], 0
        try:
            while chunk := handle.read(min(1 << 20, max_bytes + 1 - total)):
                chunks.append(chunk)
                total += len(chunk)
                if total > max_bytes:
                    raise error(f"is larger than the limit of {_mb(max_bytes)} — {remedy}", label)
        except OSError as exc:
            raise error(f"cannot read file ({exc.strerror or exc})", label) from None
    return b"".join(chunks)


def read_text(path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES, error: ErrorFactory = _bundle_error,
              inside: Path | None = None, pipes: bool = False, remedy: str = PACK_FEWER) -> str:
    """A file's UTF-8 text, read as ``read_bytes`` reads it."""
    data = read_bytes(path, max_bytes=max_bytes, error=error, inside=inside, pipes=pipes, remedy=remedy)
    return decode(data, str(path), error=error)


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _open_regular(path: Path, label: str, *, error: ErrorFactory, pipes: bool) -> BinaryIO:
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        raise error("file not found", label) from None
    except OSError as exc:  # a socket cannot be opened (ENXIO): say what it is
        try:
            mode = os.stat(path).st_mode
        except OSError:
            mode = stat.S_IFREG
        if not stat.S_ISREG(mode):
            raise error(_not_regular(mode), label) from None
        raise error(f"cannot read file ({exc.strerror or exc})", label) from None
    mode = os.fstat(descriptor).st_mode
    if stat.S_ISREG(mode):
        return os.fdopen(descriptor, "rb")  # O_NONBLOCK means nothing to a regular file
    os.close(descriptor)
    if pipes and stat.S_ISFIFO(mode):
        try:
            return path.open("rb")  # blocking: the user named a pipe and writes into it
        except OSError as exc:
            raise error(f"cannot read file ({exc.strerror or exc})", label) from None
    raise error(_not_regular(mode), label)


def _not_regular(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "is a directory, not a JSON file"
    return (f"is {_kind(mode)}, not a regular file: answerlens reads only regular files here — move it away, or put "
            "the file itself in its place")


def _check_inside(path: Path, folder: Path, label: str, error: ErrorFactory) -> None:
    try:
        target, home = path.resolve(), folder.resolve()
    except (OSError, RuntimeError):  # a symlink loop
        raise error("is a symbolic link that does not resolve (a loop)", label) from None
    if not target.is_relative_to(home):
        raise error(f"is a symbolic link to a file outside {folder} ({target}); answerlens reads only files inside "
                    "the folder — put the file itself in its place", label)


def _too_large(size: int, max_bytes: int, remedy: str = PACK_FEWER) -> str:
    exact = f" ({size:,} bytes)" if size >= 1024 else ""
    return f"file is {_mb(size)}{exact}; the limit is {_mb(max_bytes)} — {remedy}"


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
              max_objects: int | None = None, inside: Path | None = None, pipes: bool = False) -> Any:
    """The one bounded JSON reader: ``read_text`` then ``parse_json``."""
    text = read_text(path, max_bytes=max_bytes, error=error, inside=inside, pipes=pipes)
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


