"""The one bounded reader: regular files only (a pipe only where a user names one to stream a bundle), never a
symlink out of the folder it is read in, a cap, strict UTF-8, representable values, an object cap."""

import json
import re
from pathlib import Path

import pytest

from answerlens import BundleError
from answerlens.errors import DatasetError
from answerlens.json_reader import decode, parse_json, read_json, read_text


def test_a_fifo_named_to_stream_a_bundle_is_read_with_the_limit(tmp_path: Path) -> None:
    import os
    import threading

    fifo = tmp_path / "bundle.fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with fifo.open("wb") as handle:
            try:
                handle.write(b"[" + b"0," * 400_000 + b"0]")
            except BrokenPipeError:
                pass  # the reader stopped at the limit

    writer = threading.Thread(target=write)
    writer.start()
    with pytest.raises(BundleError, match="larger than the limit"):
        read_json(fifo, max_bytes=100_000, pipes=True)
    writer.join()


def _refusal(path: Path, **options: object) -> str:
    """The message ``read_text`` refuses ``path`` with, read in a thread: a reader that blocks fails the test."""
    import threading

    outcome: list[BaseException | str] = []

    def read() -> None:
        try:
            outcome.append(read_text(path, **options))  # type: ignore[arg-type]
        except BaseException as exc:  # handed to the test thread
            outcome.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=30)  # a failure detector: the refusal is immediate
    assert outcome, f"reading {path} blocked"
    assert isinstance(outcome[0], BundleError), outcome[0]
    return str(outcome[0])


@pytest.mark.parametrize("kind, shown", [
    pytest.param("fifo", "a FIFO (named pipe)", id="fifo_without_a_writer"),
    pytest.param("device", "a character device", id="symlink_to_dev_zero"),
    pytest.param("socket", "a socket", id="unix_socket"),
])
def test_what_is_not_a_regular_file_is_refused_without_blocking(tmp_path: Path, kind: str, shown: str) -> None:
    import os
    import socket

    path = tmp_path / "sample.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")
    else:
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
    message = _refusal(path)
    assert f"is {shown}, not a regular file" in message and str(path) in message


def test_a_symlink_out_of_the_folder_is_refused_and_one_inside_is_read(tmp_path: Path) -> None:
    outside = tmp_path / "secret.json"
    outside.write_text('{"a": 1}')
    run = tmp_path / "run"
    run.mkdir()
    (run / "inside.json").write_text('{"b": 2}')
    (run / "link.json").symlink_to(outside)
    (run / "alias.json").symlink_to(run / "inside.json")
    message = _refusal(run / "link.json", inside=run)
    assert "a symbolic link to a file outside" in message and str(run) in message
    assert read_text(run / "alias.json", inside=run) == '{"b": 2}'
    assert read_text(run / "link.json") == '{"a": 1}', "without a folder to stay in, a link is followed"


def test_the_cap_is_in_the_message_before_a_byte_is_read(tmp_path: Path) -> None:
    huge = tmp_path / "huge.json"
    with huge.open("wb") as handle:  # sparse: 1.5 GB that costs nothing
        handle.truncate(1_500_000_000)
    message = _refusal(huge, max_bytes=64 * 1024 * 1024, remedy="not a file this run wrote")
    assert "1430.5 MB (1,500,000,000 bytes); the limit is 64 MB — not a file this run wrote" in message



@pytest.mark.parametrize(
    "data, message",
    [
        pytest.param(b"\xff\xfe", "not UTF-8 text (byte 0)", id="not_utf8"),
        pytest.param(b"x" * 11, "file is 11 bytes; the limit is 10 bytes", id="too_large"),
    ],
)
def test_decode_refuses_what_is_not_bounded_utf8(data: bytes, message: str) -> None:
    with pytest.raises(BundleError, match=re.escape(message)):
        decode(data, "upload.json", max_bytes=10)


def test_decode_drops_a_byte_order_mark() -> None:
    assert decode("\ufeff{}".encode(), "x") == "{}"


@pytest.mark.parametrize(
    "text, message",
    [
        pytest.param('{"a": [1, 2', "invalid JSON at line 1 column 12", id="truncated"),
        pytest.param('{"a": "cut off', "invalid JSON at line 1 column 7: Unterminated string starting here$",
                     id="unterminated_string_is_a_whole_phrase"),
        pytest.param("[" * 100_000 + "]" * 100_000, "nested too deeply", id="deep"),
        pytest.param('{"a": "\\udfff"}', r"at \$\.a: .*lone surrogate", id="lone_surrogate"),
        pytest.param('[1e999]', r"at \$\[0\]: the number 1e999 is out of range", id="float_overflow"),
    ],
)
def test_parse_errors_name_the_place(text: str, message: str) -> None:
    with pytest.raises(BundleError, match=message):
        parse_json(text, "x.json")


def test_the_object_cap_stops_parsing() -> None:
    assert parse_json(json.dumps([{}] * 10), "x", max_objects=10) == [{}] * 10
    with pytest.raises(BundleError, match="more than 10 JSON objects"):
        parse_json(json.dumps([{}] * 11), "x", max_objects=10)


def test_the_error_type_is_the_caller_s(tmp_path: Path) -> None:
    def dataset_error(message: str, label: str | None) -> Exception:
        return DatasetError(f"{label}: {message}")

    missing = tmp_path / "none.json"
    with pytest.raises(DatasetError, match="none.json: file not found"):
        read_text(missing, error=dataset_error)
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(DatasetError, match="bad.json: invalid JSON"):
        read_json(tmp_path / "bad.json", error=dataset_error)
