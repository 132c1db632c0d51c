"""Adversarial variants of credentials in base URLs: other spellings (upper-case scheme, padding, tabs, CRLF),
and passwords holding characters that end an authority (``/``, ``?``, ``#``). Each is refused, and no error
message anywhere repeats any part of the password."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr, ValidationError

from answerlens import AnswerabilityConfig
from answerlens.cli import main
from answerlens.errors import TrialError
from answerlens.trials.endpoints import normalise_endpoints, read_endpoints
from tests.paths import PRME

PART1, PART2 = "Pl4nted", "Xyz9w"
PASSWORDS = [f"{PART1}{PART2}", f"{PART1}#{PART2}", f"{PART1}/{PART2}", f"{PART1}?{PART2}"]
SPELLINGS = ["http://u:{p}@127.0.0.1:9/v1", "HTTP://u:{p}@127.0.0.1:9/v1", "  http://u:{p}@h/v1\t",
             "hTTpS://{p}@api.example.com/v1", "http://u:{p}@[::1]:8080/v1", "http://:{p}@h"]
URLS = [spelling.format(p=password) for spelling in SPELLINGS for password in PASSWORDS]


def leaks(message: str) -> bool:
    return PART1 in message or PART2 in message


@pytest.mark.parametrize("url", URLS)
def test_the_configuration_refuses_it_without_repeating_the_password(url: str) -> None:
    with pytest.raises(ValidationError) as refused:
        AnswerabilityConfig(provider="openai", base_url=url, api_key=SecretStr("k"))
    assert not leaks(str(refused.value)), str(refused.value)


@pytest.mark.parametrize("url", URLS)
def test_the_endpoint_readers_refuse_it_without_repeating_the_password(tmp_path: Path, url: str) -> None:
    path = tmp_path / "endpoints.txt"
    path.write_bytes(f"# replicas\r\nhttp://127.0.0.1:9/v1\r\n{url}\r\n".encode())
    with pytest.raises(TrialError) as refused:
        normalise_endpoints(AnswerabilityConfig(provider="openai"), read_endpoints(path))
    message = str(refused.value)
    assert not leaks(message) and ("line 3" in message or "endpoint 2" in message), message
    with pytest.raises(TrialError) as refused:
        normalise_endpoints(AnswerabilityConfig(provider="openai"), ["http://127.0.0.1:9/v1", url])
    assert not leaks(str(refused.value)), str(refused.value)


@pytest.mark.parametrize("password", PASSWORDS)
def test_assess_refuses_it_exit_2_without_repeating_the_password(capsys: Any, password: str) -> None:
    code = main(["assess", str(PRME / "bundles" / "bundle_reader_citations.json"), "-q", "x", "--provider",
                 "openai", "--model", "m", "--base-url", f"HTTP://user:{password}@127.0.0.1:9/v1", "--json"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and not leaks(err), err


def test_an_at_sign_after_a_valid_authority_is_still_a_path() -> None:
    assert AnswerabilityConfig(provider="openai", base_url="http://127.0.0.1:9/v1/@team").base_url \
        == "http://127.0.0.1:9/v1/@team"


def test_a_comment_still_follows_a_blank_in_an_endpoints_file(tmp_path: Path) -> None:
    path = tmp_path / "endpoints.txt"
    path.write_text("http://127.0.0.1:9/v1 # first\n#second\n\thttp://127.0.0.1:10/v1\t# tabbed\n")
    assert read_endpoints(path) == ["http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1"]
