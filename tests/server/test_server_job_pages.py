"""The job page cached per change of its run (``server/_views/jobpages.py``)."""

from __future__ import annotations

import numpy as np

from visualdl._index.writers import WriterInfo
from visualdl._kinds.table import ProcessEnd
from visualdl.server._views.jobpages import FRESH_SECS, JobPages


def _file(rank, *, closed):
    walls = np.array([100.0, 101.0])
    info = WriterInfo(
        path=f"/logs/job/t{rank}.vdlog", writer_id=str(rank), host="h", pid=rank, start_time=99.0,
        sdk_version="0", display_name="", rank=rank, world_size=2, local_rank=rank, role="trainer",
        job="job", attempt=0, launcher="", closed=closed, end_time=102.0 if closed else None,
        ended=ProcessEnd("closed", 102.0) if closed else None,
    )  # fmt: skip
    return (info, walls, np.array([1, 2]), 2, 1)


class _Provider:
    def __init__(self, files):
        self.files = files
        self.changes = 0
        self.reads = 0

    def run_version(self, *, run):
        return (0, self.changes)

    def read_job(self, *, run):
        self.reads += 1
        return self.files

    def list_system(self, *, run):
        return ()


def test_job_pages_a_finished_job_is_laid_out_once_per_change():
    provider = _Provider([_file(0, closed=True), _file(1, closed=True)])
    now = [1000.0]
    pages = JobPages(provider, clock=lambda: now[0])
    first, _ = pages.page("job")
    now[0] += 3600
    again, _ = pages.page("job")
    assert again is first and provider.reads == 1
    provider.changes += 1  # a file of the run was read further
    assert pages.page("job")[0] is not first and provider.reads == 2


def test_job_pages_a_live_job_is_never_staler_than_a_poll():
    provider = _Provider([_file(0, closed=True), _file(1, closed=False)])
    now = [101.5]
    pages = JobPages(provider, clock=lambda: now[0])
    first, _ = pages.page("job")
    assert [w["state"] for w in first["writers"]] == ["closed", "running"]
    now[0] += FRESH_SECS / 2
    assert pages.page("job")[0] is first
    now[0] += 120  # nothing read for two minutes: the running writer is silent now
    later, _ = pages.page("job")
    assert provider.reads == 2 and [w["state"] for w in later["writers"]] == ["closed", "silent"]


def test_job_pages_keep_what_is_built_from_a_page_until_it_changes():
    provider = _Provider([_file(0, closed=True), _file(1, closed=True)])
    pages = JobPages(provider, clock=lambda: 1000.0)
    built = []

    def build(page):
        built.append(len(page.writers))
        return len(built)

    assert pages.derived("job", "x", build) == 1
    assert pages.derived("job", "x", build) == 1 and built == [2]
    provider.changes += 1
    assert pages.derived("job", "x", build) == 2


def test_job_pages_keep_a_bounded_number_of_answers_per_page():
    from visualdl.server._views.jobpages import MAX_DERIVED

    provider = _Provider([_file(0, closed=True), _file(1, closed=True)])
    pages = JobPages(provider, clock=lambda: 1000.0)
    for i in range(MAX_DERIVED + 10):

        def build(page, i=i):
            return i

        assert pages.derived("job", f"q{i}", build) == i
    assert pages.derived("job", "q0", lambda page: "again") == "again"  # the oldest went first
    assert pages.derived("job", f"q{MAX_DERIVED + 9}", lambda page: "new") == MAX_DERIVED + 9  # the newest stayed
