"""The provider's typed reads, LogWriter -> files -> DataProvider: the values written come back
as the values it answers with (a chart with its marks, a tag's points of one run or many, a
run's newest records, a clip's bytes, an embedding's vectors), and views reach the index only
through it."""

from __future__ import annotations

import ast
import math
import os

import numpy as np
import pytest
from kit.paths import ROOT

from visualdl import LogWriter
from visualdl.errors import InvalidArgument, NotFound
from visualdl.server._data import RunScalars, RunsPoints, ScalarRuns, WrongMarks
from visualdl.server._provider import DataProvider
from visualdl.server._settings import Settings
from visualdl.server._views.scalars import scalars_answer

RANKS = 4
STEPS = 30


def _loss(rank: int, step: int) -> float:
    return 1.0 / (1 + step) + (0.25 if rank == 2 and step >= 20 else 0.0)


@pytest.fixture(scope="module")
def provider(tmp_path_factory) -> DataProvider:
    logdir = tmp_path_factory.mktemp("reads")
    for rank in range(RANKS):
        with LogWriter(logdir / "job", rank=rank, world_size=RANKS, role="trainer") as w:
            for step in range(STEPS):
                w.add_scalar("loss", _loss(rank, step), step, walltime=1000.0 + step)
                w.add_scalar("grad_norm", math.inf if rank == 1 and step == 12 else 2.0, step, replicated=True)
    for lr in (0.1, 0.3):
        for seed in range(3):
            with LogWriter(logdir / f"lr{lr}" / f"seed{seed}") as w:
                w.add_hparams({"lr": lr, "seed": seed}, ["loss"])
                for step in range(10):
                    w.add_scalar("loss", lr * step + seed, step, walltime=2000.0 + step)
    rng = np.random.default_rng(3)
    with LogWriter(logdir / "kinds") as w:
        w.add_audio("clip", rng.uniform(-1, 1, 800), 0, sample_rate=8000)
        w.add_audio("clip", rng.uniform(-1, 1, 400), 1, sample_rate=8000)
        w.add_embeddings("emb", np.arange(24, dtype=np.float32).reshape(6, 4), [str(i) for i in range(6)])
    provider = DataProvider(Settings(logdirs=(("", str(logdir)),), background=False))
    provider.poll()
    return provider


def test_provider_read_chart_marks_a_job_where_its_tag_first_went_wrong(provider):
    chart = provider.read_chart(tag="grad_norm", runs=["job", "lr0.1/seed0"], max_points=100)
    assert isinstance(chart, ScalarRuns) and chart.missing == ("lr0.1/seed0",)
    (job,) = chart.runs
    assert isinstance(job, RunScalars) and job.job and isinstance(job.wrong, WrongMarks)
    firsts, parted = provider.read_job_wrong(run="job", tag="grad_norm")
    assert job.wrong == WrongMarks(tuple(firsts), tuple(parted))
    assert [(f.step, f.rank, f.value) for f in job.wrong.nonfinite] == [(12, 1, "inf")]
    assert [(d.step, d.ranks) for d in job.wrong.divergence] == [(12, (1,))]
    # The cached series is the same object each time; the marks are read with each chart.
    again = provider.read_chart(tag="grad_norm", runs=["job"], max_points=100)
    assert again.runs[0] == job and again.runs[0] is not job
    entry = scalars_answer(chart)["runs"][0]
    assert list(entry)[-3:] == ["run", "total_points", "wrong"]
    assert sorted((m["kind"], m["step"], m["ranks"]) for m in entry["wrong"]) == [
        ("divergence", 12, [1]),
        ("nonfinite", 12, [1]),
    ]


def test_provider_read_chart_leaves_unmarked_what_is_not_a_job(provider):
    one = provider.read_chart(tag="loss", runs=["lr0.3/seed2"], max_points=100)
    (series,) = one.runs
    assert series.wrong is None and not series.job
    assert series.line.steps.tolist() == list(range(10))
    assert series.line.values.tolist() == pytest.approx([0.3 * s + 2 for s in range(10)])
    rank = provider.read_chart(tag="loss", runs=["job"], max_points=100, rank=2)
    assert rank.runs[0].wrong is None and rank.runs[0].line.values.tolist() == [_loss(2, s) for s in range(STEPS)]
    grouped = provider.read_chart(tag="loss", where="lr > 0", group_by=["lr"], max_points=100)
    assert [(g.run, g.group.members if g.group else None, g.wrong) for g in grouped.runs] == [
        ("lr=0.1", ("lr0.1/seed0", "lr0.1/seed1", "lr0.1/seed2"), None),
        ("lr=0.3", ("lr0.3/seed0", "lr0.3/seed1", "lr0.3/seed2"), None),
    ]


def test_provider_read_chart_selects_by_query_and_enforces_its_run_limit(provider):
    chosen = provider.read_chart(
        tag="loss", runs=["lr0.3/seed1", "lr0.1/seed1", "job"], where="seed == 1", max_points=50
    )
    assert [s.run for s in chosen.runs] == ["lr0.3/seed1", "lr0.1/seed1"]
    everything = provider.read_chart(tag="loss", max_points=50)
    assert [s.run for s in everything.runs] == ["job", *(f"lr{lr}/seed{s}" for lr in (0.1, 0.3) for s in range(3))]
    assert everything.missing == ("kinds",)
    with pytest.raises(InvalidArgument, match="8 runs selected; a chart draws at most 3 runs one by one"):
        provider.read_chart(tag="loss", max_points=50, max_runs=3)
    assert len(provider.read_chart(tag="loss", max_points=50, max_runs=None).runs) == 7  # kinds has no loss
    with pytest.raises(InvalidArgument, match="points=replaced"):
        provider.read_chart(tag="loss", group_by=["lr"], points="replaced", max_points=50)
    with pytest.raises(NotFound, match="unknown run 'nope'"):
        provider.read_chart(tag="loss", runs=["job", "nope"], max_points=50)


def test_provider_read_points_of_one_run_and_of_many_at_once(provider):
    one = provider.read_points(run="lr0.1/seed2", tag="loss")
    assert one.steps.tolist() == list(range(10))
    assert one.values.tolist() == pytest.approx([0.1 * s + 2 for s in range(10)])
    assert one.wall_times.tolist() == [2000.0 + s for s in range(10)]
    with pytest.raises(NotFound, match="run 'kinds' has no scalars tag 'loss'"):
        provider.read_points(run="kinds", tag="loss")
    with pytest.raises(NotFound, match="unknown run 'nope'"):
        provider.read_points(run="nope", tag="loss")
    runs = ["lr0.3/seed0", "nope", "kinds", "lr0.1/seed1"]
    many = provider.read_runs_points(runs=runs, tag="loss")
    assert isinstance(many, RunsPoints)
    assert sorted(many.which.tolist()) == [0, 3] and many.lengths.tolist() == [10, 10]
    ends = np.cumsum(many.lengths)
    for j, at in enumerate(many.which.tolist()):
        got = many.points.values[ends[j] - many.lengths[j] : ends[j]]
        assert got.tolist() == provider.read_points(run=runs[at], tag="loss").values.tolist()
    none = provider.read_runs_points(runs=["nope"], tag="loss")
    assert len(none.points) == 0 and none.lengths.size == 0 and none.which.size == 0


def test_provider_reads_a_runs_newest_records(provider):
    event = provider.read_hparams(run="lr0.3/seed1")
    assert event is not None and event.hparams == {"lr": 0.3, "seed": 1} and event.metrics == ("loss",)
    assert provider.read_hparams(run="job") is None
    newest = provider.read_newest_hparams(runs=["lr0.1/seed0", "job", "nope"])
    assert list(newest) == ["lr0.1/seed0"] and newest["lr0.1/seed0"].hparams == {"lr": 0.1, "seed": 0}
    assert provider.read_scalar_layout(run="job") is None
    with pytest.raises(NotFound, match="unknown run"):
        provider.read_hparams(run="nope")


def test_provider_locate_blob_finds_a_clips_wav(provider):
    path, offset, length = provider.locate_blob(run="kinds", kind="audio", tag="clip", step=1)
    with provider.open_log("kinds", path) as f:
        f.seek(offset)
        wav = f.read(length)
    assert wav[:4] == b"RIFF" and wav[8:12] == b"WAVE" and length == 44 + 2 * 400
    with pytest.raises(NotFound, match="clip index 2 out of range"):
        provider.locate_blob(run="kinds", kind="audio", tag="clip", index=2)
    with pytest.raises(InvalidArgument, match="kind must be one of images, audio"):
        provider.locate_blob(run="kinds", kind="text", tag="clip")


def test_provider_read_embedding_gives_its_vectors_back(provider):
    entry = provider.read_embedding(run="kinds", tag="emb")
    assert entry.index == 0 and (entry.event.rows, entry.event.dimension) == (6, 4)
    vectors = np.frombuffer(entry.read_vectors(), "<f4").reshape(6, 4)
    assert vectors.tolist() == np.arange(24, dtype=np.float32).reshape(6, 4).tolist()
    assert entry.sprite is None and entry.read_sprite is None
    with pytest.raises(NotFound, match="has 1 embeddings entries; there is no entry 1"):
        provider.read_embedding(run="kinds", tag="emb", index=1)


def _provider_modules() -> list[str]:
    folder = os.path.join(ROOT, "server", "_provider")
    return [os.path.join(folder, name) for name in sorted(os.listdir(folder)) if name.endswith(".py")]


def test_provider_keeps_the_index_to_itself():
    """Nothing outside the provider package calls its private reads (the index behind them),
    and the provider imports no view and nothing of HTTP."""
    assert not hasattr(DataProvider, "resolve") and not hasattr(DataProvider, "events")
    private = {"_resolve", "_located", "_events", "_remembered", "_by_index"}
    mine = set(_provider_modules())
    callers = []
    for folder in ("server", "visualdl"):
        for dirpath, _, names in os.walk(os.path.join(ROOT, folder)):
            for name in names:
                path = os.path.join(dirpath, name)
                if not name.endswith(".py") or path in mine or os.sep + "_index" + os.sep in path:
                    continue
                with open(path, encoding="utf-8") as f:
                    tree = ast.parse(f.read(), path)
                callers += [
                    f"{os.path.relpath(path, ROOT)}:{node.lineno}"
                    for node in ast.walk(tree)
                    if isinstance(node, ast.Attribute) and node.attr in private
                ]
    assert callers == []
    imported = []
    for path in mine:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("visualdl.server._"):
                if node.module.split(".")[2] in ("_views", "_http"):
                    imported.append(f"{os.path.basename(path)}:{node.lineno} {node.module}")
    assert imported == []
