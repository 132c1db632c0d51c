"""Statistics, targets and the printed table for ``results/latest.json`` (pure: data in, text out)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

TARGETS = {
    "overhead_ratio_max": 0.25,
    "throughput_fraction_min_at_8": 0.85,
    # A trial's whole process at least this fraction as fast as a bare httpx client making the same posts.
    "trial_cli_ratio_min": 0.9,
    "start_s_max": 0.25,
    "scaling_100k_ms_max": 200.0,
    "scaling_growth_max": 12.0,
    "tracing_added_ms_max": 0.2,
    "sweep_overhead_fraction_max": 0.05,
    "page_warm_s_max": 2.0,
    "page_cold_s_max": 5.0,
}


def spread_ms(nanoseconds: Sequence[int]) -> dict[str, float]:
    """Median, 10th and 90th percentile of per-call nanoseconds, in ms."""
    values = sorted(nanoseconds)
    deciles = statistics.quantiles(values, n=10) if len(values) > 1 else [values[0]] * 9
    return {"median": statistics.median(values) / 1e6, "p10": deciles[0] / 1e6, "p90": deciles[-1] / 1e6,
            "calls": len(values)}


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def _outcome(result: object) -> str:
    text = str(result)
    return text.split(":", 1)[0] if ":" in text and text.split(":", 1)[0].endswith("Error") else text


def _table(head: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    cells = [[str(cell) for cell in row] for row in rows]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in cells]
    return lines


def table(results: dict[str, Any]) -> str:
    """The Markdown table printed by ``make bench`` and pasted into the README."""
    machine = results["machine"]
    out = [f"Machine: {machine['cpu']}, {machine['cores']} cores, Python {machine['python']}, "
           f"load average {machine['load_before']} before / {machine['load_after']} after; "
           f"{results['finished_at']}; answerlens {machine['answerlens_commit']}", ""]

    if "overhead" in results:
        overhead = results["overhead"]
        out.append(f"1. Per-assessment overhead vs upstream prme {overhead['upstream_version']} (median ms per call, "
                   f"{overhead['rounds']} alternating rounds; target ratio <= {TARGETS['overhead_ratio_max']})")
        out.append("")
        rows = []
        for name, item in overhead["bundles"].items():
            rows.append([
                f"{name} ({item['records']} records, {item['context_chars']:,} chars)",
                f"{item['answerlens']['wall']['median']:.2f}",
                f"{item['upstream']['wall']['median']:.2f}",
                f"**{item['ratio']:.2f}** ({item['round_ratio_min']:.2f}–{item['round_ratio_max']:.2f})",
                f"{item['answerlens']['cpu']['median']:.2f} / {item['upstream']['cpu']['median']:.2f}",
                f"{item['floor']['wall']['median']:.2f}",
                verdict(item["ratio"] <= TARGETS["overhead_ratio_max"]),
            ])
        out += _table(["bundle", "answerlens ms", "upstream ms", "ratio (round range)", "CPU ms al / up",
                       "bare httpx POST ms", "target"], rows)
        out.append("")

    if "throughput" in results:
        throughput = results["throughput"]
        out.append(f"2. Trial throughput: {throughput['samples']} samples, server waits "
                   f"{throughput['delay_s'] * 1000:.0f} ms per request (target >= "
                   f"{TARGETS['throughput_fraction_min_at_8']} of ideal at concurrency 8)")
        out.append("")
        rows = []
        for item in throughput["levels"]:
            target = verdict(item["fraction"] >= TARGETS["throughput_fraction_min_at_8"]) \
                if item["concurrency"] == 8 else ""
            rows.append([item["concurrency"], f"{item['ideal_s']:.2f}", f"{item['seconds']:.2f}",
                         f"**{item['fraction']:.2f}** ({', '.join(f'{f:.2f}' for f in item['fractions'])})",
                         f"{item['median_sample_latency_ms']:.0f}", f"{item['cpu_ms_per_sample']:.1f}", item["errors"],
                         target])
        out += _table(["concurrency", "ideal s", "measured s (median)", "fraction of ideal (runs)",
                       "sample latency ms", "client CPU ms/sample", "errors", "target"], rows)
        out.append("")

    out += _trial_cli(results)
    if "sweep" in results:
        out += sweep_table(results["sweep"])
    if "scaling" in results:
        out.append(f"3. Render + validate + highlighted HTML (median ms; target 100k/200 < "
                   f"{TARGETS['scaling_100k_ms_max']:.0f} ms, growth <= x{TARGETS['scaling_growth_max']:.0f} per x10)")
        out.append("")
        rows = []
        for item in results["scaling"]["sizes"]:
            ms = item["ms"]
            growth = f"x{item['growth']:.1f}" if item.get("growth") else ""
            rows.append([f"{item['context_chars']:,}", item["records"], item["citations"], f"{ms['render']:.2f}",
                         f"{ms['validate']:.2f}", f"{ms['html']:.2f}", f"**{ms['total']:.2f}**", growth])
        out += _table(["context chars", "records", "citations", "render", "validate", "highlight+HTML", "total",
                       "growth"], rows)
        scaling = results["scaling"]
        out.append("")
        out.append(f"100k/200: {scaling['largest_ms']:.1f} ms ({verdict(scaling['largest_ok'])}); worst growth "
                   f"x{scaling['worst_growth']:.1f} ({verdict(scaling['growth_ok'])})")
        out.append("")

    if "memory" in results:
        out.append("4. Peak RSS of a fresh process (ru_maxrss, MiB)")
        out.append("")
        rows = [[item["what"], item["lib"], f"{item['bundle_bytes'] / 1e6:.1f} MB", f"{item['baseline_mib']:.0f}",
                 f"**{item['peak_mib']:.0f}**", f"{item['vmhwm_mib']:.0f}" if item.get("vmhwm_mib") else "",
                 _ratio(item),
                 f"{item['seconds']:.2f}", _outcome(item.get("result"))] for item in results["memory"]]
        out += _table(["task", "library", "bundle file", "after imports", "peak (ru_maxrss)", "VmHWM",
                       "(peak − imports) / input", "task s", "outcome"], rows)
        out.append("")

    if "claims" in results:
        claims = results["claims"]
        out.append(f"5. Claim verification: {claims['passages']} passages per claim, none deciding alone "
                   f"({claims['pairs_per_claim']} pairs), median of {claims['rounds']} rounds")
        out.append("")
        rows = [[name, f"**{item['claims_per_s']:.0f}**", f"{item['ms_per_claim']:.2f}",
                 f"{item['ms_per_claim_min']:.2f}–{item['ms_per_claim_max']:.2f}"]
                for name, item in (("tiny ONNX NLI model (OnnxNliScorer)", claims["tiny_model"]),
                                   ("trivial injected scorer: overhead without a model", claims["overhead"]))]
        out += _table(["scorer", "claims/s", "ms per claim", "round range"], rows)
        out.append("")

    if "embedded" in results:
        out += embedded_table(results["embedded"])
    if "embedded_sweep" in results:
        out += embedded_sweep_table(results["embedded_sweep"])
    if "tracing" in results:
        out += tracing_table(results["tracing"])
    if "pages" in results:
        out += pages_table(results["pages"])
    return "\n".join(out)


def tracing_table(tracing: dict[str, Any]) -> list[str]:
    """Tracing on vs off: the assess call's added latency (target), the CPU with the background export, the CLI."""
    out = [f"7. Tracing: a replayed assessment with tracing off and on (OTLP/HTTP to a local collector), "
           f"{tracing['rounds']} alternating processes of {tracing['calls']} calls; target: the call's added latency "
           f"<= {TARGETS['tracing_added_ms_max']} ms", ""]
    added = tracing["added_call_ms"]
    rows = [["assess call, median ms", f"{tracing['off']['call_ms']:.3f}", f"{tracing['on']['call_ms']:.3f}",
             f"**{added:+.3f}**", verdict(added <= TARGETS["tracing_added_ms_max"])],
            ["CPU ms per assessment, background export included", f"{tracing['off']['cpu_ms']:.3f}",
             f"{tracing['on']['cpu_ms']:.3f}", f"{tracing['added_cpu_ms']:+.3f}", ""],
            ["`answerlens assess` (replay) process, s", f"{tracing['cli_assess_s']['off']:.2f}",
             f"{tracing['cli_assess_s']['on']:.2f}",
             f"{tracing['cli_assess_s']['on'] - tracing['cli_assess_s']['off']:+.2f}", ""]]
    out += _table(["", "off", "on", "added", "target"], rows)
    imported = ", ".join(tracing["otel_modules_imported"]) or "none"
    out += ["", f"Tracing off: OpenTelemetry modules imported by `answerlens assess`: {imported}; "
            f"answerlens.tracing's own import: {tracing['tracing_import_us'] / 1000:.1f} ms", ""]
    return out


def pages_table(pages: dict[str, Any]) -> list[str]:
    """Seconds until each app page is interactive in headless Chromium (targets: warm <= 2 s, cold <= 5 s)."""
    if "skipped" in pages:
        return [f"8. Page load: skipped ({pages['skipped']})", ""]
    out = [f"8. Page load in headless Chromium at {pages['viewport']}: seconds from navigation until the page's "
           f"run has drawn its readiness mark; cold = the first request after `make run`, warm = median of "
           f"{pages['warm_runs']} fresh sessions (targets: warm <= {TARGETS['page_warm_s_max']} s, cold <= "
           f"{TARGETS['page_cold_s_max']} s); load average {pages['load_average']}", ""]
    rows = []
    for name, item in pages["pages"].items():
        ok = item["warm_max_s"] <= TARGETS["page_warm_s_max"] and item["cold_s"] <= TARGETS["page_cold_s_max"]
        rows.append([name, f"**{item['cold_s']:.2f}**", f"{item['cold_script_s'] or 0:.2f}",
                     f"**{item['warm_median_s']:.2f}** (max {item['warm_max_s']:.2f})",
                     f"{item['warm_script_median_s'] or 0:.2f}", verdict(ok)])
    out += _table(["page", "cold s", "cold script run s", "warm s", "warm script run s", "target"], rows)
    out.append("")
    return out


def _ratio(item: dict[str, Any]) -> str:
    """Memory over imports per byte of input: the bundle file, or the reply where the row names one."""
    size = item.get("input_bytes", item["bundle_bytes"])
    ratio = (item["peak_mib"] - item["baseline_mib"]) * 2**20 / size
    return f"{ratio:.2f}× of the {size / 2**20:.0f} MiB reply" if "input_bytes" in item else f"{ratio:.1f}×"


def embedded_sweep_table(found: dict[str, Any]) -> list[str]:
    """A sweep with the defaults on the embedded model, and the old defaults beside it when measured."""
    if "skipped" in found:
        return [f"6b. Sweep on the embedded model: skipped ({found['skipped']})", ""]
    rows = []
    runs = (("defaults (fitted)", found.get("defaults")), ("old defaults: 4 in flight, 30 s", found.get("before")))
    for name, run in runs:
        if run is None:
            continue
        errors = ", ".join(f"{kind} {count}" for kind, count in run["errors"].items()) or "none"
        rows.append([name, str(run["concurrency"]), f"{run['timeout_s']:g} s", f"{run['wall_s']} s",
                     f"{run['samples']}", errors, run["load_before"]])
    return ["6b. Sweep on the embedded model (4 cells × 1 repeat, target: no timeout)",
            *_table(["run", "in flight", "timeout", "wall", "samples", "errors", "load before"], rows), ""]


def embedded_table(embedded: dict[str, Any]) -> list[str]:
    """Seconds per sample assessment with the bundled model, by stage (target: under 60 s each)."""
    if "skipped" in embedded:
        return [f"6. Embedded model: skipped ({embedded['skipped']})", ""]
    threads = embedded["threads"]
    out = [f"6. Embedded model: {embedded['model']}, {embedded['ctx']}-token window, {threads['generation']} "
           f"generation / {threads['prompt']} prompt thread(s), server started in {embedded['server_start_s']} s "
           "(seconds per sample assessment; target < 60 s)", ""]
    rows = []
    for item in embedded["assessments"]:
        stages = item["stages_s"]
        outcome = item.get("verdict") or item.get("error")
        if item.get("verifies"):
            outcome = f"{outcome}, verifies"
        rows.append([item["name"], f"{item.get('prompt_tokens') or ''}", f"{stages.get('prompt_processed@1', '')}",
                     f"{item.get('completion_tokens') or ''}", f"**{item['seconds']:.1f}**", item.get("attempts") or "",
                     outcome, item["load_before"].split()[0]])
    out += _table(["bundle", "prompt tokens", "prompt read by s", "reply tokens", "total s", "attempts", "outcome",
                   "load"], rows)
    out.append("")
    arms = [[arm, f"{row['tokens']}", f"{row['tokens_per_s']}", row["finish_reason"], f"{row['prompt_ms']}"]
            for arm, row in embedded["grammar"].items()]
    arms += [[f"before: {row['name']} (unbounded, all cores generate)", f"{row['tokens']}",
              f"{row['tokens_per_s']}", row["finish_reason"],
              f"{row['prompt_ms']} (+{row['generation_ms']} generating)"] for row in embedded.get("before", [])]
    out += _table(["same prompt, max_tokens 1024", "tokens", "tokens/s", "finish", "prompt ms"], arms)
    out.append("")
    return out


def sweep_table(sweep: dict[str, Any]) -> list[str]:
    """The packing sweep: overhead above its model calls, and peak memory at 2,000 records."""
    over, memory = sweep["overhead"], sweep["memory"]
    target = TARGETS["sweep_overhead_fraction_max"]
    load = f"; load average {sweep['load_before']} when measured" if sweep.get("load_before") else ""
    out = [f"4b. Packing sweep: {over['cells']} cells × {over['calls'] // max(over['assessed_cells'], 1)} repeats = "
           f"{over['calls']} calls at concurrency {over['concurrency']}, server waits {over['delay_s'] * 1000:.0f} ms "
           f"({over['records']}-record bundle; target: the sweep's time above its calls <= {target:.0%} of wall{load})",
           ""]
    floor = over.get("floor_s")
    out += _table(["ideal s", "bare httpx floor s", "measured s (median)", "overhead above the calls (runs)",
                   "answerlens's own part (above the floor)", "CPU ms/call", "target"],
                  [[f"{over['ideal_s']:.2f}", f"{floor:.2f}" if floor is not None else "", f"{over['seconds']:.2f}",
                    f"**{over['overhead_fraction']:.1%}** ({', '.join(f'{f:.1%}' for f in over['fractions'])})",
                    f"{over['own_fraction']:.1%} ({', '.join(f'{f:.1%}' for f in over['own_fractions'])})"
                    if floor is not None else "",
                    f"{over['cpu_ms_per_call']:.1f}",
                    verdict((over["own_fraction"] if floor is not None else over["overhead_fraction"]) <= target)]])
    out += ["", "The target is judged above the floor: the calls are what a bare client's same requests take here. "
            "Ideal: calls × server wait / concurrency. Floor: the same number of POSTs, as large as the "
            "sweep's fullest request, at the same concurrency, by a bare httpx client in the same process (loopback "
            "round trips and the server's own work: what no client avoids). Timed apart, before the sweep, as in "
            f"the app's long-lived process: the tokenizer's one-time load ({over['tokenizer_load_s']:.2f} s) and "
            f"the HTTP stack's (first request, {over.get('http_stack_load_s', 0.0):.2f} s)."]
    out += ["", f"Memory: a {memory['records']:,}-record bundle ({memory['bundle_bytes'] / 2**20:.1f} MB) at "
            f"{memory['cells']} budgets: peak {memory['peak_mib']:.0f} MiB, "
            f"{memory['peak_mib'] - memory['baseline_mib']:.0f} MiB over the imports ({memory['seconds']:.2f} s; "
            f"records kept per budget: {', '.join(map(str, memory['records_kept']))})", ""]
    return out


def _trial_cli(results: dict[str, Any]) -> list[str]:
    out: list[str] = []
    if "trial_cli" in results:
        cli = results["trial_cli"]
        out += [f"2b. `answerlens trial` end to end (a fresh process, start to exit after result.json; durable "
                f"writes on) vs a bare httpx client (a fresh process making the same posts at the same concurrency), "
                f"server waits {cli['delay_s'] * 1000:.0f} ms per request (target: ratio >= "
                f"{TARGETS['trial_cli_ratio_min']})", ""]
        rows = []
        for item in [*cli["levels"], cli["no_fsync"]]:
            floor = item.get("floor")
            ratio = f"**{item['ratio']:.2f}** ({', '.join(f'{r:.2f}' for r in item['ratios'])})" if floor else ""
            rows.append([item["name"], f"{item['seconds']:.2f}", f"{floor['seconds']:.2f}" if floor else "", ratio,
                         f"{item['fraction']:.2f}",
                         f"{item['cpu_ms_per_sample']:.2f}" + (f" / {floor['cpu_ms_per_sample']:.2f}" if floor else ""),
                         f"{item['server_cpu_s']:.2f}" if "server_cpu_s" in item else "",
                         ", ".join(f"{load:.1f}" for load in item["loads"]),
                         verdict(item["ratio"] >= TARGETS["trial_cli_ratio_min"]) if floor else ""])
        out += _table(["run", "trial s (median)", "bare httpx s", "ratio bare / trial: median of pairs (each pair)",
                       "fraction of ideal", "CPU ms/sample trial / bare", "server CPU s", "load before each trial",
                       "target"], rows)
        out.append("")
    if "start" in results:
        out += [f"2c. Start times of a fresh process (median of several; target < {TARGETS['start_s_max']} s)", ""]
        rows = [[label, f"**{item['median_s']:.3f}**", f"{item['min_s']:.3f}–{item['max_s']:.3f}",
                 "" if "samples" in label else verdict(item["median_s"] < TARGETS["start_s_max"])]
                for label, item in results["start"].items()]
        out += _table(["command", "median s", "range s", "target"], rows)
        out.append("")
    return out
