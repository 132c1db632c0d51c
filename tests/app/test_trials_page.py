"""The Trials page through AppTest: open results, run the shipped dataset against a loopback server, cancel and
resume, errors as errors, and a sample opened in the Inspect page with its context."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from answerlens.trials.dataset import load_dataset
from answerlens.trials.folder import write_result
from answerlens.trials.gates import evaluate_gates
from answerlens.trials.reader import read_trial
from answerlens.ui.trials.job import TrialJob
from tests.app.conftest import assert_clean, html, notices, start
from tests.oracle_server import OracleServer, judgement, oracle_server
from tests.paths import PRME, SAMPLES
from tests.scripted_server import closed_port

PAGE = "pages/trials.py"
UPSTREAM = PRME / "trials" / "beam-100k-answerability-dev-v2-results.json"
QUESTIONS = SAMPLES / "trials" / "questions.json"
SUPPORTED = judgement(("The fact asked for", "supported", ["m1"]))
MISSING = judgement(("The fact asked for", "unsupported", []))
DATASET = load_dataset(QUESTIONS)
FAILING = DATASET.cases[1].case  # billing-pgbouncer-mode: its server call fails with HTTP 500


def replies() -> dict[str, object]:
    """Answerable questions are answered from m1, unanswerable ones are not; one question always fails."""
    table: dict[str, object] = {item.case.question: SUPPORTED if item.case.label == "answerable" else MISSING
                                for item in DATASET.cases}
    table[FAILING.question] = 500
    return table


@pytest.fixture
def server() -> Iterator[OracleServer]:
    with oracle_server(replies()) as running:
        yield running


@pytest.fixture
def held_server() -> Iterator[OracleServer]:
    """Answers two requests, then holds the next ones until the test releases them."""
    with oracle_server(replies(), hold_after=2) as running:
        yield running


def gates(at: AppTest) -> dict[str, str]:
    return dict(re.findall(r'data-gate="(\w+)" data-passed="(\w+)"', html(at)))


def metrics(at: AppTest) -> dict[str, str]:
    return {metric.label: metric.value for metric in at.metric}


def open_path(at: AppTest, path: Path | str) -> None:
    at.radio(key="trials.mode").set_value("Open a result").run()
    at.text_input(key="trials.open_path").set_value(str(path)).run()
    at.button(key="trials.open").click().run()
    assert_clean(at)


def run_mode(at: AppTest) -> None:
    at.radio(key="trials.mode").set_value("Run a trial").run()
    assert_clean(at)


def set_endpoint(at: AppTest, base_url: str, *, listed: bool = False) -> None:
    """``listed``: the server lists its models, so the Model field is a picker of them."""
    run_mode(at)
    at.radio(key="trials.provider").set_value("OpenAI-compatible server").run()
    at.text_input(key="trials.base_url.openai").set_value(base_url).run()
    (at.selectbox if listed else at.text_input)(key="trials.model.openai").set_value("oracle").run()
    assert_clean(at)


def run_trial(at: AppTest, out: Path, *, repeats: int, concurrency: int | None = 4, dataset: str = "questions.json",
              until: int | None = None) -> None:
    """Start a run and wait for it to end, or for ``until`` samples to be saved; then show the page again."""
    if dataset:
        at.selectbox(key="trials.dataset").set_value(dataset).run()
    at.number_input(key="trials.repeats").set_value(repeats).run()
    if concurrency is not None:  # None: the page's own default (as many as the server serves)
        at.number_input(key="trials.concurrency").set_value(concurrency).run()
    at.text_input(key="trials.out").set_value(str(out)).run()
    at.button(key="trials.run").click().run()
    assert_clean(at)
    job: TrialJob = at.session_state["trials.job"]
    if until is None:
        assert job.job.wait(60), "the trial did not end within 60 s"
    else:
        assert job.wait_for_samples(until, 60), f"the trial did not save {until} samples within 60 s"
    at.run()
    assert_clean(at)


# --- opening results ------------------------------------------------------------------------------------


def test_the_trials_page_is_listed_and_offers_no_recorded_response() -> None:
    at = start(PAGE)
    assert at.radio(key="trials.mode").value == "Example result"  # the shipped example first
    run_mode(at)
    assert at.title[0].value == "Trials"
    assert "Recorded response" not in at.radio(key="trials.provider").options
    assert "Embedded model (llama.cpp)" in at.radio(key="trials.provider").options
    assert at.selectbox(key="trials.dataset").options == ["drafts.jsonl", "questions.json"]
    assert re.search(r"/runs/drafts-\d{8}-\d{6}$", at.text_input(key="trials.out").value)


def test_open_the_upstream_result_file() -> None:
    at = start(PAGE)
    open_path(at, UPSTREAM)
    page = html(at)
    assert 'data-trial-kind="beam-answerability-execution"' in page
    assert "matches the published one" in page
    assert gates(at) == {"unsafe_full_answer_count_max": "false", "citation_errors_max": "false",
                         "ordinary_full_answer_count_min": "false", "ordinary_abstention_count_max": "false",
                         "stable_action_questions_min": "false"}
    table = page[page.index('<table class="al-table">'):]
    row = re.search(r"<td>ordinary_full_answer_count_min</td><td[^>]*>(\d+)</td><td>(.*?)</td>", table)
    assert row is not None and row.groups() == ("62", "≥ 86")
    numbers = metrics(at)
    assert numbers["Questions"] == "40" and numbers["Samples assessed"] == "120 / 120"
    assert numbers["Unsafe answers"] == "2 / 12" and numbers["Citation errors"] == "5"
    assert numbers["Stable questions"] == "26 / 40"
    assert len(at.get("plotly_chart")) == 4  # actions, citation errors, grid, agreement
    # An upstream sample has no bundle: said plainly, and its assessment is shown and verified instead.
    assert len(at.selectbox(key="trials.sample").options) == 120
    (info,) = [notice for notice in notices(at.main, "info") if "context isn't available" in notice]
    assert "do not contain them" in info
    # Nor can the second opinion's flags be computed without the bundles: said, never shown as zeros.
    assert 'data-second-opinion="none"' in page and "trial --second-opinion" in page
    assert 'data-verified="Sample"' in html(at)
    assert not [b for b in at.button if b.key == "trials.open_inspect"]


def test_upload_the_upstream_result_file() -> None:
    at = start(PAGE)
    at.radio(key="trials.mode").set_value("Open a result").run()
    at.file_uploader(key="trials.open_upload").set_value(
        ("beam.json", UPSTREAM.read_bytes(), "application/json")).run()
    assert_clean(at)
    assert "uploaded beam.json" in html(at)
    assert len(gates(at)) == 5


@pytest.mark.parametrize(
    "path, message",
    [
        pytest.param("does/not/exist", "no such file or directory", id="missing"),
        pytest.param(str(QUESTIONS), "not a trial result", id="a_dataset_not_a_result"),
        pytest.param("", "give the path", id="empty"),
    ],
)
def test_what_cannot_be_opened_says_why(path: str, message: str) -> None:
    at = start(PAGE)
    open_path(at, path)
    (error,) = notices(at.main, "error")
    assert message in error and "What to do" in error
    assert not gates(at)


# --- running --------------------------------------------------------------------------------------------


def test_run_the_shipped_dataset_end_to_end(server: OracleServer, tmp_path: Path) -> None:
    at = start(PAGE)
    set_endpoint(at, server.base_url)
    run_trial(at, tmp_path / "run", repeats=2)
    (finished,) = [n for n in notices(at.main, "ok") if "Trial finished" in n]
    assert "66 new samples, 0 reused, 2 error samples" in finished
    assert len(list((tmp_path / "run" / "samples").glob("*.json"))) == 66
    report = read_trial(tmp_path / "run")
    numbers = metrics(at)
    assert numbers["Samples assessed"] == f"{report.summary.samples} / 66" == "64 / 66"
    assert numbers["Error samples"] == "2"
    assert numbers["Unsafe answers"] == f"0 / {report.summary.unanswerable.samples}"
    assert report.quality_gates is not None
    assert gates(at) == {name: str(gate.passed).lower() for name, gate in report.quality_gates.results.items()}
    assert server.requests[FAILING.question] == 2  # one call per repeat: an HTTP 500 is not re-asked
    # The error samples are listed as errors, and selecting one shows an error, never a verdict.
    assert "Error samples: 2 samples in 1 group" in "".join(m.value for m in at.markdown)
    assert re.findall(r'data-error-group="(\w+)" data-error-count="(\d+)"', html(at)) == [("server_error", "2")]
    # The per-question and per-sample tables, sortable, each with its CSV export.
    questions_table, samples_table = (frame.value for frame in at.dataframe)
    assert len(questions_table) == 33 and len(samples_table) == 66
    assert (samples_table["outcome"] == "error").sum() == 2
    assert samples_table.loc[samples_table["sample"] == f"{FAILING.id}#1", "error"].item() == "server_error"
    assert [button.label for button in at.get("download_button")] == [
        "Download report", "Shown questions as CSV", "Shown questions as JSON", "Shown samples as CSV",
        "Shown samples as JSON"]
    at.selectbox(key="trials.sample").set_value(f"{FAILING.id}#1").run()
    assert_clean(at)
    assert any("no verdict was produced" in n and "HTTP 500" in n for n in notices(at.main, "error"))
    assert not re.findall(r'data-verdict="', html(at))


def test_left_at_0_the_requests_in_flight_follow_the_server_s_slots(tmp_path: Path) -> None:
    with oracle_server(replies(), slots=1, delay=0.01, models=("oracle",)) as one_slot:
        at = start(PAGE)
        set_endpoint(at, one_slot.base_url, listed=True)
        assert at.number_input(key="trials.concurrency").value == 0
        run_trial(at, tmp_path / "run", repeats=1, concurrency=None)
        job: TrialJob = at.session_state["trials.job"]
        assert job.outcome is not None and job.outcome.fit is not None and job.outcome.fit.concurrency == 1
        assert one_slot.most_in_flight == 1
        assert "1 request in flight: the server serves 1 at a time" in html(at)
    with oracle_server(replies(), slots=1, delay=0.01, models=("oracle",)) as busy:
        at = start(PAGE)
        set_endpoint(at, busy.base_url, listed=True)
        run_trial(at, tmp_path / "again", repeats=1, concurrency=3)
        assert busy.most_in_flight > 1  # an explicit setting is kept, and the page says what it costs
        assert "3 requests in flight, but the server serves 1 at a time" in html(at)


def test_a_sample_opens_in_inspect_with_its_context(server: OracleServer, tmp_path: Path) -> None:
    at = start(PAGE)
    set_endpoint(at, server.base_url)
    run_trial(at, tmp_path / "run", repeats=1)
    at.selectbox(key="trials.sample").set_value("checkout-outage-fix#0").run()
    assert re.findall(r'data-verdict="(\w+)"', html(at)) == ["answerable"]
    at.button(key="trials.open_inspect").click().run()
    assert_clean(at)
    assert at.title[0].value == "Inspect"
    assert at.radio(key="inspect.source_kind").value == "Sample"
    assert at.selectbox(key="inspect.sample").value == "draft_answer_unsupported_claim"
    assert at.text_area(key="inspect.question").value == "How was the March 12 checkout outage fixed?"
    assert re.findall(r'data-verdict="(\w+)"', html(at)) == ["answerable"]
    assert re.findall(r'<mark [^>]*data-citation="accepted" data-requirement="0" data-ref="m1"', html(at))
    (entry,) = at.selectbox(key="inspect.history").options
    assert "How was the March 12 checkout outage fixed?" in entry  # the history names runs by their question


def test_an_inline_dataset_from_its_result_directory_opens_in_inspect(server: OracleServer, tmp_path: Path) -> None:
    cases = [{"id": "pg", "question": "Which database does the API use?", "label": "answerable",
              "bundle": {"records": [{"text": "The API uses Postgres 16."}, {"text": "The cache is Redis 7."}]}},
             {"id": "owner", "question": "Who owns the API?", "label": "unanswerable",
              "bundle": {"records": [{"text": "The API uses Postgres 16."}]}}]
    with oracle_server({"Which database does the API use?": SUPPORTED, "Who owns the API?": MISSING}) as inline:
        at = start(PAGE)
        set_endpoint(at, inline.base_url)
        at.radio(key="trials.dataset_kind").set_value("Upload a dataset").run()
        at.file_uploader(key="trials.dataset_upload").set_value(
            ("my cases.json", json.dumps(cases).encode(), "application/json")).run()
        assert_clean(at)
        assert 'data-dataset-cases="2"' in html(at)
        run_trial(at, tmp_path / "inline", repeats=2, dataset="")
    assert (tmp_path / "inline" / "my_cases.json").read_text() == json.dumps(cases)  # kept beside the samples
    # Reopened later from its directory, the dataset is found again through result.json.
    again = start(PAGE)
    open_path(again, tmp_path / "inline")
    again.selectbox(key="trials.sample").set_value("pg#1").run()
    again.button(key="trials.open_inspect").click().run()
    assert_clean(again)
    assert again.radio(key="inspect.source_kind").value == "Paste JSON"
    assert json.loads(again.text_area(key="inspect.paste").value) == cases[0]["bundle"]
    assert again.text_area(key="inspect.question").value == "Which database does the API use?"
    assert re.findall(r'data-verdict="(\w+)"', html(again)) == ["answerable"]


def test_an_uploaded_dataset_with_bundle_paths_is_refused() -> None:
    at = start(PAGE)
    run_mode(at)
    at.radio(key="trials.dataset_kind").set_value("Upload a dataset").run()
    at.file_uploader(key="trials.dataset_upload").set_value(
        ("questions.json", QUESTIONS.read_bytes(), "application/json")).run()
    assert_clean(at)
    (error,) = notices(at.main, "error")
    assert "cannot use bundle paths" in error and "billing-db-version-and-owner" in error
    assert "inline each bundle" in error
    assert at.button(key="trials.run").disabled


def test_a_dataset_by_path_resolves_its_bundle_paths() -> None:
    at = start(PAGE)
    run_mode(at)
    at.radio(key="trials.dataset_kind").set_value("A dataset on this machine").run()
    at.text_input(key="trials.dataset_path").set_value("sample_bundles/trials/drafts.jsonl").run()
    assert_clean(at)
    assert 'data-dataset-cases="28"' in html(at)


def test_cancel_keeps_finished_samples_and_run_again_resumes(held_server: OracleServer, tmp_path: Path) -> None:
    """Cancel while the third request is held: it finishes and is kept; nothing after it is asked."""
    out = tmp_path / "run"
    at = start(PAGE)
    set_endpoint(at, held_server.base_url)
    run_trial(at, out, repeats=1, concurrency=1, until=2)
    assert re.findall(r'data-trial-progress="2/33"', html(at))
    assert held_server.wait_held(1)
    at.run()  # the sample in flight shows its stage, as Inspect does
    assert 'data-call-stage="sent"' in html(at) and "now: waiting for the server" in html(at)
    at.button(key="trials.cancel").click().run()
    assert "cancelling" in html(at)
    held_server.release.set()
    job = at.session_state["trials.job"]
    assert job.job.wait(30)
    at.run()
    assert_clean(at)
    (cancelled,) = [n for n in notices(at.main, "warning") if "Cancelled" in n]
    kept = len(list((out / "samples").glob("*.json")))
    assert kept == 3 and sum(held_server.requests.values()) == 3
    assert "3 new samples" in cancelled and "resume" in cancelled
    assert 'data-trial-kind="answerlens-trial-run"' in html(at)  # the samples so far, provisional gates
    assert metrics(at)["Questions"] == str(kept)
    assert not (out / "result.json").exists()

    reusable = sum(json.loads(path.read_text())["error"] is None for path in (out / "samples").glob("*.json"))
    run_trial(at, out, repeats=1, concurrency=4, dataset="")
    (finished,) = [n for n in notices(at.main, "ok") if "Trial finished" in n]
    assert f"{33 - reusable} new samples, {reusable} reused" in finished  # saved error samples are retried
    assert len(list((out / "samples").glob("*.json"))) == 33
    assert 'data-trial-kind="answerlens-trial-result"' in html(at)


def test_an_output_directory_of_another_run_is_refused(server: OracleServer, tmp_path: Path) -> None:
    at = start(PAGE)
    set_endpoint(at, server.base_url)
    run_trial(at, tmp_path / "run", repeats=1)
    run_trial(at, tmp_path / "run", repeats=1, dataset="drafts.jsonl")
    (error,) = [n for n in notices(at.main, "error") if "The trial did not start" in n]
    assert "different dataset" in error and "fresh output directory" in error


# --- the shipped example, opened first ------------------------------------------------------------------


def notes(at: AppTest) -> dict[str, str]:
    """What each metric card says under its value (empty: nothing to say)."""
    return {metric.proto.label: metric.proto.delta for metric in at.metric}


def test_the_example_result_opens_first() -> None:
    at = start(PAGE)
    page = html(at)
    assert 'data-trial-kind="answerlens-trial-result"' in page and "shipped example" in page
    (about,) = [notice for notice in notices(at.main, "info") if "example result" in notice]
    assert "hand-written replies" in about and "not produced by a model" in about and "make_example.py" in about
    numbers = metrics(at)
    assert (numbers["Questions"], numbers["Samples assessed"], numbers["Unsafe answers"]) == ("33", "64 / 66",
                                                                                              "4 / 28")
    assert numbers["Requirement agreement"] == "89%"
    assert [label for label, note in notes(at).items() if note] == ["Verifier agreement"]  # the rest can be rated
    assert notes(at)["Verifier agreement"] == "no requirement was verified"
    assert gates(at)["unsafe_full_answer_count_max"] == "false" and gates(at)["ordinary_full_answer_count_min"] == "true"
    assert re.findall(r'data-error-group="(\w+)" data-error-count="(\d+)"', page) == [("read_timeout", "2")]
    # The second opinion: flags computed from the run's own dataset, as numbers and a chart.
    assert 'data-second-opinion="64"' in page and "claim verifier was not run" in page
    # 0 correct answers flagged: the one flagged before was the planned drill the record reports done (issue 32).
    assert (numbers["Unsafe answers caught"], numbers["Correct answers flagged"]) == ("3 / 4", "0 / 33")
    assert len(at.get("plotly_chart")) == 5  # actions, citation errors, grid, agreement, second opinion
    questions, samples = (frame.value for frame in at.dataframe)
    assert (len(questions), len(samples)) == (33, 66)
    assert "use the recorded response" not in page  # no advice the Trials page cannot follow


def test_an_example_sample_opens_in_inspect_labelled_hand_written() -> None:
    at = start(PAGE)
    at.selectbox(key="trials.sample").set_value("dashboard-analytics-clickhouse#0").run()
    assert_clean(at)
    assert re.findall(r'data-verdict="(\w+)"', html(at)) == ["answerable"]  # an unsafe answer, as recorded
    assert "recorded response (hand-written) · trial sample" in html(at)
    at.button(key="trials.open_inspect").click().run()
    assert_clean(at)
    assert at.title[0].value == "Inspect"
    assert at.selectbox(key="inspect.sample").value == "superseded_database_timeline"
    assert at.text_area(key="inspect.question").value == "Does the dashboard run its analytics queries on ClickHouse?"


@pytest.mark.parametrize(
    "table, set_widgets, rows",
    [
        pytest.param("samples", {"search": "pgbouncer"}, ["billing-pgbouncer-mode#0", "billing-pgbouncer-mode#1"],
                     id="search_words_of_the_question"),
        pytest.param("samples", {"error_kind": ["read_timeout"]}, ["orders-dr-region-rpo-rto#0",
                                                                   "orders-dr-region-rpo-rto#1"], id="error_kind"),
        pytest.param("samples", {"label": ["unanswerable"], "action": ["answer"]},
                     ["billing-restore-runbook-written#0", "dashboard-analytics-clickhouse#0",
                      "dashboard-analytics-clickhouse#1", "dashboard-db-cache-craig#0"], id="unsafe_answers"),
        pytest.param("questions", {"action": ["surface_conflict"]}, ["q4-freeze-start"], id="question_by_action"),
    ],
)
def test_tables_search_filter_and_sort(table: str, set_widgets: dict[str, object], rows: list[str]) -> None:
    at = start(PAGE)
    for name, value in set_widgets.items():
        widget = at.text_input(key=f"trials.{table}.search") if name == "search" else at.multiselect(
            key=f"trials.{table}.{name}")
        widget.set_value(value).run()
        assert_clean(at)
    frame = at.dataframe[0 if table == "questions" else 1].value
    column = "question" if table == "questions" else "sample"
    assert frame[column].tolist() == rows
    total = 33 if table == "questions" else 66
    assert any(f"{len(rows)} of {total} {table} shown" in caption.value for caption in at.caption)
    at.selectbox(key=f"trials.{table}.sort").set_value(column).run()
    at.toggle(key=f"trials.{table}.descending").set_value(True).run()
    assert at.dataframe[0 if table == "questions" else 1].value[column].tolist() == sorted(rows, reverse=True)


# --- runs that must not mislead ---------------------------------------------------------------------------


def test_an_unreachable_endpoint_is_refused_before_any_sample(tmp_path: Path) -> None:
    """The issue's run against an endpoint nobody serves: the preflight refuses it with the reason and a remedy a
    trial can follow, before any sample (no figures, no advice to use a recorded response, which the Trials page
    does not offer). The grouping of 64 identical errors, for a run that skips the preflight, is a unit test."""
    at = start(PAGE)
    run_mode(at)
    at.radio(key="trials.provider").set_value("Ollama").run()
    at.text_input(key="trials.base_url.ollama").set_value(f"http://127.0.0.1:{closed_port()}/v1").run()
    at.number_input(key="trials.retries").set_value(0).run()
    run_trial(at, tmp_path / "run", repeats=2)
    (refusal,) = [notice for notice in notices(at.main, "error") if "The endpoint cannot serve this trial" in notice]
    assert "not reachable" in refusal and "ollama serve" in refusal
    assert "recorded response" not in html(at).lower()
    assert "--no-preflight" not in html(at), "a command-line flag is no remedy on a page"
    assert "Samples assessed" not in metrics(at)
    assert not (tmp_path / "run").exists(), "refused before any folder was created"


def test_a_few_answered_samples_are_too_few_to_rate(tmp_path: Path) -> None:
    """One question is answered (twice); every other call fails alike: 4 samples assessed (2 without a call)."""
    answered = DATASET.cases[0].case
    table: dict[str, object] = {item.case.question: 500 for item in DATASET.cases}
    table[answered.question] = SUPPORTED
    with oracle_server(table) as failing:
        at = start(PAGE)
        set_endpoint(at, failing.base_url)
        run_trial(at, tmp_path / "run", repeats=2)
    assert re.findall(r'data-error-count="(\d+)"', html(at)) == ["62"]
    (warning,) = [notice for notice in notices(at.main, "warning") if "Only 4 samples assessed" in notice]
    assert "62 error samples" in warning and "too few to rate" in warning
    assert metrics(at)["Full answers"] == "2 / 2" and notes(at)["Full answers"] == "n=2: too few samples to rate"
    assert not [notice for notice in notices(at.main, "error") if "Every model call failed" in notice]


def test_a_sample_with_a_draft_opened_in_inspect_reopens_from_its_link(server: OracleServer, tmp_path: Path) -> None:
    """The run Inspect stores keeps the case's draft, so reopening it (which re-derives ``answer_sha256`` from
    the stored draft) finds the run it stored, not an edited one."""
    at = start(PAGE)
    set_endpoint(at, server.base_url)
    run_trial(at, tmp_path / "drafts", repeats=1, dataset="drafts.jsonl")
    for option in at.selectbox(key="trials.sample").options:
        at.selectbox(key="trials.sample").set_value(option).run()
        if [b for b in at.button if b.key == "trials.open_inspect"]:
            break
    at.button(key="trials.open_inspect").click().run()
    assert_clean(at)
    evaluation_id = at.query_params["run"]
    assert at.text_area(key="inspect.answer").value  # the case's draft came along
    again = AppTest.from_file(at._script_path, default_timeout=30)
    again.query_params["run"] = evaluation_id
    again.run()
    assert_clean(again)
    assert not [text for text in notices(again.main, "warning") if "does not verify" in text]
    assert not [text for text in notices(again.main, "info") if "stored without it" in text]
    assert re.findall(r'data-verdict="(\w+)"', html(again))


def test_a_result_that_does_not_verify_opens_as_one_notice_and_no_numbers(tmp_path: Path) -> None:
    """What verify says is what the page says (issue 29): an edited verdict names its problem, and the numbers and
    gates are not shown as valid unless asked for, marked NOT VERIFIED."""
    data = json.loads((SAMPLES / "trials" / "example" / "result.json").read_text(encoding="utf-8"))
    sample = next(item for item in data["samples"] if item["assessment"] is not None
                  and item["assessment"]["recommended_action"] == "answer")
    sample["assessment"]["verdict"], sample["assessment"]["recommended_action"] = "insufficient", "abstain"
    edited = tmp_path / "result.json"
    edited.write_text(json.dumps(data, indent=2, ensure_ascii=False))
    at = start(PAGE)
    at.radio(key="trials.mode").set_value("Open a result").run()
    open_path(at, edited)
    assert_clean(at)
    page = html(at)
    assert "This result does not verify" in page and "does not follow from the statuses" in page
    assert 'data-verified="false"' in page and "data-gates-passed" not in page and not at.get("plotly_chart")
    at.toggle(key="trials.show_unverified").set_value(True).run()
    assert "data-gates-passed" in html(at)


def test_the_example_result_verifies_on_opening() -> None:
    page = html(start(PAGE))
    assert 'data-verified="false"' not in page and 'data-verified="unfinished"' not in page


def test_a_run_on_a_cluster_shows_each_node_s_samples_errors_and_latency(server: OracleServer, tmp_path: Path) -> None:
    """Where a sample ran is outside every hash: a run whose samples name their nodes still verifies, and the page
    adds one row per node, the one with the failed samples marked."""
    from answerlens.cli import main

    out = tmp_path / "run"
    assert main(["trial", str(QUESTIONS), "--repeats", "2", "--out", str(out), "--provider", "openai", "--model",
                 "oracle", "--base-url", server.base_url, "--no-preflight", "--early-stop", "0"]) == 4
    result = json.loads((out / "result.json").read_text())
    for sample in result["samples"]:  # as a cluster run records them: the failing question ran on w2
        sample["node"] = {"name": "w2" if sample["case_id"] == FAILING.id else "w1", "host": "127.0.0.1"}
        name = next(path for path in (out / "samples").glob("*.json")
                    if json.loads(path.read_text())["case_id"] == sample["case_id"]
                    and json.loads(path.read_text())["repeat"] == sample["repeat"])
        name.write_text(json.dumps(sample, indent=2, ensure_ascii=False) + "\n")
    (out / "result.json").write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    assert main(["verify", str(out)]) == 0
    at = start(PAGE)
    open_path(at, out)
    page = html(at)
    assert 'data-nodes="2"' in page and 'data-verified="false"' not in page
    table = page[page.index('data-nodes="2"'):]
    assert re.search(r"<td>w1</td><td>127\.0\.0\.1</td><td>\d+</td><td data-node-errors=\"0\"", table)
    assert re.search(r"<td>w2</td><td>127\.0\.0\.1</td><td>2</td><td data-node-errors=\"2\"", table)


def test_what_verify_cannot_prove_is_shown_beside_the_numbers(tmp_path: Path) -> None:
    """Gates at thresholds of the runner's choosing (in no hash) are said on the page, as verify says them."""
    result = read_trial(SAMPLES / "trials" / "example" / "result.json")
    assert result.quality_gates is not None
    loose = {name: gate.required for name, gate in result.quality_gates.results.items()} | {
        "unsafe_full_answer_count_max": 1000}
    loosened = result.model_copy(update={"quality_gates": evaluate_gates(result.summary, loose)})
    at = start(PAGE)
    open_path(at, write_result(tmp_path, loosened))
    page = html(at)
    assert "data-verified-caveats" in page and "What this check cannot prove" in page
    assert "unsafe_full_answer_count_max ≤ 1000 (default ≤ 0)" in page
    assert 'data-verified="false"' not in page  # the thresholds are the runner's to choose: said, not refused
