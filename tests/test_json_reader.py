"""The one bounded JSON reader: any file type, strict UTF-8, representable values, an object cap."""

import json
import re
from pathlib import Path

import pytest

from answerlens import BundleError
from answerlens.errors import DatasetError
from answerlens.json_reader import decode, parse_json, read_json, read_text


def test_a_fifo_is_read_with_the_limit(tmp_path: Path) -> None:
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
        read_json(fifo, max_bytes=100_000)
    writer.join()



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
