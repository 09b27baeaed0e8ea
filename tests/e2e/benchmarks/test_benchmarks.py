"""Every benchmark runs in its quick mode and prints its figures, so that none of them rots.

Each script under ``benchmarks/`` runs once, with ``--quick``, in a subprocess of this
interpreter at the repository root (a few seconds each); the tests read its output: the
exit status, a few named figures that must be positive numbers, and the side-by-side
figures of a peer (tensorboardX, tensorboard) or of the browser where the run measures
one. A missing peer skips that part on a developer's machine and fails it under CI.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any

from kit.paths import ROOT
from kit.requirements import require

TIMEOUT = 300.0  # seconds per benchmark; each takes 5 to 30 s on 2 cores
BENCH_INSTALL = 'python3 -m pip install -e ".[bench]"'
NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?|-?\.\d+|nan|inf")


@dataclass(frozen=True)
class Run:
    command: str
    status: int | None  # None: killed at the timeout
    out: str
    err: str
    seconds: float


@functools.cache
def run(script: str, *args: str) -> Run:
    """``benchmarks/<script>.py --quick *args``, once per session; its process group is killed at the timeout."""
    cmd = [sys.executable, os.path.join(ROOT, "benchmarks", f"{script}.py"), "--quick", *args]
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    started = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
        status: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the benchmark's servers and children with it
        out, err = proc.communicate()
        status = None
    return Run(" ".join(cmd[1:]), status, out, err, time.perf_counter() - started)


def output(script: str, *args: str) -> str:
    """The standard output of a quick run that exited with status 0."""
    result = run(script, *args)
    tail = f"\n--- stdout:\n{result.out[-3000:]}\n--- stderr:\n{result.err[-3000:]}"
    assert result.status is not None, f"{result.command} still running after {TIMEOUT:.0f} s{tail}"
    assert result.status == 0, f"{result.command} exited with status {result.status} after {result.seconds:.1f} s{tail}"
    return result.out


def numbers(out: str, label: str) -> list[float]:
    """The numbers printed after ``label`` (a regex) on the first line that starts with it."""
    match = re.search(rf"^\s*{label}(?P<rest>.*)$", out, re.M)
    assert match, f"no line starting with {label!r} in:\n{out}"
    return [float(x.replace(",", "")) for x in NUMBER.findall(match["rest"])]


def figure(out: str, label: str) -> float:
    """The first number after ``label``; it must be positive."""
    found = numbers(out, label)
    assert found, f"no number after {label!r}"
    assert found[0] > 0, f"{label!r}: {found[0]!r} is not a positive number"
    return found[0]


def json_block(out: str) -> dict[str, Any]:
    """The JSON object the script prints on lines of its own."""
    start = re.search(r"^\{$", out, re.M)
    assert start, f"no JSON object in:\n{out}"
    value, _ = json.JSONDecoder().raw_decode(out[start.start() :])
    assert isinstance(value, dict)
    return value


def positive(figures: dict[str, Any], *keys: str) -> None:
    for key in keys:
        value = figures.get(key)
        assert isinstance(value, int | float) and value > 0, f"{key}: {value!r} is not a positive number"


def importable(*names: str) -> bool:
    return all(importlib.util.find_spec(name) is not None for name in names)


# -- writer ---------------------------------------------------------------------------


WRITER_ROWS = [re.escape(f"add_{kind}, caller us/call (median)") for kind in ("scalar", "image", "histogram")] + [
    re.escape(f"add_{kind}, us/call incl. drain (close)") for kind in ("scalar", "image", "histogram")
]
WRITER_ROWS += [re.escape("sustained scalars, points/s (to drain)"), "bytes on disk per scalar point"]


def test_bench_writer_quick_prints_every_figure():
    out = output("bench_writer")
    for label in [*WRITER_ROWS, "peak RSS growth of the run, MB", "loop overhead alone .*?:"]:
        figure(out, label)
    assert numbers(out, "total time") and "visualdl: throughput" in out
    for call in ("audio", "pr_curve", "roc_curve", "hparams", "embeddings", "image_matrix", "meta", "onnx_graph"):
        caller, drained = numbers(out, re.escape(f"add_{call}, us/call (median)"))
        assert 0 < caller <= drained, call


def test_bench_writer_quick_measures_tensorboardx():
    out = output("bench_writer")
    if not importable("tensorboardX"):
        assert "peers skipped" in out
    require(importable("tensorboardX"), "tensorboardX, the writer benchmark's peer", BENCH_INSTALL)
    assert re.search(r"^tensorboardX \S+: measured in the same run$", out, re.M), out
    assert re.search(r"^measure .* tensorboardX +ours/theirs$", out, re.M), out
    for label in WRITER_ROWS:
        *_, theirs, ratio = numbers(out, label)
        assert theirs > 0 and ratio > 0, (label, theirs, ratio)
    assert "tensorboardX: throughput" in out


# -- reader ---------------------------------------------------------------------------


READER_PEER = "tensorboard and tensorboardX, the reader and server benchmarks' peers"


def test_bench_reader_quick_prints_every_figure():
    out = output("bench_reader")
    for label in (
        r"cold read, s \(400,000 points, median\)",
        re.escape("of which LogReader(logdir), s"),
        "cold read, million points/s",
        re.escape("peak RSS growth / points, bytes"),
        re.escape("RSS kept at the end / points, bytes"),
        r"poll\(\), nothing changed, ms \(\d+ files\)",
        r"poll\(\), one run got 1,000 new points, ms",
        r"poll\(\) \+ scalars\(\) of that run's 20 series, ms",
    ):
        figure(out, label)
    assert len(numbers(out, "cold read runs")) == 3


def test_bench_reader_quick_measures_tensorboard():
    out = output("bench_reader")
    have = importable("tensorboard", "tensorboardX")
    if not have:
        assert "peers skipped" in out
    require(have, READER_PEER, BENCH_INSTALL)
    ours, theirs = numbers(out, "seconds per million points:")
    assert ours > 0 and theirs > 0
    assert figure(out, "ratio ours/theirs") > 0
    figure(out, "peak RSS growth / point: tensorboard")


# -- server ---------------------------------------------------------------------------


def test_bench_server_quick_prints_every_figure():
    out = output("bench_server", "--profile")
    for label in (
        r"cold start to full chart, s \(50,000 points, median\)",
        re.escape("to the first HTTP answer (imports, app), s"),
        re.escape("to /api/health loaded, s"),
        r"the chart request itself \(10 runs, \d+ kB\), ms",
        re.escape("warm, 100k points -> 1000, full range, uncached, median ms"),
        re.escape("warm, 100k points -> 1000, zoomed, uncached, median ms"),
        re.escape("warm, 100k points -> 1000, full range, cached, median ms"),
        "HTTP floor: /api/health, median ms",
        "peak RSS - idle server RSS, bytes/point",
        re.escape("idle server (empty logdir) RSS, MB"),
        r"load: 100 clients, \d+ s: requests/s",
        "latency p50, ms",
        "latency p99, ms",
        "server CPU, s per wall s",
    ):
        figure(out, label)
    assert numbers(out, "errors"), "the load test's error count"
    sent, answered, _ = numbers(out, r"load: (?=[\d,]+ requests sent)")
    assert sent > 0 and answered > 0, (sent, answered)
    for title in ("first poll of 50,000 points", "20 first charts of 10 runs", "50 uncached requests"):
        assert figure(out, f"profile: {title}.*?:") > 0  # --profile


def test_bench_server_quick_measures_tensorboard():
    out = output("bench_server", "--profile")
    have = importable("tensorboard", "tensorboardX")
    if not have:
        assert "peers skipped" in out
    require(have, READER_PEER, BENCH_INSTALL)
    ours, theirs, ratio, _ = numbers(out, "cold start to full chart: visualdl")
    assert ours > 0 and theirs > 0 and ratio > 0
    figure(out, "tensorboard first HTTP answer")


# -- jobs -----------------------------------------------------------------------------


def test_bench_jobs_quick_prints_every_figure():
    out = output("bench_jobs")
    figures = json_block(out)
    assert figures["points"] == 100 * 20 * 1000
    positive(
        figures,
        "cold_load_s",
        "rss_bytes_per_point",
        "job_chart_first_ms",
        "job_chart_cached_ms",
        "job_chart_bytes",
        "per_rank_lines_first_ms",
        "per_rank_bytes",
        "job_page_first_ms",
        "job_page_cached_ms",
        "stragglers_first_ms",
        "stragglers_cached_ms",
        "job_page_bytes",
    )
    # Built with one rank (7) killed and restarted and ranks 0 and 97 slow.
    assert figures["killed_files_found"] >= 1 and figures["stragglers_found"] >= 1, figures
    assert re.search(r"^job chart [\d.]+ ms first / [\d.]+ ms cached .* job page [\d.]+ ms", out, re.M), out


def test_bench_sysmetrics_quick_prints_every_figure():
    out = output("bench_sysmetrics")
    for label in (
        "add_scalar, system metrics off: median",
        re.escape("add_scalar, system metrics on (0.5 s): median"),
        "sampler CPU per sample: median",
        "/api/job/system at 1,000 ranks x 40 metrics x 500 samples .*?: one metric",
    ):
        figure(out, label)
    assert figure(out, "/api/job/system at 1,000 ranks .*?all 40 metrics") > 0


# -- graph ----------------------------------------------------------------------------


def test_bench_graph_quick_prints_every_figure():
    out = output("bench_graph")
    figures = json_block(out)
    positive(
        figures,
        "nodes",
        "server_first_view_s",
        "default_view_items",
        "default_view_json_kb",
        "expand_one_group_s",
        "expand_all_s",
        "expand_all_json_kb",
    )
    assert figures["default_view_items"] < figures["expand_one_group_items"] < figures["expand_all_items"], figures
    assert figures["expand_all_items"] >= figures["nodes"], figures
    assert figure(out, "server: first view") > 0


def test_bench_graphdef_quick_prints_every_figure():
    out = output("bench_graphdef")
    assert figure(out, "convert:") > 0 and figure(out, "open collapsed:") > 0
    assert numbers(out, "graph:") == [2_001, 667]  # 2,000 nodes: x, the input, is not one


def test_bench_graph_chain_quick_prints_every_figure():
    out = output("bench_graph_chain")
    assert figure(out, "ops") > 0 and figure(out, "constants") > 0 and figure(out, "graphdef") > 0
    assert numbers(out, "ops")[2] == 2_002 and numbers(out, "constants")[2] == 3  # the chain and x, y; Add, x, y


def test_bench_graph_quick_renders_in_the_browser():
    out = output("bench_graph")
    figures = json_block(out)
    have = importable("playwright") and os.path.exists("/usr/bin/chromium")
    if not have:
        assert figures["browser"].startswith("skipped"), figures
    require(have, "playwright and /usr/bin/chromium", "pip install playwright; apt-get install -y chromium")
    positive(figures, "browser_first_render_s")
    assert len(figures["runs"]) == 2, "one untimed and one timed page load"
    assert figure(out, "server: first view .*?browser first render") > 0


# -- interop ----------------------------------------------------------------------------


INTEROP_PEER = "tensorboard and tensorboard-data-server, the interop benchmark's peer (its Rust data server)"


def test_bench_interop_quick_prints_every_figure():
    require(importable("tensorboardX"), "tensorboardX, the writer of the interop benchmark's logdir", BENCH_INSTALL)
    out = output("bench_interop")
    assert re.search(r"^tensorboard \S+, tensorboard-data-server \S+, tensorboardX \S+$", out, re.M), out
    assert re.search(r"^python \S+, \d+ CPUs", out, re.M), out
    header = re.search(r"^measure +(?P<columns>.*)$", out, re.M)
    assert header, out
    columns = re.split(r" {2,}", header["columns"].strip())
    assert columns[:2] == ["us, tfevents", "us, own format"], columns
    vdl2 = "us, VisualDL 2" in columns
    assert vdl2 or "column skipped" in out, out
    ours = 3 if vdl2 else 2
    for label in (
        r"cold start to full chart, s \(50,000 points, median\)",
        re.escape("to the first HTTP answer, s"),
        re.escape("to /api/health loaded, s"),
        re.escape("its last request, the chart itself, ms"),
        re.escape("peak RSS of the server's processes, MB"),
        re.escape("idle on an empty logdir, MB"),
        re.escape("logdir on disk, bytes/point"),
    ):
        found = numbers(out, label)
        assert len(found) >= ours and all(x > 0 for x in found[:ours]), (label, found)
    assert len(numbers(out, re.escape("peak RSS - idle, bytes/point"))) == len(columns)
    assert figure(out, re.escape("ratio cold start tfevents / own format")) > 0
    numbers(out, re.escape("ratio RSS per point tfevents / own format"))
    if vdl2:
        assert figure(out, "VisualDL 2's own server took 29 to 46 s .*?; ours:") > 0


def test_bench_interop_quick_measures_tensorboard_rust():
    out = output("bench_interop")
    have = importable("tensorboard", "tensorboard_data_server", "tensorboardX")
    if not have:
        assert "column is skipped" in out or "nothing to measure" in out
    require(have, INTEROP_PEER, BENCH_INSTALL)
    assert re.search(r"^measure .* TensorBoard Rust$", out, re.M), out
    assert re.search(r"^tensorboard --load_fast=true ran \S+ as its child in every start$", out, re.M), out
    cold = numbers(out, r"cold start to full chart, s \(50,000 points, median\)")
    assert cold[-1] > 0, cold
    assert figure(out, re.escape("a series request, 10 runs at once (median), ms")) > 0
    assert numbers(out, re.escape("peak RSS of the server's processes, MB"))[-1] > 0
    assert figure(out, re.escape("ratio cold start tfevents / TensorBoard Rust")) > 0


# -- web UI ------------------------------------------------------------------------------


def test_bench_ui_quick_measures_both_logdirs_cold_and_warm():
    have = importable("playwright") and os.path.exists("/usr/bin/chromium")
    require(have, "playwright and /usr/bin/chromium", "pip install playwright; apt-get install -y chromium")
    out = output("bench_ui")
    row = r"^(demo|12 charts x \d+ runs)\s+(cold|warm)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d,]+)$"
    rows = re.findall(row, out, re.M)
    assert [(name.split()[0], load) for name, load, *_ in rows] == [
        ("demo", "cold"), ("demo", "warm"), ("12", "cold"), ("12", "warm"),
    ], out  # fmt: skip
    for *_, first, plotly_ms, every, transferred in rows:
        assert 0 < float(first) <= float(plotly_ms) <= float(every), out
        assert int(transferred.replace(",", "")) > 0
    cold = int(rows[0][5].replace(",", ""))
    warm = int(rows[1][5].replace(",", ""))
    assert warm < cold / 5, out  # a reload fetches little: hashed files come from the cache


def test_bench_sweeps_ui_quick_measures_the_first_grouped_chart_and_the_runs_tables_scroll():
    have = importable("playwright") and os.path.exists("/usr/bin/chromium")
    require(have, "playwright and /usr/bin/chromium", "pip install playwright; apt-get install -y chromium")
    out = output("bench_sweeps_ui")
    figures = json_block(out)
    assert figures["runs"] == 300 and figures["steps"] == 20, figures
    positive(figures["chart"], "drawn_ms", "first_chart_ms", "plotly_ran_ms", "scalars_answered_ms", "chart_bytes")
    positive(figures["chart_server_cold"], "drawn_ms", "first_chart_ms", "scalars_answered_ms")
    positive(figures["runs_tab"], "first_page_ms")
    for mode in ("fling", "drag"):
        positive(figures[mode], "frames", "scrolled_frames", "median_ms", "p95_ms", "max_ms")
    for label in (
        re.escape("first grouped chart drawn (SVG preview or plotly), ms after navigation"),
        re.escape("  drawn by plotly.js, ms"),
        re.escape("first load after the server loaded (its first grouped charts), ms"),
        re.escape("Runs tab: first page of the table drawn, ms after navigation"),
        r"runs table, fling \(10 rows a frame, \d+ frames\) x 2: median frame, ms",
        r"runs table, drag \([\d.]+ rows a frame, 120 frames\) x 2: median frame, ms",
    ):
        figure(out, label)
    assert len(re.findall(r"^  frames over 50 ms \(of \d+\) +[\d,]+ +0 +(ok|MISS)$", out, re.M)) == 2, out
    assert re.search(r"^targets: first grouped chart <= 1500 ms .* < 50 ms$", out, re.M), out


def test_bench_projector_quick_measures_the_sdk_server_and_browser():
    have = importable("playwright") and os.path.exists("/usr/bin/chromium")
    require(have, "playwright and /usr/bin/chromium", "pip install playwright; apt-get install -y chromium")
    figures = json_block(output("bench_projector"))
    positive(figures, "rows", "sdk_call_s", "pca_cold_s", "pca_warm_s", "answer_mb", "neighbours_s")
    positive(figures, "browser_first_view_s")
    assert figures["pca_warm_s"] < figures["pca_cold_s"], figures  # the second request is the cached one


def test_bench_pca_quick_measures_wide_and_concurrent_pca():
    out = output("bench_pca")
    figures = json_block(out)
    positive(figures, "wide_s", "concurrent_s")
    assert figures["wide_peak_mb"] >= 0 and figures["concurrent_peak_mb"] >= 0, figures
    assert "4 x 100 x 1,000 concurrent" in out, out


def test_bench_projector_files_quick_measures_each_case_in_proportion():
    out = output("bench_projector_files")
    for case in ("blank labels", "zero tensors", "repeated pair"):
        on_disk, peak, _, rss, seconds, entries = numbers(out, re.escape(case))
        assert on_disk > 0 and peak > 0 and rss > 0 and seconds > 0, (case, out)
        assert entries == (100 if case == "repeated pair" else 1), (case, out)


def test_bench_graph_models_quick_measures_the_onnx_projects_models():
    figures = json_block(output("bench_graph_models"))["models"]
    assert {"resnet50", "densenet121", "inception_v2"} <= set(figures), figures
    for name, r in figures.items():
        positive(r, "nodes", "items", "width", "height", "first_ms", "warm_ms")
        assert r["warm_ms"] < r["first_ms"], (name, r)
    # Chains with a few branches lay out a few boxes wide, not hundreds (issue 15's table: 240 for ResNet-50).
    assert figures["resnet50"]["widest_row"] <= 3 and figures["densenet121"]["widest_row"] <= 3, figures


def test_bench_s3_quick_counts_the_requests_of_writers_and_a_reader():
    have = importable("moto", "s3fs")
    require(have, "moto and s3fs", 'python3 -m pip install -e ".[test]"')
    figures = json_block(output("bench_s3"))
    positive(figures, "points_read", "puts_per_writer_hour", "list_per_reload_median", "objects_at_end")
    positive(figures, "add_scalar_us_s3_writer", "add_scalar_us_local_writer", "delay_s_median")
    # Every point shows within the upload interval plus the reload interval (and scheduling).
    assert figures["delay_s_max"] < figures["upload_secs"] + figures["reload_secs"] + 5.0, figures


def test_bench_scale_quick_measures_both_logdirs_beside_tensorboard_rust():
    have = importable("tensorboard", "tensorboard_data_server")
    require(have, "tensorboard and its data server", BENCH_INSTALL)
    figures = json_block(output("bench_scale"))
    for who in ("ours", "tensorboard"):
        positive(figures["long"][who], "chart_s", "hwm_kb", "zoom_ms")
        positive(figures["many"][who], "run_list_after_start_s", "chart_after_start_s", "run_list_ms", "hwm_kb")
        positive(figures["many"][who], "chart_50_first_ms", "chart_50_repeated_ms")
    assert figures["long"]["ours"]["zoom_points"] == 1000  # every step of the window, exact
    assert figures["long"]["tensorboard"]["zoom_points"] < 1000  # its reservoir's sample of it


def test_bench_memory_quick_measures_audio_blobs_and_a_long_chart():
    out = output("bench_memory")
    audio = re.search(r"audio: .*\(([\d.]+)x the WAV", out)
    assert audio is not None and float(audio.group(1)) < 12, out  # 12x before add_audio streamed
    blobs = [float(x) for x in re.findall(r"blob: \w+ indexing .*\(([\d.]+)x the record\)", out)]
    assert len(blobs) == 2 and max(blobs) < 1, out  # 2x before records were pruned
    assert "WRONG BYTES" not in out
    chart = re.search(r"chart: .* allocated at most ([\d.]+) MB", out)
    assert chart is not None and float(chart.group(1)) < 24, out  # the series is 48 MB


def test_bench_wrong_quick_prints_the_writer_before_and_after_and_the_index_cost():
    out = output("bench_wrong")
    labels = ("before replicated existed", "now, replicated not given", "now, replicated=True", "note_points total")
    for label in (*labels, "per block (rank x tag)", "first_nonfinite query", "divergence query"):
        found = re.search(re.escape(label) + r"\s+([\d.]+)", out)
        assert found is not None and float(found.group(1)) > 0, out
    assert "(1 tags parted)" in out  # tag0 parts for good; tag2's NaN for 3 steps is no divergence


def test_bench_sweeps_quick_measures_the_runs_table_groups_and_tensorboard():
    have = importable("tensorboard", "tensorboard_data_server")
    require(have, "tensorboard and its data server", BENCH_INSTALL)
    out = output("bench_sweeps")
    figures = json_block(out)
    assert figures["runs"] == 3000
    ours = figures["in_process"]
    positive(
        ours,
        "cold_load_s",
        "table_first_page_first_ms",
        "table_first_page_ms",
        "table_query_sorted_first_ms",
        "grouped_chart_first_ms",
        "grouped_chart_cached_ms",
        "where_500_auto_groups_ms",
    )
    assert ours["where_500_runs"] == 500 and ours["table_query_matched"] > 0, ours
    for who in ("visualdl_server", "tensorboard_server"):
        positive(figures[who], "run_list_after_start_s", "first_chart_after_start_s", "peak_rss_mb")
    assert re.search(r"^runs table first page [\d.]+ ms after load", out, re.M), out


def test_bench_queries_quick_times_the_200_term_query_and_the_dearest_admitted():
    out = output("bench_queries")
    figures = json_block(out)
    assert figures["runs"] == 3000
    ours = figures["in_process"]
    positive(ours, "q200_first_s", "q200_again_s", "q200_new_table_s", "or_1000_s")
    assert ours["q200_matched"] == 199, ours
    for family in ("suffix", "everything", "starry", "classes", "counted"):
        positive(ours[f"dearest_{family}"], "terms", "chars", "first_s")
    assert re.search(r"^a 200-term query over 3,000 runs: [\d.]+ s first", out, re.M), out
