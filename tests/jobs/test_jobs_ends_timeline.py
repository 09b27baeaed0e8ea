"""The timeline of ends at 10,000 ranks (``visualdl/_jobs/ends.py``): the first
unclean end, the others in a few groups with their members capped and counted."""

from __future__ import annotations

from visualdl._cli.inspect import timeline_lines
from visualdl._index.writers import WriterInfo
from visualdl._jobs.ends import MEMBERS, EndTimeline, end_timeline
from visualdl._kinds.table import ProcessEnd
from visualdl.server._views.job_ends import end_timeline_json

T0 = 1_700_000_000.0


def _info(rank: int, ended: ProcessEnd | None) -> WriterInfo:
    return WriterInfo(
        path=f"/logs/job/vdl.{rank}.vdlog", writer_id=f"{rank:x}", host="h", pid=rank, start_time=T0 - 600,
        sdk_version="x", display_name="", rank=rank, world_size=10_000, local_rank=rank % 8, role="trainer",
        job="j", attempt=0, launcher="", closed=False, ended=ended,
    )  # fmt: skip


def test_job_ends_timeline_10000_ranks_in_three_groups():
    infos = []
    for rank in range(10_000):
        if rank == 3:
            end = ProcessEnd("exception", T0, "RuntimeError", "CUDA out of memory\nmore", "tb", step=1204)
        elif rank == 7:
            end = ProcessEnd("killed", T0 - 1, step=1190, cause="probably out of memory")
        elif rank < 9_990:
            end = ProcessEnd("signal", T0 + 0.5 + 0.0003 * rank, signal="SIGTERM", step=1203)
        else:
            end = None  # still running
        infos.append(_info(rank, end))
    timeline = end_timeline(infos)
    assert (timeline.ended, timeline.running) == (9_990, 10)
    first = timeline.first
    assert first is not None
    assert first.text == "trainer 7 was killed without a trace (probably out of memory) at step 1,190"
    groups = timeline.groups
    assert [(g.how, g.count, g.more, len(g.members)) for g in groups] == [
        ("exception", 1, 0, 1),
        ("signal", 9_988, 9_988 - MEMBERS, MEMBERS),
    ]
    assert groups[0].text == "1 other raised `RuntimeError` within 1 s"
    assert groups[1].text == "9,988 others ended by SIGTERM within 4.5 s"
    assert groups[1].members[0].wall_time == min(m.wall_time or 0.0 for m in groups[1].members)
    shown = end_timeline_json(timeline)  # /api/job's ends: the same, as JSON
    assert shown["first"]["text"] == first.text and shown["first"]["how"] == "killed"
    assert [g["more"] for g in shown["groups"]] == [0, 9_988 - MEMBERS]
    assert shown["groups"][1]["members"][0] == {
        "role": "trainer", "rank": 0, "attempt": 0, "file": "vdl.0.vdlog", "wall_time": T0 + 0.5, "step": 1203,
    }  # fmt: skip
    lines = timeline_lines(timeline)
    assert lines[0].startswith("trainer 7 was killed without a trace (probably out of memory) at step 1,190, ")
    assert lines[1:] == ["  1 other raised `RuntimeError` within 1 s", "  9,988 others ended by SIGTERM within 4.5 s"]


def test_job_ends_timeline_all_closed_or_none_ended():
    closed = [_info(r, ProcessEnd("closed", T0 + r)) for r in range(3)]
    timeline = end_timeline(closed)
    assert timeline.first is not None and timeline.first.entry.rank == 0 and timeline.groups[0].count == 2
    assert timeline_lines(timeline) == []  # --inspect says nothing of clean closes
    nothing = end_timeline([_info(0, None)])
    assert nothing == EndTimeline(0, 1, None, ())
    assert end_timeline_json(nothing) == {"ended": 0, "running": 1, "first": None, "groups": []}
