"""The directory of the scratch file of scalar points comes from where the reader is made:
``LogReader(cache_dir=...)``, else ``$VISUALDL_CACHE_DIR``, else the system's temporary
directory. Inside the index it is passed down, never read from the environment."""

from __future__ import annotations

import os
import tempfile

import numpy as np

from visualdl import LogReader, LogWriter
from visualdl._index import polling
from visualdl._index.index import Index
from visualdl._index.series import CACHE_DIR_ENV, SpillFile


def _scratch(tmp_path, name: str) -> str:
    path = tmp_path / name
    path.mkdir()
    return str(path)


def _write(logdir: str, points: int = 10) -> None:
    with LogWriter(logdir) as w:
        for step in range(points):
            w.add_scalar("loss", float(step), step)


def test_cache_dir_of_the_reader_holds_its_scratch_file(logdir, tmp_path, monkeypatch):
    _write(logdir)
    monkeypatch.setenv(CACHE_DIR_ENV, _scratch(tmp_path, "from-env"))
    given = _scratch(tmp_path, "given")
    reader = LogReader(logdir, cache_dir=given)
    assert reader._index._spill.directory == given  # the argument wins over the environment
    assert reader.scalars(".", "loss").values.tolist() == [float(s) for s in range(10)]


def test_cache_dir_by_default_is_the_environment_variable_then_the_temporary_directory(logdir, tmp_path, monkeypatch):
    _write(logdir)
    from_env = _scratch(tmp_path, "from-env")
    monkeypatch.setenv(CACHE_DIR_ENV, from_env)
    assert LogReader(logdir)._index._spill.directory == from_env
    monkeypatch.delenv(CACHE_DIR_ENV)
    assert LogReader(logdir)._index._spill.directory == tempfile.gettempdir()


def test_cache_dir_is_never_read_from_the_environment_inside_the_index(logdir, tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_DIR_ENV, _scratch(tmp_path, "from-env"))
    assert SpillFile().directory == tempfile.gettempdir()
    assert Index(logdir)._spill.directory == tempfile.gettempdir()
    given = _scratch(tmp_path, "given")
    assert SpillFile(given).directory == given
    assert Index(logdir, cache_dir=given)._spill.directory == given


def test_cache_dir_holds_the_rewritten_scratch_file_too(logdir, tmp_path, monkeypatch):
    monkeypatch.setattr(polling, "SPILL_GARBAGE_BYTES", 4096)
    given = _scratch(tmp_path, "given")
    w = LogWriter(logdir)
    reader = LogReader(logdir, cache_dir=given)
    first = reader._index._spill
    for poll in range(60):
        for step in range(poll * 7, poll * 7 + 7):
            w.add_scalar("loss", np.sin(step), step)
        w.flush()
        reader.poll()
    w.close()
    assert reader._index._spill is not first  # rewritten at least once, in the same directory
    assert reader._index._spill.directory == given
    assert len(reader.scalars(".", "loss")) == 60 * 7
    assert os.listdir(given) == []  # created unlinked: nothing left behind
