"""Generate ``large_platform_history.json``: a ~200-record sample for scale demos.

Deterministic (a fixed seed and no clock), so running it again rewrites the same bytes; the tests check that
the committed file equals what ``build()`` returns. Run from the repository root::

    .venv/bin/python sample_bundles/make_large.py

Simple-format records get ids in document order, so the label of the record at list position ``i`` is
``m{i + 1}``; records are listed section by section, so labels also read in order in the rendered context.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

OUTPUT = Path(__file__).with_name("large_platform_history.json")
SEED = 20240601
NOISE_PER_SECTION = {
    "stable_facts": 43,
    "recent_decisions": 34,
    "incidents": 30,
    "on_call": 28,
    "conversation": 36,
    "active_tasks": 24,
}

PEOPLE = ["Priya", "Marcus", "Dana", "Leo", "Sofia", "Craig", "Amara", "Jonas"]
ROLES = {
    "Priya": "tech lead of the platform team",
    "Marcus": "SRE on the core infrastructure rotation",
    "Dana": "engineering manager for payments and checkout",
    "Leo": "backend engineer who owns billing-api migrations",
    "Sofia": "frontend engineer on the dashboard",
    "Craig": "backend engineer on the dashboard API",
    "Amara": "data engineer for the analytics pipeline",
    "Jonas": "security engineer",
}
SERVICES = [
    "billing-api", "checkout", "search-indexer", "dashboard-api", "session-store", "notifications",
    "orders-api", "inventory-sync", "auth-gateway", "analytics-etl",
]
ESLINT_RULES = ["no-console", "eqeqeq", "no-unused-vars", "prefer-const", "import/order", "react-hooks/rules-of-hooks"]
STORES = ["Loki", "OpenSearch", "S3 via Firehose", "CloudWatch Logs"]

QUESTION = (
    "Which region hosts the disaster-recovery replica of the orders database, what is its recovery point "
    "objective, and when was DR failover last tested?"
)


def _time(rng: random.Random) -> str:
    month = rng.randint(1, 9)
    day = rng.randint(1, 28)
    hour, minute = rng.choice([(0, 0), (rng.randint(7, 19), rng.choice([0, 5, 15, 20, 30, 45, 50]))])
    return f"2024-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:00Z"


def _record(text: str, section: str, **fields: Any) -> dict[str, Any]:
    return {"text": text, **fields, "section": section}


def _noise(section: str, rng: random.Random) -> dict[str, Any]:
    person = rng.choice(PEOPLE)
    service = rng.choice(SERVICES)
    when = _time(rng)
    if section == "stable_facts":
        kind = rng.randrange(3)
        if kind == 0:
            return _record(
                f"{service} runs {rng.randint(2, 12)} replicas in production behind the internal ALB.",
                section, type="fact", lifecycle="stable", event_time=when,
            )
        if kind == 1:
            rule = rng.choice(ESLINT_RULES)
            return _record(
                f"The frontend monorepo's ESLint config sets {rule} to \"error\".",
                section, type="fact", lifecycle=rng.choice(["stable", "tentative"]), event_time=when,
            )
        return _record(
            f"{service} logs are shipped to {rng.choice(STORES)} with {rng.choice([7, 14, 30, 90])}-day retention.",
            section, type="fact", lifecycle=rng.choice(["stable", "superseded"]), event_time=when,
        )
    if section == "recent_decisions":
        kind = rng.randrange(3)
        if kind == 0:
            return _record(
                f"Decision: {service} moves to Node {rng.choice([18, 20, 22])} before the end of the quarter.",
                section, type="decision", speaker=person, event_time=when,
                lifecycle=rng.choice(["tentative", "stable", "contested"]),
            )
        if kind == 1:
            return _record(
                f"We agreed to require two approvals on {service} pull requests that touch migrations.",
                section, type="decision", speaker=person, event_time=when, lifecycle="stable",
            )
        return _record(
            f"Canary deploys for {service} go to {rng.choice([5, 10, 25])}% of traffic for "
            f"{rng.choice([15, 30, 60])} minutes before promotion.",
            section, type="decision", event_time=when, lifecycle=rng.choice(["stable", "deprecated"]),
        )
    if section == "incidents":
        kind = rng.randrange(3)
        if kind == 0:
            return _record(
                f"{service} p95 latency spiked to {rng.randint(600, 2400)} ms for {rng.randint(3, 40)} minutes; "
                "the autoscaler caught up without paging.",
                section, type="event", epistemic="observed", event_time=when,
            )
        if kind == 1:
            alert = rng.choice(["disk 90% full", "TLS handshake errors", "OOM kills", "5xx above 2%"])
            return _record(
                f"Paged for {service}: {alert}. Mitigated, postmortem to follow.",
                section, type="event", speaker=person, event_time=when,
            )
        return _record(
            f"Possible cause of the {service} error burst: a noisy neighbour on the shared node pool.",
            section, type="note", speaker=person, event_time=when,
            epistemic=rng.choice(["inferred", "hypothetical", "unverified"]),
        )
    if section == "on_call":
        if rng.random() < 0.5:
            return _record(
                f"On-call handover: {person} takes primary for {service} this week; "
                f"{rng.choice([name for name in PEOPLE if name != person])} is secondary.",
                section, type="event", event_time=when, lifecycle="stable",
            )
        return _record(
            f"Swapped my {rng.choice(['Monday', 'Tuesday', 'Thursday', 'Saturday'])} {service} shift with "
            f"{rng.choice([name for name in PEOPLE if name != person])}.",
            section, type="event", speaker=person, event_time=when,
        )
    if section == "conversation":
        if rng.random() < 0.5:
            return _record(
                f"How do I {rng.choice(['roll back', 'scale down', 'drain', 'restart'])} {service} safely?",
                section, type="event", speaker="User", event_time=when,
            )
        return _record(
            f"You could {rng.choice(['pin the image tag', 'lower the HPA minimum', 'add a readiness probe'])} "
            f"for {service} and watch the error rate for 15 minutes.",
            section, type="note", speaker="Assistant", event_time=when, epistemic="hypothetical",
        )
    due = f"2024-{int(when[5:7]) + rng.randint(1, 3):02d}-{rng.randint(1, 28):02d}"
    return _record(
        f"{rng.choice(['Upgrade', 'Document', 'Load-test', 'Add dashboards for'])} {service} "
        f"({rng.choice(PEOPLE)}, due {due}).",
        section, type="task", event_time=when,
    )


# The records that matter for the question, with where they go (section, position in that section).
NEEDLES: list[tuple[str, int, dict[str, Any]]] = [
    ("stable_facts", 17, _record(
        "The orders database's disaster-recovery replica runs in eu-central-1 (Frankfurt); promotion is "
        "manual, following the DR runbook.",
        "stable_facts", type="fact", lifecycle="stable", event_time="2024-02-20T00:00:00Z", speaker="Marcus",
    )),
    ("stable_facts", 31, _record(
        "The orders database's DR replica ran in us-east-2.",
        "stable_facts", type="fact", lifecycle="superseded",
        valid_from="2022-03-01T00:00:00Z", valid_to="2024-02-20T00:00:00Z",
    )),
    ("recent_decisions", 9, _record(
        "DR targets for the orders database, agreed with finance: RPO 5 minutes, RTO 1 hour.",
        "recent_decisions", type="decision", lifecycle="stable", event_time="2024-03-11T15:00:00Z",
        speaker="Dana",
    )),
    ("recent_decisions", 22, _record(
        "We could move the orders DR replica to eu-north-1 to save on cross-region transfer.",
        "recent_decisions", type="note", epistemic="hypothetical", event_time="2024-07-02T00:00:00Z",
        speaker="Priya",
    )),
    ("active_tasks", 6, _record(
        "Schedule the orders database DR failover test for Q3 and book a maintenance window.",
        "active_tasks", type="task", event_time="2024-06-18T00:00:00Z", speaker="Dana",
    )),
]


def _roles() -> list[dict[str, Any]]:
    return [
        _record(f"{person} is the {role}.", "stable_facts", type="fact", lifecycle="stable")
        for person, role in ROLES.items()
    ]


def build_records(noise: dict[str, int] | None = None) -> list[dict[str, Any]]:
    """The records; ``noise`` (records per section, default ``NOISE_PER_SECTION``) makes larger histories."""
    rng = random.Random(SEED)
    records: list[dict[str, Any]] = []
    seen = {record["text"] for _, _, record in NEEDLES}
    for section, count in (noise or NOISE_PER_SECTION).items():
        group = _roles() if section == "stable_facts" else []
        while len(group) < count:
            record = _noise(section, rng)
            if record["text"] not in seen:  # no two records say the same thing
                seen.add(record["text"])
                group.append(record)
        for needle_section, position, record in NEEDLES:
            if needle_section == section:
                group.insert(position, record)
        records.extend(group)
    return records


def label_of(records: list[dict[str, Any]], text_start: str) -> str:
    """The mN label of the one record whose text starts with ``text_start`` (document order)."""
    matches = [index for index, record in enumerate(records) if record["text"].startswith(text_start)]
    if len(matches) != 1:
        raise ValueError(f"expected one record starting with {text_start!r}, found {len(matches)}")
    return f"m{matches[0] + 1}"


def build(noise: dict[str, int] | None = None) -> dict[str, Any]:
    """The sample; ``noise`` as for ``build_records`` (the committed file uses the default)."""
    records = build_records(noise)
    region = label_of(records, "The orders database's disaster-recovery replica")
    old_region = label_of(records, "The orders database's DR replica ran in")
    targets = label_of(records, "DR targets for the orders database")
    idea = label_of(records, "We could move the orders DR replica")
    test_task = label_of(records, "Schedule the orders database DR failover test")
    reply = {
        "requirements": [
            {
                "requirement": "Region hosting the orders database's disaster-recovery replica",
                "status": "supported",
                "evidence_refs": [region],
                "explanation": f"{region} places the DR replica in eu-central-1; {old_region} is the superseded "
                f"us-east-2 location and {idea} is only an idea.",
            },
            {
                "requirement": "Recovery point objective of the orders database",
                "status": "supported",
                "evidence_refs": [targets],
                "explanation": f"{targets} states the agreed RPO of 5 minutes.",
            },
            {
                "requirement": "When DR failover of the orders database was last tested",
                "status": "unsupported",
                "evidence_refs": [],
                "explanation": f"{test_task} only plans a failover test for Q3; no record reports a test "
                "being run.",
            },
        ],
        "reasoning": f"Among {len(records)} records, two state the region and the RPO; the failover test is "
        "only planned.",
    }
    return {
        "title": f"Scale: {len(records)} records, three requirements",
        "description": (
            f"A generated bundle of {len(records)} engineering-team memories in six sections (deploys, on-call, "
            "incidents, lint config, roles, conversations), made by make_large.py. Two records answer the "
            "region and the RPO; a superseded region and a hypothetical move sit among them; the last "
            "failover test is only planned, so the verdict is partial."
        ),
        "question": QUESTION,
        "bundle": {"records": records, "packing": {"context_format": "reader", "context_citations": True}},
        "recorded_reply": reply,
        "recorded_reply_source": "hand-written",
        "recorded_model": "hand-written",
        "expected": {"verdict": "partial"},
    }


def dump(sample: dict[str, Any]) -> str:
    return json.dumps(sample, indent=2, ensure_ascii=False) + "\n"


def main() -> None:
    OUTPUT.write_text(dump(build()), encoding="utf-8")
    print(f"wrote {OUTPUT}")


if __name__ == "__main__":
    main()
