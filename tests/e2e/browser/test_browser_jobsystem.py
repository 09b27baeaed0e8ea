"""The Jobs tab's System section in a real browser, over a job whose system metrics were
sampled by real processes (``system_metrics_secs=0.5``): one chart per metric of the API's
list, by scope, with each role's median and bands and the unit on the y axis."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from kit.pages import open_tab, wait_for
from kit.paths import ROOT
from kit.servers import get_json, serve_cli

CHILD = textwrap.dedent(
    """
    import sys
    from visualdl import LogWriter
    rank = int(sys.argv[2])
    w = LogWriter(sys.argv[1], rank=rank, local_rank=rank, world_size=2, role="trainer", system_metrics_secs=0.5)
    step = 0
    while w._sampler.samples < 4:  # a condition, polled: four samples taken
        w.add_scalar("loss", 1.0 / (step + 1), step)
        step += 1
        sum(range(20000))
    w.close()
    """
)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    logdir = str(tmp_path_factory.mktemp("job_system_logs"))
    run = os.path.join(logdir, "job")
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    children = [
        subprocess.Popen([sys.executable, "-c", CHILD, run, str(rank)], env=env, stderr=subprocess.PIPE, text=True)
        for rank in (0, 1)
    ]
    for child in children:
        _, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
    with serve_cli(["--logdir", logdir, "--reload-interval", "0.5"], os.path.join(logdir, "..", "server.log")) as base:
        yield base


def test_jobs_system_section_draws_a_chart_per_metric_with_its_unit(page, server):
    listed = get_json(server + "api/job?run=job")["system"]
    names = [m["metric"] for m in listed]
    assert {"process/rss", "process/cpu_user", "host/memory_used", "host/cpu"} <= set(names)
    open_tab(page, server, "jobs")
    charts = page.locator(".job-system-chart")
    wait_for(lambda: charts.count() == len(names), "a chart per system metric")
    assert charts.evaluate_all("(els) => els.map((e) => e.dataset.metric)") == names
    assert page.locator(".job-system h4").all_text_contents()[:2] == ["Process (each rank)", "Host (once per host)"]
    rss = page.locator('.job-system-chart[data-metric="process/rss"] .js-plotly-plot')
    wait_for(lambda: rss.count() == 1, "the RSS chart drawn")
    drawn = rss.evaluate(
        "(el) => ({axis: el._fullLayout.yaxis.title.text, title: el._fullLayout.title.text,"
        " kinds: el.data.map((t) => t.meta.kind + ' ' + t.meta.role), median: el.data.find((t) =>"
        " t.meta.kind === 'median').y})"
    )
    assert (drawn["axis"], drawn["title"]) == ("bytes", "process rss")
    assert drawn["kinds"] == [f"{k} trainer" for k in ("p5", "p95", "p25", "p75", "median")]
    api = get_json(server + "api/job/system?run=job&metric=process/rss&points=200")["metrics"][0]["roles"][0]
    assert drawn["median"] == api["median"]
    cpu = page.locator('.job-system-chart[data-metric="host/cpu"] .js-plotly-plot')
    wait_for(lambda: cpu.count() == 1, "the host CPU chart drawn")
    assert cpu.evaluate("(el) => el._fullLayout.yaxis.title.text") == "%"
    assert not page.errors, page.errors
