"""Credentials in a base URL (``http://user:secret@host/v1``) are refused at every way in: the configuration, the
CLI's --base-url, a trial's --endpoint and endpoints file, a replica handed to the evaluator, and the app's field.
Nothing is written and the secret is never repeated: a key goes in api_key, which is never recorded."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr, ValidationError

from answerlens import AnswerabilityConfig, AnswerabilityEvaluator
from answerlens.cli import main
from answerlens.errors import TrialError
from answerlens.trials.dataset import load_dataset
from answerlens.trials.endpoints import normalise_endpoints, read_endpoints
from tests.app.conftest import assert_clean, html, notices, start
from tests.paths import PRME
from tests.trials.helpers import question_cases, write_dataset

SECRET = "s3cr3t-PLANTED"
URLS = [
    pytest.param(f"http://user:{SECRET}@127.0.0.1:9/v1", id="user_and_password"),
    pytest.param(f"https://{SECRET}@api.example.com/v1", id="user_only"),
    pytest.param(f"http://:{SECRET}@127.0.0.1:9/v1", id="password_only"),
    pytest.param(f"http://user:{SECRET}@127.0.0.1:99999/v1", id="also_a_bad_port"),
    pytest.param(f"http://user:{SECRET}@[::1/v1", id="also_broken"),
]
BUNDLE = PRME / "bundles" / "bundle_reader_citations.json"


def says_how(message: str) -> None:
    assert "user name or password" in message and "api_key" in message and "--api-key-env" in message
    assert SECRET not in message


@pytest.mark.parametrize("url", URLS)
def test_the_configuration_refuses_userinfo_and_says_how_to_pass_a_key(url: str) -> None:
    with pytest.raises(ValidationError) as refused:
        AnswerabilityConfig(provider="openai", base_url=url, api_key=SecretStr("k"))
    says_how(str(refused.value))


def test_an_at_sign_in_the_path_or_query_is_not_userinfo() -> None:
    config = AnswerabilityConfig(provider="openai", base_url="http://127.0.0.1:9/v1/@team?x=a@b")
    assert config.base_url == "http://127.0.0.1:9/v1/@team?x=a@b"


@pytest.mark.parametrize("url", URLS)
def test_a_replica_url_handed_to_the_evaluator_is_refused(url: str) -> None:
    config = AnswerabilityConfig(provider="openai", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ValidationError) as refused:
        AnswerabilityEvaluator(config, base_url=url)
    says_how(str(refused.value))


def test_assess_with_a_credential_base_url_is_exit_2_and_never_repeats_it(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code = main(["assess", str(BUNDLE), "-q", "x", "--provider", "openai", "--model", "m",
                 "--base-url", f"http://user:{SECRET}@127.0.0.1:9/v1", "--json"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    says_how(err)


def trial(tmp_path: Path, *extra: str) -> int:
    path = write_dataset(tmp_path / "cases.json", question_cases())
    return main(["trial", str(path), "--repeats", "1", "--out", str(tmp_path / "run"), "--provider", "openai",
                 "--model", "oracle", "--max-retries", "0", *extra])


@pytest.mark.parametrize(
    "where",
    [pytest.param("base_url", id="base_url"), pytest.param("endpoint", id="endpoint"),
     pytest.param("endpoints_file", id="endpoints_file")],
)
def test_a_trial_with_credentials_in_any_url_writes_nothing(capsys, tmp_path: Path, where: str) -> None:  # type: ignore[no-untyped-def]
    url = f"http://user:{SECRET}@127.0.0.1:9/v1"
    (tmp_path / "endpoints.txt").write_text(f"# replicas\nhttp://127.0.0.1:9/v1\n{url}\n")
    extra = {"base_url": ["--base-url", url], "endpoint": ["--base-url", "http://127.0.0.1:9/v1", "--endpoint", url],
             "endpoints_file": ["--endpoints", str(tmp_path / "endpoints.txt")]}[where]
    code = trial(tmp_path, *extra)
    out, err = capsys.readouterr()
    assert code == 2 and not (tmp_path / "run").exists()
    says_how(out + err)
    if where == "endpoints_file":
        assert "endpoints.txt, line 3" in err


def test_the_endpoint_readers_refuse_userinfo_naming_where(tmp_path: Path) -> None:
    (tmp_path / "endpoints.txt").write_text(f"http://127.0.0.1:9/v1\n\nhttp://u:{SECRET}@h/v1  # the second\n")
    with pytest.raises(TrialError, match=r"endpoints\.txt, line 3: a base URL must not carry") as refused:
        read_endpoints(tmp_path / "endpoints.txt")
    says_how(str(refused.value))
    config = AnswerabilityConfig(provider="openai", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(TrialError, match="endpoint 2: a base URL must not carry") as refused:
        normalise_endpoints(config, ["http://127.0.0.1:9/v1", f"http://u:{SECRET}@h/v1"])
    says_how(str(refused.value))
    assert load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))  # the dataset itself is fine


def test_the_app_refuses_a_credential_base_url_and_never_shows_it() -> None:
    at = start()
    at.radio(key="inspect.provider").set_value("OpenAI-compatible server").run()
    at.text_input(key="inspect.base_url.openai").set_value(f"http://user:{SECRET}@127.0.0.1:9/v1").run()
    assert_clean(at)
    (message,) = notices(at.sidebar, "error")
    says_how(message)
    assert SECRET not in html(at)
    assert at.button(key="inspect.assess").disabled
