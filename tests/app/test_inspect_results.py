"""The Inspect page's results as users meet them (AppTest): never a verdict for other inputs, stale marks, runs
that survive a new session and open from a link, the second opinion, and uploads that say what they are."""

from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from answerlens.samples import load_sample
from tests.app.conftest import APP, assert_clean, assess, choose_sample, html, notices, start, use_recorded, verdicts
from tests.paths import SAMPLES


def recorded_run(stem: str = "speech_act_eslint") -> AppTest:
    at = start()
    choose_sample(at, stem)
    use_recorded(at)
    assess(at)
    assert verdicts(at)
    return at


def stale(at: AppTest) -> list[str]:
    return re.findall(r'data-stale="(\w+)"', html(at))


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda at: at.text_area(key="inspect.question").set_value("Something else?"), id="question"),
        pytest.param(lambda at: at.text_area(key="inspect.answer").set_value("A new draft."), id="draft"),
        pytest.param(lambda at: at.toggle(key="inspect.strict").set_value(True), id="endpoint_policy"),
        pytest.param(lambda at: at.radio(key="inspect.provider").set_value("Ollama"), id="endpoint"),
    ],
)
def test_a_result_is_marked_stale_as_soon_as_an_input_changes(change) -> None:  # type: ignore[no-untyped-def]
    at = recorded_run()
    assert stale(at) == ["false"] and "data-stale-banner" not in html(at)
    change(at).run()
    assert_clean(at)
    assert stale(at) == ["true"]
    assert "Inputs changed since this result — run again." in html(at)


def test_another_bundle_makes_the_result_stale_and_assessing_again_clears_it() -> None:
    at = recorded_run()
    choose_sample(at, "conflicting_deploy_freeze")
    assert stale(at) == ["true"] and "Changed: question, bundle" in html(at)
    assess(at)
    assert stale(at) == ["false"] and verdicts(at) == ["conflicting"]


def test_a_replay_for_another_question_is_refused_with_no_verdict_then_restored() -> None:
    sample = load_sample(SAMPLES / "speech_act_eslint.json")
    at = start()
    choose_sample(at, "speech_act_eslint")
    use_recorded(at)
    at.text_area(key="inspect.question").set_value("Which formatter did I adopt?").run()
    assess(at)
    assert verdicts(at) == [] and "data-verdict" not in html(at)
    (message,) = notices(at.main, "error")
    assert "answers another question" in message and "Nothing was called" in message
    at.button(key="inspect.restore").click().run()
    assert at.text_area(key="inspect.question").value == sample.question.strip()
    assess(at)
    assert verdicts(at) == [sample.expected.verdict] and stale(at) == ["false"]


def test_a_forced_replay_is_marked_on_the_verdict() -> None:
    at = start()
    choose_sample(at, "speech_act_eslint")
    use_recorded(at)
    at.text_area(key="inspect.question").set_value("Which formatter did I adopt?").run()
    assess(at)
    at.button(key="inspect.force").click().run()
    assert_clean(at)
    assert verdicts(at) == ["insufficient"]
    assert "FORCED replay: recorded for another question" in html(at)
    assert re.search(r"data-mark[^>]*>⚠</span>FORCED replay", html(at))


def test_an_unbound_reply_is_marked_and_a_failed_one_never_says_model_call() -> None:
    at = start()
    at.radio(key="inspect.source_kind").set_value("Upload a file").run()
    bundle = {"records": [{"text": "The cache is Redis.", "speaker": "Craig"}]}
    at.file_uploader(key="inspect.upload").set_value(("mine.json", json.dumps(bundle).encode(), "application/json"))
    at.run()
    at.text_area(key="inspect.question").set_value("Which cache?").run()
    use_recorded(at)
    at.file_uploader(key="inspect.reply_upload").set_value(("bad.json", b'{"requirements": []}', "application/json"))
    at.run()
    assess(at)
    (message,) = notices(at.main, "error")
    assert "model call failed" not in message and "The recorded reply does not fit" in message
    reply = {"requirements": [{"requirement": "cache", "status": "supported", "evidence_refs": ["m1"],
                               "explanation": "m1"}], "reasoning": "r"}
    at.file_uploader(key="inspect.reply_upload").set_value(("reply.json", json.dumps(reply).encode(),
                                                            "application/json")).run()
    assess(at)
    assert verdicts(at) == ["answerable"] and "unbound recording" in html(at)


def test_the_reply_uploader_refuses_a_bundle_and_the_bundle_uploader_a_reply() -> None:
    at = start()
    use_recorded(at)
    at.radio(key="inspect.source_kind").set_value("Upload a file").run()
    reply = (SAMPLES.parent / "docs" / "examples" / "reply.json").read_bytes()
    at.file_uploader(key="inspect.upload").set_value(("reply.json", reply, "application/json")).run()
    (message,) = notices(at.main, "error")
    assert "this is a model reply" in message and "Recorded response" in message
    mine = json.dumps({"records": [{"text": "The cache is Redis."}]}).encode()
    at.file_uploader(key="inspect.upload").set_value(("mine.json", mine, "application/json")).run()
    bundle = (SAMPLES / "speech_act_eslint.json").read_bytes()
    at.file_uploader(key="inspect.reply_upload").set_value(("s.json", bundle, "application/json")).run()
    (refused,) = notices(at.sidebar, "error")
    assert "not a recorded reply" in refused and "s.json" in refused
    assert "Reply file format" in [e.label for e in at.sidebar.expander]
    assert "50 MB" in at.file_uploader(key="inspect.reply_upload").label


def test_runs_survive_a_new_session_and_a_link_opens_one() -> None:
    at = recorded_run("conflicting_deploy_freeze")
    evaluation_id = re.search(r'data-hash="evaluation_id">([0-9a-f]{64})<', html(at)).group(1)  # type: ignore[union-attr]
    assert at.query_params["run"] == evaluation_id
    fresh = AppTest.from_file(APP, default_timeout=30)
    fresh.run()
    assert verdicts(fresh) == []  # a new session shows nothing until a run is picked …
    (title,) = fresh.selectbox(key="inspect.history").options  # … but lists the stored run, by its question
    assert load_sample(SAMPLES / "conflicting_deploy_freeze.json").question[:40] in title
    linked = AppTest.from_file(APP, default_timeout=30)
    linked.query_params["run"] = evaluation_id
    linked.run()
    assert_clean(linked)
    assert verdicts(linked) == ["conflicting"] and stale(linked) == ["false"]
    sample = load_sample(SAMPLES / "conflicting_deploy_freeze.json")
    assert linked.text_area(key="inspect.question").value == sample.question
    assert linked.selectbox(key="inspect.sample").value == "conflicting_deploy_freeze"


def test_a_link_to_an_unknown_run_says_so() -> None:
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["run"] = "0" * 64
    at.run()
    assert_clean(at)
    (warning,) = notices(at.main, "warning")
    assert "No stored run has this link" in warning and "0" * 64 in warning
    assert verdicts(at) == []


def test_clear_history_drops_every_run() -> None:
    at = recorded_run()
    at.button(key="inspect.clear_history").click().run()
    assert_clean(at)
    assert verdicts(at) == [] and "inspect.history" not in [box.key for box in at.selectbox]
    assert "run" not in at.query_params


def test_second_opinion_badges_inline_flags_and_legend() -> None:
    at = recorded_run("second_opinion_plan_as_fact")
    page = html(at)
    badges = re.findall(r'data-badge="(\w+)"', page)
    assert "flags" in badges and len(badges) >= 1
    assert re.search(r'<mark class="al-cite al-flagged" data-citation="accepted"[^>]*data-flagged="true"', page)
    assert "data-legend" in page and "flagged by the second opinion" in page
    assert 'data-verifier="unavailable"' in page and "NLI model not installed" in page
    at.radio(key="inspect.focus").set_value(0).run()
    assert 'data-opinion-requirement="0"' in html(at) and 'data-flag="' in html(at)


def test_second_opinion_can_be_switched_off() -> None:
    at = recorded_run("second_opinion_plan_as_fact")
    at.toggle(key="inspect.second_opinion").set_value(False).run()
    page = html(at)
    assert "data-badge" not in page and 'class="al-cite al-flagged"' not in page


def test_the_strict_policy_says_it_changed_the_verdict() -> None:
    sample = load_sample(SAMPLES / "second_opinion_plan_as_fact.json")
    at = start()
    choose_sample(at, "second_opinion_plan_as_fact")
    use_recorded(at)
    at.toggle(key="inspect.strict").set_value(True).run()
    assess(at)
    assert sample.expected.second_opinion is not None
    assert verdicts(at) == [sample.expected.second_opinion.strict_verdict]
    assert 'data-strict="changed"' in html(at) and f'data-audited-verdict="{sample.expected.verdict}"' in html(at)


def test_selecting_a_requirement_without_accepted_citations_says_why() -> None:
    at = recorded_run("prme_reader_citations")
    at.radio(key="inspect.focus").set_value(3).run()
    (note,) = [n for n in notices(at.main, "info") if "no accepted citation" in n]
    assert "Requirement 4 has no accepted citation — status downgraded to unsupported" in note
    assert "m99 (not a citable reference in this context)" in note


def test_requirements_are_numbered_from_one_for_people() -> None:
    at = recorded_run("prme_reader_citations")
    assert at.radio(key="inspect.focus").options == ["all", "1", "2", "3", "4"]
    assert re.findall(r'data-requirement-row="0" id="al-req-0"><td><span class="al-dot"[^>]*>(\d+)<', html(at)) == ["1"]


def test_a_new_upload_replaces_the_old_bundle_and_frees_it() -> None:
    import gc
    import weakref

    at = start()
    at.radio(key="inspect.source_kind").set_value("Upload a file").run()
    for name in ("one.json", "two.json"):
        data = json.dumps({"records": [{"text": f"{name} says the cache is Redis."}]}).encode()
        at.file_uploader(key="inspect.upload").set_value((name, data, "application/json")).run()
        if name == "one.json":
            first = weakref.ref(at.session_state["inspect.bundle_slot"][1])
    gc.collect()
    assert first() is None  # nothing else (no process-wide cache) holds the replaced bundle
    assert at.session_state["inspect.bundle_slot"][1].name == "two.json"


def test_the_ollama_remedy_shows_its_command_as_code_not_backticks() -> None:
    from tests.scripted_server import closed_port

    at = start()
    at.text_input(key="inspect.base_url.ollama").set_value(f"http://127.0.0.1:{closed_port()}/v1").run()
    sidebar = html(at.sidebar)
    assert "<code>ollama serve</code>" in sidebar and "`ollama" not in sidebar


def test_reopening_a_run_restores_its_sample_or_says_its_bundle_is_not_on_the_page() -> None:
    at = start()
    use_recorded(at)
    at.radio(key="inspect.source_kind").set_value("Upload a file").run()
    at.file_uploader(key="inspect.upload").set_value(("mine.json", (SAMPLES / "speech_act_eslint.json").read_bytes(),
                                                      "application/json")).run()
    assess(at)
    uploaded = at.selectbox(key="inspect.history").value
    at.radio(key="inspect.source_kind").set_value("Sample").run()
    choose_sample(at, "conflicting_deploy_freeze")
    assess(at)
    sampled = at.selectbox(key="inspect.history").value
    at.selectbox(key="inspect.history").set_value(uploaded).run()  # its file is not on the page any more
    assert stale(at) == ["true"] and "Changed: bundle" in html(at)
    at.selectbox(key="inspect.history").set_value(sampled).run()  # a sample is selected again, with its question
    assert stale(at) == ["false"] and verdicts(at) == ["conflicting"]
    assert at.selectbox(key="inspect.sample").value == "conflicting_deploy_freeze"


@pytest.mark.parametrize("stem", [pytest.param("compact_citation_errors", id="discarded"),
                                  pytest.param("second_opinion_plan_as_fact", id="flagged")])
def test_why_is_the_same_text_as_the_report_and_the_command_line(stem: str) -> None:
    """The app shows explanation.why with the page's second opinion: the report and the CLI print the same."""
    import asyncio
    import html as html_lib

    from answerlens.explanation import why
    from answerlens.second_opinion.opinion import second_opinion_for
    from tests.second_opinion.builders import replayed

    at = recorded_run(stem)
    shown = re.findall(r"<p class=\"al-why\">(.*?)</p>", html(at), flags=re.S)[0]  # the reasoning follows
    item, bundle, assessment = replayed(stem)
    opinion = asyncio.run(second_opinion_for(assessment, bundle, item.question))
    assert html_lib.unescape(shown) == why(assessment, opinion)
    assert "requirement 0" not in html_lib.unescape(shown)


def test_the_same_inputs_keep_their_run_number_and_the_count_matches() -> None:
    """Assessing A, B, then A again: A is still run #1, and the history counts 2 runs (never "#3" beside 2)."""
    at = recorded_run("speech_act_eslint")
    assert "Run #1 ·" in html(at)
    choose_sample(at, "conflicting_deploy_freeze")
    assess(at)
    assert "Run #2 ·" in html(at)
    choose_sample(at, "speech_act_eslint")
    assess(at)
    assert "Run #1 ·" in html(at) and "Run #3" not in html(at)
    assert at.selectbox(key="inspect.history").label == "History (2 runs)"


def test_the_history_has_a_table_view_from_the_first_run() -> None:
    at = recorded_run("speech_act_eslint")
    (table,) = [frame for frame in at.dataframe if "evaluation_id" in frame.value.columns]
    assert table.value["run"].tolist() == [1] and table.value["verdict"].tolist() == ["insufficient"]
    assert any(expander.label == "History as a table (1 run)" for expander in at.expander)


def test_a_hand_written_reply_is_not_a_model_call() -> None:
    """A recorded reply someone wrote is replayed, not a model's: the audit says model_called False, and the
    reply is still there to download and verify."""
    at = recorded_run("speech_act_eslint")
    assert re.search(r'data-fact="model_called">False<', html(at))
    assert 'data-source="recorded"' in html(at)
