"""A logdir whose poll fails, whatever the reason, is a problem of that logdir in
``/api/health``: the next logdir is polled, and the first poll ends (health stops saying
"loading")."""

from __future__ import annotations

from visualdl import LogWriter
from visualdl._index.index import Index
from visualdl.server._provider import DataProvider
from visualdl.server._settings import Settings


def test_server_logdir_whose_poll_raises_does_not_stop_the_next(tmp_path, monkeypatch):
    first, second = tmp_path / "first", tmp_path / "second"
    for logdir in (first, second):
        with LogWriter(logdir / "run") as w:
            w.add_scalar("loss", 1.0, 0)
    real = Index.poll

    def poll(self, *args, **kwargs):
        if self.logdir == str(first):
            raise RuntimeError("a fault of the index")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Index, "poll", poll)
    provider = DataProvider(Settings(logdirs=(("first", str(first)), ("second", str(second))), background=False))
    provider.poll()  # raised before: the second logdir was never read
    assert provider.counters.loaded.is_set()
    assert [r.name for r in provider.list_runs()] == ["second/run"]
    (problem,) = provider.read_health().problems
    assert (problem.logdir, problem.file, problem.offset) == ("first", ".", 0)
    assert (
        problem.message == "reading this logdir failed (RuntimeError: a fault of the index); the next poll tries again"
    )
    monkeypatch.setattr(Index, "poll", real)
    provider.poll()
    assert provider.read_health().problems == ()
    assert sorted(r.name for r in provider.list_runs()) == ["first/run", "second/run"]
