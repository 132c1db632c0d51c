"""Generate the ClaimVerifier differential golden file from upstream PRME 0.15.0.

Run with the interpreter that has ``prme==0.15.0`` installed (never answerlens' own):

    benchmarks/.venv-prme/bin/python benchmarks/claims_golden.py      # or /work/prme-venv/bin/python

It builds several hundred deterministic cases, runs upstream's ``ClaimVerifier`` on each with a deterministic
injected model (hash-derived probabilities plus keyword rules, see ``scorer_rows``), and writes inputs, the
pairs the model was asked, and the outputs (the full result dump, or the error type and exact message) to
``tests/fixtures/prme/claims/differential_cases.json``. ``tests/claims/test_differential.py`` replays every
case through answerlens with the same scorer and asserts identical output.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import hashlib
import itertools
import json
import math
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "prme"
OUT = FIXTURES / "claims" / "differential_cases.json"
LABELS = {"entailment": 0, "contradiction": 1, "neutral": 2}

ENTAIL = [0.95, 0.03, 0.02]
CONTRA = [0.03, 0.95, 0.02]
NEUTRAL = [0.1, 0.1, 0.8]
AT_THRESHOLD = [0.8, 0.15, 0.05]
BELOW = [0.79999, 0.1, 0.10001]


sys.path.insert(0, str(REPO))  # the scorer lives with the test that replays it
from tests.claims.golden_scorer import pair_digest, scorer_rows  # noqa: E402

# --- case building -------------------------------------------------------------------------------------------


def memory_id(seed: str) -> str:
    return str(uuid.UUID(bytes=hashlib.sha256(seed.encode()).digest()[:16], version=4))


def passage(ref: str, text: str, seed: str = "", **typed: Any) -> dict[str, Any]:
    return {"reference": ref, "memory_id": memory_id(f"{seed}/{ref}/{text}"), "text": text, **typed}


def case(cid: str, claim: str, evidence: list[dict[str, Any]], scorer: dict[str, Any] | None = None,
         **extra: Any) -> dict[str, Any]:
    return {"id": cid, "kind": "verify", "claim": claim, "evidence": evidence,
            "scorer": scorer or {"salt": cid}, **extra}


def rules(*items: tuple[list[str], list[float]] | tuple[list[str], list[float], list[str]],
          salt: str = "", peak: int = 3) -> dict[str, Any]:
    built = []
    for item in items:
        rule: dict[str, Any] = {"all": item[0], "row": item[1]}
        if len(item) == 3:
            rule["none"] = item[2]
        built.append(rule)
    return {"salt": salt, "peak": peak, "rules": built}


MODE_SENTENCES = {
    "actual": ("We use Redis for the dashboard cache.", "We use Redis for the dashboard cache."),
    "desire": ("I want to use Redis for the dashboard cache.", "I want to use Redis for the dashboard cache."),
    "desire_d_like": ("I’d like Redis for the dashboard cache.", "I'd like Redis for the dashboard cache."),
    "attempt": ("I'm trying to use Redis for the dashboard cache.", "I tried to use Redis for the dashboard cache."),
    "attempt_work_on": ("We are working on Redis for the dashboard cache.", "We work on the Redis dashboard cache."),
    "plan": ("We plan to use Redis for the dashboard cache.", "We are considering Redis for the dashboard cache."),
    "advice": ("You should use Redis for the dashboard cache.", "Redis is recommended for the dashboard cache."),
    "uncertainty": ("We might use Redis for the dashboard cache.", "Maybe we use Redis for the dashboard cache."),
    "conditional": ("If traffic grows we use Redis for the dashboard cache.",
                    "We use Redis for the dashboard cache unless it fails."),
    "unverified": ("We reportedly use Redis for the dashboard cache.",
                   "Allegedly we use Redis for the dashboard cache."),
    "question": ("Do we use Redis for the dashboard cache?", "She asked whether we use Redis for the dashboard cache."),
}


def speech_act_cases() -> Iterator[dict[str, Any]]:
    claim_modes = [(mode, sentences) for mode, sentences in MODE_SENTENCES.items() if "_" not in mode]
    for (claim_mode, (claim, _)), (evidence_mode, (_, text)) in itertools.product(claim_modes,
                                                                                  MODE_SENTENCES.items()):
        for label, row in (("entail", ENTAIL), ("contra", CONTRA)):
            cid = f"speech_act/{claim_mode}-claim/{evidence_mode}-evidence/{label}"
            yield case(cid, claim, [passage("m1", text, cid)], rules(([], row)))


LIFECYCLES = [None, "tentative", "stable", "contested", "superseded", "deprecated", "archived"]
EPISTEMICS = [None, "asserted", "hypothetical", "conditional", "deprecated", "unverified"]
"""observed and inferred behave as asserted; hashed_cases and the packed bundles still carry them."""
CLAIM_MODES = {
    "plain": "The team uses PostgreSQL for billing.",
    "uncertain": "The team might use PostgreSQL for billing.",
    "conditional": "If needed, the team uses PostgreSQL for billing.",
    "unverified": "The team reportedly uses PostgreSQL for billing.",
}


def typed_field_cases() -> Iterator[dict[str, Any]]:
    text = "The team uses PostgreSQL for billing."
    for lifecycle, epistemic, (mode, claim) in itertools.product(LIFECYCLES, EPISTEMICS, CLAIM_MODES.items()):
        cid = f"typed/{lifecycle}/{epistemic}/{mode}"
        typed = {"lifecycle_state": lifecycle, "epistemic_type": epistemic, "source_type": "user_stated"}
        yield case(cid + "/entail", claim, [passage("m1", text, cid, **typed)], rules(([], ENTAIL)))
    for lifecycle, epistemic in itertools.product(LIFECYCLES, EPISTEMICS):
        cid = f"typed/{lifecycle}/{epistemic}/refute-with-cue"
        typed = {"lifecycle_state": lifecycle, "epistemic_type": epistemic}
        yield case(cid, "The team does not use PostgreSQL for billing.", [passage("m1", text, cid, **typed)],
                   rules(([], CONTRA)))
        cid = f"typed/{lifecycle}/{epistemic}/negation-overlap"
        yield case(cid, "The team uses PostgreSQL for billing.",
                   [passage("m1", "The team does not use PostgreSQL for billing.", cid, **typed)],
                   rules(([], NEUTRAL)))


NEGATION = [
    # (claim, passage, model row): explicit-negation overlap, cues, values
    ("two-token-equal", "Redis caches.", "Redis does not cache anything.", NEUTRAL),
    ("two-token-exact", "Redis caches.", "We do not use Redis caches.", NEUTRAL),
    ("two-token-subset-not-enough", "Redis caches.", "It is not Redis caches but Memcached cache layers.", NEUTRAL),
    ("three-token-subset", "The dashboard uses Redis.", "The dashboard no longer uses Redis for anything.", NEUTRAL),
    ("three-token-missing", "The dashboard uses Redis.", "The dashboard does not use Memcached.", NEUTRAL),
    ("plural-ies", "The libraries support Python.", "The library does not support Python.", NEUTRAL),
    ("plural-ss", "The class passes tests.", "The class never passes test.", NEUTRAL),
    ("one-token", "Redis.", "We do not use Redis.", NEUTRAL),
    ("stopwords-only", "It is the one.", "It is not the one.", NEUTRAL),
    ("negated-claim", "We never use Redis for the cache.", "We use Redis for the cache.", CONTRA),
    ("negated-claim-entail", "We don't use Memcached.", "We don't use Memcached anymore.", ENTAIL),
    ("negated-evidence-entail", "We use Redis for the cache.", "We do not use Redis for the cache.", ENTAIL),
    ("negated-clause-other-sentence", "We use Redis for the cache.",
     "We use Redis for the cache. We don't use Memcached.", ENTAIL),
    ("cue-instead", "We use Memcached instead of Redis.", "We use Redis for the cache.", CONTRA),
    ("cue-switched-from", "We switched from MySQL to PostgreSQL.", "We use MySQL.", CONTRA),
    ("cue-replaced", "Redis replaced Memcached.", "We use Memcached.", CONTRA),
    ("cue-false", "The statement about MySQL is false.", "We use MySQL.", CONTRA),
    ("no-cue-contra", "We use Redis for the cache.", "We use Memcached for the cache.", CONTRA),
    ("numbers-differ", "Response time dropped to 250 ms.", "Response time dropped to 300 ms.", CONTRA),
    ("numbers-same", "Response time dropped to 250 ms.", "Response time dropped to 250 ms today.", CONTRA),
    ("numbers-decimal", "Version 2.5 shipped.", "Version 2.50 shipped.", CONTRA),
    ("numbers-negative", "The balance is -5 dollars.", "The balance is 5 dollars.", CONTRA),
    ("numbers-only-claim", "Version 3 shipped.", "A version shipped.", CONTRA),
    ("weekday-differ", "The deploy is on Monday.", "The deploy is on Friday.", CONTRA),
    ("weekday-case", "The deploy is on MONDAY.", "The deploy is on monday.", CONTRA),
    ("month-differ", "The launch was in March.", "The launch was in May.", CONTRA),
    ("month-subset", "The launch was in March.", "The launch was in March or April.", CONTRA),
    ("curly-apostrophe", "We use Redis caches.", "We don’t use Redis caches.", NEUTRAL),
    ("curly-apostrophe-contra", "We use Redis caches.", "We don’t use Redis caches.", CONTRA),
    ("german-no-english-cue", "Wir nutzen Redis.", "Wir nutzen Redis nicht.", CONTRA),
    ("german-mixed-not", "Das Team nutzt Redis caches.", "Das Team does not nutzt Redis caches.", NEUTRAL),
    ("french-accents", "L'équipe utilise Redis.", "L'équipe n'utilise pas Redis, not at all.", NEUTRAL),
    ("cafe-unicode-word", "The café serves coffee daily.", "The café does not serve coffee daily.", NEUTRAL),
    ("cjk", "我们使用 Redis cache layers.", "我们 do not use Redis cache layers.", NEUTRAL),
    ("semicolon-clause", "We use Redis caches.", "We use Redis; caches are not used.", NEUTRAL),
    ("can't", "We can deploy Redis caches.", "We can't deploy Redis caches.", NEUTRAL),
    ("cannot", "Users export reports.", "Users cannot export reports.", NEUTRAL),
    ("modal-claim-negated-evidence", "We might use Redis caches.", "We might not use Redis caches.", NEUTRAL),
]


def negation_cases() -> Iterator[dict[str, Any]]:
    for name, claim, text, row in NEGATION:
        for policy in ("explicit_corroboration", "model_only"):
            cid = f"negation/{name}/{policy}"
            yield case(cid, claim, [passage("m1", text, cid)], rules(([], row)),
                       config={"refutation_policy": policy})
        cid = f"negation/{name}/entailment-model-only"
        yield case(cid, claim, [passage("m1", text, cid)], rules(([], row)),
                   config={"entailment_policy": "model_only"})


LOCALIZED = [
    # (name, claim, passage text(s), rules): the whole passage entails but is guard-blocked
    ("plan-sentence-dropped", "We use Redis for the cache.",
     ["We use Redis for the cache. We plan to add Memcached later."],
     [(["plan"], ENTAIL), ([], ENTAIL)]),
    ("plan-sentence-dropped-neutral-recheck", "We use Redis for the cache.",
     ["We use Redis for the cache. We plan to add Memcached later."],
     [(["plan"], ENTAIL), ([], NEUTRAL)]),
    ("newline-segments", "Redis is the cache.", ["Redis is the cache\nmaybe Memcached later\nstill Redis today"],
     [(["maybe"], ENTAIL), ([], ENTAIL)]),
    ("crlf-segments", "Redis is the cache.", ["Redis is the cache\r\n\r\nWe might drop it."],
     [(["might"], ENTAIL), ([], [0.85, 0.05, 0.1])]),
    ("negated-sentence-dropped", "We use Redis for the cache.",
     ["We use Redis for the cache. We do not use Memcached."], [(["not"], ENTAIL), ([], ENTAIL)]),
    ("all-segments-dropped", "We use Redis for the cache.", ["We might use Redis. We plan to use it."],
     [([], ENTAIL)]),
    ("single-sentence-blocked", "We use Redis for the cache.", ["We want Redis for the cache."], [([], ENTAIL)]),
    ("no-boundary-lowercase", "We use Redis.", ["We use Redis. maybe later Memcached."], [([], ENTAIL)]),
    ("boundary-quote", "We use Redis.", ["We might switch. \"We use Redis.\" (Really.)"],
     [(["might"], ENTAIL), ([], ENTAIL)]),
    ("boundary-digit", "We use Redis.", ["Maybe not! 2 servers run Redis. We use Redis."],
     [(["Maybe"], ENTAIL), ([], ENTAIL)]),
    ("question-segment", "We use Redis.", ["We use Redis. Should we keep it?"], [(["?"], ENTAIL), ([], ENTAIL)]),
    ("threshold-exact-recheck", "We use Redis.", ["We use Redis. We hope to keep it."],
     [(["hope"], ENTAIL), ([], AT_THRESHOLD)]),
    ("threshold-below-recheck", "We use Redis.", ["We use Redis. We hope to keep it."],
     [(["hope"], ENTAIL), ([], BELOW)]),
    ("hypothetical-typed", "We use Redis.", ["We use Redis. It works."], [([], ENTAIL)]),
]


def localized_cases() -> Iterator[dict[str, Any]]:
    for name, claim, texts, items in LOCALIZED:
        cid = f"localized/{name}"
        typed = {"epistemic_type": "hypothetical"} if name == "hypothetical-typed" else {}
        evidence = [passage(f"m{index}", text, cid, **typed) for index, text in enumerate(texts, start=1)]
        spec = rules(*[(list(parts), row) for parts, row in items])
        yield case(cid, claim, evidence, spec)
        yield case(cid + "/model-only", claim, evidence, spec, config={"entailment_policy": "model_only"})
    # Two passages needed together, one of them partly blocked: the localized premise keeps [E<n>] labels.
    claim = "Alice moved to Boston in 2021 and works at Acme."
    pair_texts = [("Alice moved to Boston in 2021. She might move again.", "Alice works at Acme."),
                  ("Alice wants to move. Alice moved to Boston in 2021.", "I hope Alice works at Acme."),
                  ("We might relocate. Perhaps not.", "Alice works at Acme.")]
    for index, (first, second) in enumerate(pair_texts):
        cid = f"localized/group-of-two/{index}"
        evidence = [passage("m1", first, cid), passage("m2", second, cid), passage("m3", "Unrelated note.", cid)]
        spec = rules((["[E1]", "[E2]", "Acme", "Boston"], ENTAIL), (["Acme", "Boston"], ENTAIL),
                     ([], [0.4, 0.2, 0.4]))
        yield case(cid, claim, evidence, spec)


def group_cases() -> Iterator[dict[str, Any]]:
    claim = "Craig leads the Go payments team in Berlin."
    texts = ["Craig leads the payments team.", "The payments team writes Go.", "The payments team sits in Berlin.",
             "Craig likes coffee.", "Berlin has many teams.", "Go is a language."]
    weak = [0.3, 0.3, 0.4]
    for size_limit, candidates, count in itertools.product((1, 2, 3), (2, 3, 8), (2, 3, 4, 6)):
        cid = f"groups/max{size_limit}/cand{candidates}/n{count}"
        evidence = [passage(f"m{index}", text, cid) for index, text in enumerate(texts[:count], start=1)]
        spec = rules((["Craig leads", "Go.", "Berlin."], ENTAIL), (["Craig leads", "Go."], [0.7, 0.1, 0.2]),
                     (["[E1]"], [0.2, 0.2, 0.6]), ([], weak))
        yield case(cid, claim, evidence, spec,
                   config={"max_group_size": size_limit, "group_candidate_limit": candidates})
    # Pairs that decide, with ties between equal groups resolved by memory id, and contested pairs.
    for variant, pair_rows in {
        "pair-supports": [(["Redis", "dashboard"], ENTAIL)],
        "pair-refutes-with-cue": [(["Redis", "dashboard"], CONTRA)],
        "two-pairs-tie": [(["[E2]"], ENTAIL)],
        "pair-support-and-refute": [(["alpha", "beta"], ENTAIL), (["gamma"], CONTRA, ["alpha"])],
        "pair-blocked-then-localized": [(["plan", "Redis"], ENTAIL), (["Redis", "dashboard"], ENTAIL)],
        "pair-below-threshold": [(["Redis", "dashboard"], BELOW)],
    }.items():
        cid = f"groups/{variant}"
        claim2 = ("The dashboard does not cache with Redis." if "refute" in variant
                  else "The dashboard caches with Redis.")
        ev_texts = ["alpha: the dashboard exists.", "beta: Redis is a cache.", "gamma: caching is fast.",
                    "We plan to adopt Redis."]
        evidence = [passage(f"m{index}", text, cid) for index, text in enumerate(ev_texts, start=1)]
        spec = rules(*pair_rows, ([], [0.5, 0.25, 0.25]))
        for size in (2, 3):
            yield case(f"{cid}/max{size}", claim2, evidence, spec, config={"max_group_size": size})
    # Ties among singles: identical rows everywhere, so candidates and best groups fall back to memory ids.
    for count, row in itertools.product((2, 3, 5), (ENTAIL, CONTRA, NEUTRAL, [0.6, 0.2, 0.2])):
        cid = f"ties/n{count}/{row[0]}"
        evidence = [passage(f"r{index}", f"Fact number {index} about the cache.", cid) for index in range(count)]
        yield case(cid, "The cache holds sessions.", evidence, rules(([], row)),
                   config={"group_candidate_limit": 2, "max_group_size": 3})


def contested_cases() -> Iterator[dict[str, Any]]:
    """Support and refutation in the same round; the best group on each side is reported."""
    claim = "Response time dropped to 250 ms on Monday."
    texts = {
        "same": ("Response time dropped to 250 ms on Monday.", ENTAIL),
        "same-strong": ("On Monday response time dropped to 250 ms.", [0.99, 0.005, 0.005]),
        "other-number": ("Response time dropped to 300 ms on Monday.", CONTRA),
        "other-day": ("Response time dropped to 250 ms on Friday.", [0.01, 0.97, 0.02]),
        "negated": ("Response time did not drop to 250 ms on Monday.", NEUTRAL),
        "no-cue": ("Latency rose sharply.", CONTRA),
    }
    combos = [("same", "other-number"), ("same", "other-day"), ("same", "negated"), ("same", "no-cue"),
              ("same", "same-strong", "other-number", "other-day"), ("same-strong", "negated", "other-day"),
              ("other-number", "other-day", "negated"), ("same", "same-strong")]
    for combo in combos:
        for policy in ({}, {"refutation_policy": "model_only"}, {"entailment_policy": "model_only"}):
            cid = f"contested/{'+'.join(combo)}/{'-'.join(f'{k}={v}' for k, v in policy.items()) or 'default'}"
            evidence = [passage(f"m{index}", texts[name][0], cid) for index, name in enumerate(combo, start=1)]
            spec = rules(*[([texts[name][0]], texts[name][1]) for name in combo], ([], NEUTRAL))
            yield case(cid, claim, evidence, spec, config=policy)


MODE_WORDS = [
    "want", "wants", "wanted", "wanting", "would like", "wish", "wishes", "wished", "hope", "hopes", "hoped",
    "hopeful", "need", "needs", "needed", "needle", "aim", "aiming", "seek", "seeks", "I'd like", "we’d like",
    "try", "tries", "tried", "trying", "tryst", "attempt", "attempted", "work on", "worked to", "working on",
    "works with", "plan", "plans", "planned", "planning", "planet", "intend", "intends", "schedule", "scheduled",
    "consider", "considering", "explore", "explored", "evaluate", "evaluating", "should", "shoulder", "ought",
    "recommend", "recommended", "suggest", "suggests", "advise", "advisable", "might", "maybe", "perhaps",
    "possible", "possibly", "potentially", "uncertain", "whether", "if", "ifs", "unless", "provided that",
    "in case", "unverified", "unconfirmed", "reportedly", "allegedly", "?", "ask", "asks", "asked", "asking",
    "question", "questioned", "wonder", "wondering", "wonderful",
]
NEGATION_WORDS = ["not", "never", "no longer", "no", "cannot", "can't", "isn't", "aren't", "wasn't", "weren't",
                  "didn't", "doesn't", "don't", "won't", "nothing", "knot", "none"]
CUE_WORDS = ["no", "not", "never", "neither", "nor", "without", "cannot", "can't", "isn't", "aren't", "wasn't",
             "weren't", "didn't", "doesn't", "don't", "won't", "instead", "rather than", "switched from",
             "replaced", "incorrect", "false", "rather", "switched", "replace", "falsely"]
STOPWORDS = ("a an and app application are at be by currently did do does for from in i is it longer no not of on "
             "pipeline project service system that team the this to user was were we will with you").split()
TOKEN_WORDS = ["bus", "glass", "policies", "flies", "dies", "ties", "caches", "class", "is", "gas", "api", "apis", "v2",
               "x-ray", "co_op", "2fa", "über", "naïve"]
VALUES = [("250 ms", "250ms"), ("3", "3.0"), ("-2", "2"), ("1.5", "1.50"), ("v2", "v3"), ("10", "10x"),
          ("Tuesday", "Wednesday"), ("tuesday", "TUESDAY"), ("June", "July"), ("may", "June")]


def vocabulary_cases() -> Iterator[dict[str, Any]]:
    """Every trigger word of the guard tables (and near misses), so no word can drift unnoticed."""
    for word in MODE_WORDS:
        cid = f"words/mode/{word}"
        text = f"We {word} Redis caches." if word != "?" else "We use Redis caches?"
        yield case(cid, "We use Redis caches.", [passage("m1", text, cid)], rules(([], ENTAIL)))
    for word in NEGATION_WORDS:
        cid = f"words/negation/{word}"
        yield case(cid, "We use Redis caches.", [passage("m1", f"We {word} use Redis caches.", cid)],
                   rules(([], ENTAIL)))
        yield case(cid + "/overlap", "We use Redis caches.", [passage("m1", f"We {word} use Redis caches.", cid)],
                   rules(([], NEUTRAL)))
    for word in CUE_WORDS:
        cid = f"words/cue/{word}"
        yield case(cid, f"We {word} use Redis caches.", [passage("m1", "We use Redis caches.", cid)],
                   rules(([], CONTRA)))
    for word in STOPWORDS + ["teams", "users", "projects", "widget"]:
        cid = f"words/stopword/{word}"
        yield case(cid, f"Redis {word} caches.", [passage("m1", "Redis does not cache.", cid)], rules(([], NEUTRAL)))
    for word in TOKEN_WORDS:
        cid = f"words/token/{word}"
        yield case(cid, f"The {word} broke Redis.", [passage("m1", f"The {word} never broke Redis.", cid)],
                   rules(([], NEUTRAL)))
        folded = word[:-3] + "y" if word.endswith("ies") else word[:-1] if word.endswith("s") else word + "s"
        yield case(cid + "/folded", f"The {word} broke Redis.",
                   [passage("m1", f"The {folded} never broke Redis.", cid)], rules(([], NEUTRAL)))
    for claim_value, evidence_value in VALUES:
        cid = f"words/values/{claim_value}-vs-{evidence_value}"
        yield case(cid, f"The release is {claim_value}.", [passage("m1", f"The release is {evidence_value}.", cid)],
                   rules(([], CONTRA)))


def hashed_cases() -> Iterator[dict[str, Any]]:
    """Free-running hash scorer over mixed passages: whatever the probabilities, the pipeline must agree."""
    pool = [
        ("We use Redis for the dashboard cache.", {}),
        ("I'm trying to set up ESLint with the airbnb rules.", {"epistemic_type": "asserted"}),
        ("The team no longer uses MySQL.", {"lifecycle_state": "stable"}),
        ("Maybe the API moved to Go in 2023.", {"epistemic_type": "hypothetical"}),
        ("Der Cache läuft über Redis — schnell.", {"source_type": "external_document"}),
        ("Deploys happen on Friday if QA signs off.", {"epistemic_type": "conditional"}),
        ("The old cache was Memcached.", {"lifecycle_state": "superseded"}),
        ("Bob reportedly left. He was not happy.", {"epistemic_type": "unverified"}),
        ("Response time dropped to 250 ms.\nIt was 900 ms in March.", {"event_time": "2024-03-02T14:30:00Z"}),
        ("缓存使用 Redis。", {"valid_from": "2023-01-01T00:00:00+02:00", "valid_to": "2024-01-01T00:00:00.123456Z"}),
    ]
    claims = ["The dashboard cache is Redis.", "The team uses MySQL.", "Deploys happen on Monday.",
              "The API might be written in Go.", "Response time is 250 ms.", "Bob did not leave."]
    for index in range(60):
        cid = f"hashed/{index:03d}"
        count = 1 + index % 5
        start = (index * 7) % len(pool)
        chosen = [pool[(start + offset) % len(pool)] for offset in range(count)]
        evidence = [passage(f"m{offset + 1}", text, cid, **typed) for offset, (text, typed) in enumerate(chosen)]
        config = {"max_group_size": 1 + index % 3, "group_candidate_limit": 2 + index % 4,
                  "entailment_threshold": [0.8, 0.6, 0.5, 0.9][index % 4],
                  "contradiction_threshold": [0.8, 0.7, 0.95][index % 3]}
        yield case(cid, claims[index % len(claims)], evidence, {"salt": cid, "peak": 2 + index % 4,
                                                                "resolved_revision": "deadbeef" * 5},
                   config=config)


def input_cases() -> Iterator[dict[str, Any]]:
    one = [passage("m1", "We use Redis.", "inputs")]
    two = one + [passage("m2", "We use Go.", "inputs")]
    yield case("inputs/blank-claim", "   ", one)
    yield case("inputs/empty-claim", "", [])
    yield case("inputs/claim-stripped", "  We use Redis.\n", one, rules(([], ENTAIL)))
    yield case("inputs/no-evidence", "Anything.", [])
    yield case("inputs/no-evidence-complete-set", "Anything.", [], requires_complete_set=True)
    yield case("inputs/complete-set", "There are exactly two caches.", two, requires_complete_set=True)
    yield case("inputs/complete-set-unicode", "Es gibt genau zwei Caches — „Redis“.", two, requires_complete_set=True)
    yield case("inputs/over-limit", "We use Redis.", two + [passage("m3", "x", "inputs")], config={"max_evidence": 2})
    yield case("inputs/over-limit-before-duplicates", "We use Redis.", one + one, config={"max_evidence": 1})
    yield case("inputs/at-limit", "We use Redis.", two, rules(([], ENTAIL)), config={"max_evidence": 2})
    yield case("inputs/duplicate-reference", "We use Redis.", [one[0], {**two[1], "reference": "m1"}])
    yield case("inputs/duplicate-memory", "We use Redis.", [one[0], {**two[1], "memory_id": one[0]["memory_id"]}])
    yield case("inputs/duplicate-both", "We use Redis.", one + one)
    yield case("inputs/duplicate-complete-set", "We use Redis.", one + one, requires_complete_set=True)
    yield case("inputs/stripped-reference-text", "We use Redis.",
               [{**one[0], "reference": "  m1 ", "text": "\n We use Redis. \t"}], rules(([], ENTAIL)))
    yield case("inputs/naive-datetimes", "We use Redis.",
               [{**one[0], "event_time": "2024-01-01T10:00:00", "valid_from": "2024-01-01"}], rules(([], ENTAIL)))
    for name, patch in {"blank-text": {"text": "  "}, "empty-reference": {"reference": ""},
                        "bad-uuid": {"memory_id": "not-a-uuid"}, "extra-field": {"speaker": "Ann"},
                        "bad-epistemic": {"epistemic_type": "rumour"}}.items():
        yield case(f"inputs/invalid-evidence/{name}", "We use Redis.", [{**one[0], **patch}])
    for name, config in {"threshold-low": {"entailment_threshold": 0.4},
                         "threshold-high": {"entailment_threshold": 1.5},
                         "group-size": {"max_group_size": 4}, "candidates": {"group_candidate_limit": 1},
                         "policy": {"entailment_policy": "lenient"}, "extra": {"seed": 1},
                         "blank-model": {"model": "  "}, "nan": {"contradiction_threshold": math.nan},
                         "stripped-model": {"model": "  my/nli  ", "revision": " main "}}.items():
        yield case(f"inputs/config/{name}", "We use Redis.", one, rules(([], ENTAIL)), config=config)
    for threshold in (0.5, 0.8, 1.0):
        for row in (ENTAIL, AT_THRESHOLD, BELOW, [1.0, 0.0, 0.0], [0.5, 0.5, 0.0]):
            cid = f"inputs/threshold-{threshold}/{row[0]}-{row[1]}"
            yield case(cid, "We use Redis.", one, rules(([], row)),
                       config={"entailment_threshold": threshold, "contradiction_threshold": threshold})
            yield case(cid + "/not", "We do not use Redis.", one, rules(([], row[1::-1] + row[2:])),
                       config={"entailment_threshold": threshold, "contradiction_threshold": threshold})
    for revision in ("0123456789abcdef0123456789abcdef01234567", None):
        yield case(f"inputs/resolved-revision/{revision}", "We use Redis.", one,
                   {**rules(([], ENTAIL)), "resolved_revision": revision})


FAULTS = ["raise", "none", "nan", "inf", "negative", "above_one", "bad_sum", "low_sum", "gap_sum", "tiny_sum_ok",
          "ints", "bools", "strings", "ragged", "short_rows", "long_rows", "missing_row", "extra_row",
          "range_then_nan"]


def fault_cases() -> Iterator[dict[str, Any]]:
    evidence = [passage(f"m{index}", text, "faults") for index, text in
                enumerate(["We use Redis.", "The cache is fast.", "We plan to add Go."], start=1)]
    for mode in FAULTS:
        # call 1: the singles; call 2: the pairs (nothing decides alone); call 2 also as a localized recheck
        yield case(f"faults/{mode}/singles", "We use Redis caches.", evidence,
                   {**rules(([], [0.3, 0.3, 0.4])), "fault": {"mode": mode, "call": 1}})
        yield case(f"faults/{mode}/pairs", "We use Redis caches.", evidence,
                   {**rules(([], [0.3, 0.3, 0.4])), "fault": {"mode": mode, "call": 2}})
        blocked = [passage("m1", "We use Redis caches. We plan to add Go.", "faults")]
        yield case(f"faults/{mode}/localized", "We use Redis caches.", blocked,
                   {**rules(([], ENTAIL)), "fault": {"mode": mode, "call": 2}})


SHARED_BUNDLES = ["bundles/bundle_reader_citations.json", "bundles/bundle_reader_plain.json",
                  "bundles/bundle_auditable.json", "bundles/bundle_compact.json",
                  "packing/packed_reader_citations.json", "packing/packed_auditable.json"]


def synthetic_bundles() -> dict[str, dict[str, Any]]:
    """Edge-case bundles derived from the shared ones."""
    reader = json.loads((FIXTURES / "bundles" / "bundle_reader_citations.json").read_text())
    auditable = json.loads((FIXTURES / "bundles" / "bundle_auditable.json").read_text())
    built: dict[str, dict[str, Any]] = {}
    empty = copy.deepcopy(reader)
    empty.update(sections={}, context_references={}, rendered_context="", included_count=0)
    built["empty_reader"] = empty
    partial = copy.deepcopy(reader)  # m3 listed in references but missing from the exact context
    partial["rendered_context"] = "\n".join(line for line in partial["rendered_context"].splitlines()
                                            if "[m3]" not in line)
    section = partial["sections"]["stable_facts"]
    section[0]["rendered_text"] = None  # an unrendered candidate is skipped
    partial["sections"]["again"] = [copy.deepcopy(section[1])]  # the same memory in a second section
    built["reader_partial"] = partial
    no_refs = copy.deepcopy(auditable)  # auditable with references: the ref, not the UUID, is the reference
    no_refs["context_references"] = {"m9": auditable["sections"]["stable_facts"][2]["node"]["id"]}
    no_refs["rendered_context"] += '\n"m9"'
    built["auditable_with_ref"] = no_refs
    cut = copy.deepcopy(auditable)  # one UUID missing from the auditable context
    first_id = cut["sections"]["stable_facts"][0]["node"]["id"]
    cut["rendered_context"] = cut["rendered_context"].replace(f'"id":"{first_id}"', '"id":"elsewhere"')
    built["auditable_cut"] = cut
    typed = copy.deepcopy(reader)  # typed fields that gate support
    facts = typed["sections"]["stable_facts"]
    facts[0]["node"]["lifecycle_state"] = "superseded"
    facts[1]["node"]["epistemic_type"] = "hypothetical"
    facts[2]["node"]["epistemic_type"] = "unverified"
    built["reader_typed"] = typed
    blank = copy.deepcopy(reader)
    blank["sections"]["stable_facts"][0]["rendered_text"] = "   "
    built["reader_blank_passage"] = blank
    return built


def bundle_cases(bundles: dict[str, Any]) -> Iterator[dict[str, Any]]:
    claims = {
        "database": ("The dashboard project used MySQL as its primary database.", [(["MySQL"], ENTAIL)]),
        "cache": ("The dashboard API cache is not Redis.", [(["Redis"], CONTRA)]),
        "craig": ("Craig works mostly with Python and Go.", [(["Craig"], ENTAIL)]),
        "eslint": ("I set up ESLint with the airbnb rules.", [(["ESLint"], ENTAIL)]),
        "acme": ("Alice works at Acme.", [(["Acme"], ENTAIL)]),
        "boston": ("Alice lives in Boston.", [(["Boston"], ENTAIL)]),
        "mysql-team": ("The team uses MySQL.", [(["MySQL"], ENTAIL), (["PostgreSQL"], CONTRA)]),
        "deploy": ("If QA signs off we deploy on Fridays.", [(["Deploy"], ENTAIL)]),
        "joint": ("Craig switched the dashboard cache to Redis.", [(["[E1]", "Craig", "Redis"], ENTAIL)]),
    }
    names = SHARED_BUNDLES + sorted(bundles)
    failing = {"bundles/bundle_reader_plain.json", "reader_blank_passage"}
    for name, (claim_name, (claim, items)) in itertools.product(names, claims.items()):
        if name in failing and claim_name not in ("database", "acme"):
            continue
        packed = name.startswith("packing/")
        if claim_name in ("acme", "boston", "mysql-team", "deploy") and not packed \
                or claim_name in ("database", "cache", "craig", "eslint") and packed:
            continue
        spec = rules(*[(parts, row) for parts, row in items], ([], [0.34, 0.33, 0.33]))
        base = {"kind": "verify_bundle", "bundle": name, "claim": claim, "scorer": spec}
        cid = f"bundle/{name}/{claim_name}"
        yield {**base, "id": cid, "evidence_refs": None}
        if claim_name in ("database", "joint", "acme") and name not in failing:
            yield {**base, "id": cid + "/complete-set", "evidence_refs": None, "requires_complete_set": True}
            yield {**base, "id": cid + "/refs", "evidence_refs": ["m4", "m1"]}
            yield {**base, "id": cid + "/unknown-ref", "evidence_refs": ["m1", "m99"]}
            yield {**base, "id": cid + "/no-refs", "evidence_refs": []}
            yield {**base, "id": cid + "/repeated-ref", "evidence_refs": ["m1", "m1"]}
            yield {**base, "id": cid + "/blank-claim", "claim": " ", "evidence_refs": ["m99"]}
    for name in names:
        yield {"id": f"bundle_evidence/{name}", "kind": "bundle_evidence", "bundle": name}


# --- running upstream -------------------------------------------------------------------------------------


class FakeModel:
    """Stands in for sentence-transformers' CrossEncoder inside upstream's own verifier."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.calls: list[list[str]] = []

    def predict(self, pairs: list[tuple[str, str]], **_: Any) -> Any:
        self.calls.append([pair_digest(premise, hypothesis) for premise, hypothesis in pairs])
        return scorer_rows(self.spec, [tuple(pair) for pair in pairs], len(self.calls))


def load_bundle(name: str, bundles: dict[str, Any]) -> Any:
    from prme.retrieval.models import MemoryBundle

    data = bundles[name] if name in bundles else json.loads((FIXTURES / name).read_text())
    return MemoryBundle.model_validate(data)


def run_case(item: dict[str, Any], bundles: dict[str, Any]) -> dict[str, Any]:
    from prme import ClaimEvidence, ClaimVerificationConfig, ClaimVerifier

    model = FakeModel(item.get("scorer") or {})
    try:
        if item["kind"] == "bundle_evidence":
            evidence = ClaimVerifier.bundle_evidence(load_bundle(item["bundle"], bundles))
            return {"evidence": [entry.model_dump(mode="json") for entry in evidence]}
        verifier = ClaimVerifier(ClaimVerificationConfig(**item.get("config", {})))
        verifier._model = model
        verifier._label_indexes = dict(LABELS)
        verifier._resolved_revision = (item.get("scorer") or {}).get("resolved_revision")
        if item["kind"] == "verify_bundle":
            result = asyncio.run(verifier.verify_bundle(
                item["claim"], load_bundle(item["bundle"], bundles), evidence_refs=item.get("evidence_refs"),
                requires_complete_set=item.get("requires_complete_set", False)))
        else:
            evidence = [ClaimEvidence(**entry) for entry in item["evidence"]]
            result = asyncio.run(verifier.verify(item["claim"], evidence,
                                                 requires_complete_set=item.get("requires_complete_set", False)))
        return {"result": result.model_dump(mode="json"), "calls": model.calls}
    except Exception as exc:  # every upstream error is recorded as data: its type and exact message
        return {"error": {"type": type(exc).__name__, "message": str(exc)}, "calls": model.calls}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    import prme

    bundles = synthetic_bundles()
    families = [speech_act_cases(), typed_field_cases(), negation_cases(), localized_cases(), group_cases(),
                contested_cases(), vocabulary_cases(), hashed_cases(), input_cases(), fault_cases(),
                bundle_cases(bundles)]
    cases = []
    for item in itertools.chain(*families):
        cases.append({**item, "expected": run_case(item, bundles)})
    ids = [item["id"] for item in cases]
    duplicates = sorted({cid for cid in ids if ids.count(cid) > 1})
    if duplicates:
        sys.exit(f"duplicate case ids: {duplicates}")
    document = {
        "generator": "benchmarks/claims_golden.py",
        "upstream": f"prme {prme.__version__}",
        "labels": LABELS,
        "synthetic_bundles": bundles,
        "cases": cases,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(document, ensure_ascii=False, separators=(",", ":"), allow_nan=True) + "\n",
                        encoding="utf-8")
    outcomes: dict[str, int] = {}
    for item in cases:
        expected = item["expected"]
        key = expected["result"]["status"] if "result" in expected else (
            "evidence" if "evidence" in expected else expected["error"]["type"])
        outcomes[key] = outcomes.get(key, 0) + 1
    print(f"{len(cases)} cases -> {args.out} ({args.out.stat().st_size / 1e6:.2f} MB): {outcomes}")


if __name__ == "__main__":
    main()
