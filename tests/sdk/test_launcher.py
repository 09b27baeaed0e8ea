"""Rank, world size, role, job and attempt from every launcher's environment; explicit arguments win."""

from __future__ import annotations

import json

import pytest

from visualdl import LogReader, LogWriter
from visualdl.sdk._launcher import Placement, detect, resolve

CASES = {
    "torchrun": (
        {
            "RANK": "5",
            "LOCAL_RANK": "1",
            "WORLD_SIZE": "8",
            "LOCAL_WORLD_SIZE": "2",
            "TORCHELASTIC_RUN_ID": "job-42",
            "TORCHELASTIC_RESTART_COUNT": "2",
            "MASTER_ADDR": "10.0.0.1",
        },
        Placement(5, 8, 1, "trainer", "job-42", 2, "torchrun"),
    ),
    "paddle-collective": (
        {"PADDLE_TRAINER_ID": "3", "PADDLE_TRAINERS_NUM": "4", "PADDLE_LOCAL_RANK": "1", "PADDLE_JOB_ID": "j7"},
        Placement(3, 4, 1, "trainer", "j7", -1, "paddle"),
    ),
    "paddle-ps-trainer": (
        {
            "TRAINING_ROLE": "TRAINER",
            "PADDLE_TRAINER_ID": "1",
            "PADDLE_TRAINERS_NUM": "2",
            "PADDLE_PSERVERS_IP_PORT_LIST": "10.0.0.1:6170,10.0.0.2:6170",
        },
        Placement(1, 2, -1, "trainer", "", -1, "paddle"),
    ),
    "paddle-ps-pserver": (
        {
            "TRAINING_ROLE": "PSERVER",
            "PADDLE_PSERVERS_IP_PORT_LIST": "10.0.0.1:6170,10.0.0.2:6170,10.0.0.3:6170",
            "POD_IP": "10.0.0.2",
            "PADDLE_PORT": "6170",
            "PADDLE_TRAINERS_NUM": "4",
        },
        Placement(1, 3, -1, "pserver", "", -1, "paddle"),
    ),
    "paddle-global-rank": (
        {"PADDLE_GLOBAL_RANK": "6", "PADDLE_GLOBAL_SIZE": "16"},
        Placement(6, 16, -1, "trainer", "", -1, "paddle"),
    ),
    "paddle-v1-trainer": (
        {"PADDLE_INIT_TRAINER_ID": "2", "PADDLE_INIT_NUM_GRADIENT_SERVERS": "3", "TRAINING_ROLE": "TRAINER"},
        Placement(2, 3, -1, "trainer", "", -1, "paddle-v1"),
    ),
    "tf-worker": (
        {
            "TF_CONFIG": json.dumps(
                {
                    "cluster": {"chief": ["c:1"], "worker": ["w0:1", "w1:1", "w2:1"], "ps": ["p:1"]},
                    "task": {"type": "worker", "index": 2},
                }
            )
        },
        Placement(2, 3, -1, "worker", "", -1, "tf_config"),
    ),
    "tf-ps": (
        {"TF_CONFIG": json.dumps({"cluster": {"ps": ["p0:1", "p1:1"]}, "task": {"type": "ps", "index": 1}})},
        Placement(1, 2, -1, "pserver", "", -1, "tf_config"),
    ),
    "horovod": (
        {"HOROVOD_RANK": "7", "HOROVOD_SIZE": "16", "HOROVOD_LOCAL_RANK": "3"},
        Placement(7, 16, 3, "trainer", "", -1, "horovod"),
    ),
    "openmpi": (
        {"OMPI_COMM_WORLD_RANK": "9", "OMPI_COMM_WORLD_SIZE": "12", "OMPI_COMM_WORLD_LOCAL_RANK": "1"},
        Placement(9, 12, 1, "trainer", "", -1, "openmpi"),
    ),
    "mpich": ({"PMI_RANK": "4", "PMI_SIZE": "6"}, Placement(4, 6, -1, "trainer", "", -1, "pmi")),
    "pmix": ({"PMIX_RANK": "2", "PMI_SIZE": "3"}, Placement(2, 3, -1, "trainer", "", -1, "pmi")),
    "slurm": (
        {
            "SLURM_PROCID": "11",
            "SLURM_NTASKS": "32",
            "SLURM_LOCALID": "3",
            "SLURM_JOB_ID": "9001",
            "SLURM_RESTART_COUNT": "1",
        },
        Placement(11, 32, 3, "trainer", "9001", 1, "slurm"),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_launcher_detects(name):
    env, expected = CASES[name]
    assert detect(env) == expected


def test_launcher_nothing_detected_outside_a_launcher():
    assert detect({"HOME": "/root", "PATH": "/usr/bin"}) == Placement()


def test_launcher_torchrun_wins_over_slurm_it_runs_under():
    env = {**CASES["slurm"][0], **CASES["torchrun"][0]}
    assert detect(env).launcher == "torchrun"


def test_launcher_malformed_values_are_ignored_not_raised(caplog):
    assert detect({"HOROVOD_RANK": "x", "HOROVOD_SIZE": "4"}).rank == -1
    assert "HOROVOD_RANK" in caplog.text
    assert detect({"TF_CONFIG": "{not json"}) == Placement()
    assert "TF_CONFIG" in caplog.text


def test_launcher_explicit_arguments_win():
    env = CASES["torchrun"][0]
    got = resolve(env, rank=0, world_size=2, role="PSERVER", job="mine", attempt=0)
    assert got == Placement(0, 2, 1, "pserver", "mine", 0, "torchrun")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rank": -1}, "rank must be a non-negative integer"),
        ({"rank": 1.5}, "rank must be a non-negative integer"),
        ({"world_size": 0}, "world_size must be at least 1"),
        ({"attempt": True}, "attempt must be a non-negative integer"),
    ],
)
def test_launcher_bad_explicit_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        resolve({}, **kwargs)


def test_launcher_placement_reaches_the_file_header(tmp_path, monkeypatch):
    for key, value in CASES["paddle-ps-pserver"][0].items():
        monkeypatch.setenv(key, value)
    with LogWriter(tmp_path / "job", job="ctr") as w:
        w.add_scalar("updates", 1.0, 0)
    with LogWriter(tmp_path / "job", rank=3, world_size=4, role="trainer", attempt=1) as w:
        w.add_scalar("loss", 1.0, 0)
    infos = sorted(LogReader(tmp_path).writers("job"), key=lambda i: i.role)
    assert [(i.role, i.rank, i.world_size, i.job, i.attempt) for i in infos] == [
        ("pserver", 1, 3, "ctr", -1),
        ("trainer", 3, 4, "", 1),
    ]
