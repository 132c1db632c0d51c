"""Rates carry their counts and say "too few samples" below the stated minimum, never a bare percentage."""

from __future__ import annotations

from answerlens.trials.rates import MIN_SAMPLES, Rate, summary_rates
from answerlens.trials.result import TrialResult
from tests.ui.trials.conftest import golden, with_errors  # noqa: F401, F811 - fixtures


def test_a_rate_below_the_minimum_says_so() -> None:
    assert Rate(name="x", label="x", count=1, total=2, min_samples=20).text == "too few samples (1/2; fewer than 20)"
    assert Rate(name="x", label="x", count=5, total=20, min_samples=20).text == "25.0% (5/20)"
    empty = Rate(name="x", label="x", count=0, total=0, min_samples=20)
    assert empty.value is None and empty.text == "no samples (0/0)" and not empty.enough


def test_the_summary_rates_name_their_denominators(golden: TrialResult, with_errors: TrialResult) -> None:  # noqa: F811
    rates = {rate.name: rate for rate in summary_rates(golden.summary)}
    assert (rates["unsafe_answer_rate"].count, rates["unsafe_answer_rate"].total) == (8, 24)
    assert rates["error_rate"].total == 66 and rates["unsafe_answer_rate"].enough
    assert MIN_SAMPLES == 10
    few = {rate.name: rate for rate in summary_rates(with_errors.summary)}
    assert not few["full_answer_rate"].enough and "too few samples" in few["full_answer_rate"].text
    assert "verifier_agreement_rate" not in few  # only runs with a second opinion have it


def test_the_cli_s_help_names_the_one_minimum() -> None:
    from answerlens.cli.trial import MIN_SAMPLES_DEFAULT
    from answerlens.html.trial_rows import MIN_SAMPLES_FOR_RATE

    assert MIN_SAMPLES_DEFAULT == MIN_SAMPLES == MIN_SAMPLES_FOR_RATE
