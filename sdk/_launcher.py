"""The process's place in a distributed job, read from the launcher's environment. Pure.

:func:`detect` looks at the environment variables of the launchers our users run
(checked in this order, the first that matches wins):

==============  ==========================================  ======================  ==================================
launcher        rank                                        world size              also
==============  ==========================================  ======================  ==================================
torchrun        ``RANK``, ``LOCAL_RANK``                    ``WORLD_SIZE``          ``TORCHELASTIC_RUN_ID`` (job),
                                                                                    ``TORCHELASTIC_RESTART_COUNT``,
                                                                                    ``ROLE_NAME``
paddle          ``PADDLE_TRAINER_ID`` / ``PADDLE_GLOBAL_    ``PADDLE_TRAINERS_NUM`` ``TRAINING_ROLE`` (TRAINER /
                RANK``, ``PADDLE_LOCAL_RANK``; a pserver's                          PSERVER / HETER_TRAINER); a
                rank is ``POD_IP:PADDLE_PORT``'s place in                           pserver's world size is the
                ``PADDLE_PSERVERS_IP_PORT_LIST``                                    pserver count; ``PADDLE_JOB_ID``
paddle-v1       ``PADDLE_INIT_TRAINER_ID``                  ``PADDLE_INIT_NUM_      ``TRAINING_ROLE``;
                                                            GRADIENT_SERVERS``      ``PADDLE_INIT_PSERVERS``
tf_config       ``TF_CONFIG`` ``task.index``                ``len(cluster[type])``  ``task.type`` -> role
horovod         ``HOROVOD_RANK``, ``HOROVOD_LOCAL_RANK``    ``HOROVOD_SIZE``
openmpi         ``OMPI_COMM_WORLD_RANK`` (``_LOCAL_RANK``)  ``OMPI_COMM_WORLD_SIZE``
pmi             ``PMI_RANK`` / ``PMIX_RANK``                ``PMI_SIZE``
slurm           ``SLURM_PROCID`` (``SLURM_LOCALID``)        ``SLURM_NTASKS``        ``SLURM_JOB_ID`` (job),
                                                                                    ``SLURM_RESTART_COUNT``
==============  ==========================================  ======================  ==================================

Roles are normalised to ``trainer``, ``pserver``, ``chief``, ``worker``, ``evaluator``
(data-parallel ranks of all-reduce launchers are trainers; TensorFlow's ``ps`` is a
pserver). Unknown numbers are -1 and unknown strings empty. Malformed values are ignored
(a warning names them): logging must never stop a training job.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

__all__ = ["ROLES", "Placement", "detect", "resolve"]

log = logging.getLogger("visualdl.launcher")

ROLES = ("trainer", "pserver", "chief", "worker", "evaluator")
_ROLE_ALIASES = {
    "ps": "pserver",
    "parameter_server": "pserver",
    "server": "pserver",
    "master": "chief",
    "heter_trainer": "trainer",
    "default": "trainer",
}


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a process sits in its job; -1 / "" where unknown."""

    rank: int = -1
    world_size: int = -1
    local_rank: int = -1
    role: str = ""
    job: str = ""
    attempt: int = -1
    launcher: str = ""


def normalize_role(role: str) -> str:
    """``"PSERVER"`` -> ``"pserver"``, ``"ps"`` -> ``"pserver"``; other names kept, lower-cased."""
    key = role.strip().lower()
    return _ROLE_ALIASES.get(key, key)


def _int(env: Mapping[str, str], name: str) -> int:
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return -1
    try:
        value = int(raw.strip())
    except ValueError:
        log.warning("ignoring %s=%r: not an integer", name, raw)
        return -1
    return value if value >= 0 else -1


def _first_int(env: Mapping[str, str], *names: str) -> int:
    for name in names:
        value = _int(env, name)
        if value >= 0:
            return value
    return -1


def _torchrun(env: Mapping[str, str]) -> Placement | None:
    if "RANK" not in env or not ("TORCHELASTIC_RUN_ID" in env or "LOCAL_RANK" in env or "MASTER_ADDR" in env):
        return None
    return Placement(
        rank=_int(env, "RANK"),
        world_size=_int(env, "WORLD_SIZE"),
        local_rank=_int(env, "LOCAL_RANK"),
        role=normalize_role(env.get("ROLE_NAME", "trainer")),
        job=env.get("TORCHELASTIC_RUN_ID", ""),
        attempt=_int(env, "TORCHELASTIC_RESTART_COUNT"),
        launcher="torchrun",
    )


def _paddle(env: Mapping[str, str]) -> Placement | None:
    role = normalize_role(env.get("TRAINING_ROLE", ""))
    new_api = any(k in env for k in ("PADDLE_TRAINER_ID", "PADDLE_GLOBAL_RANK", "PADDLE_PSERVERS_IP_PORT_LIST"))
    if not new_api and "PADDLE_INIT_TRAINER_ID" not in env:
        return None
    job = env.get("PADDLE_JOB_ID", "")
    if not new_api:
        # The old v1 API: PADDLE_INIT_* variables.
        pservers = [p for p in env.get("PADDLE_INIT_PSERVERS", "").split(",") if p.strip()]
        is_pserver = role == "pserver"
        return Placement(
            rank=-1 if is_pserver else _int(env, "PADDLE_INIT_TRAINER_ID"),
            world_size=(len(pservers) or -1) if is_pserver else _int(env, "PADDLE_INIT_NUM_GRADIENT_SERVERS"),
            role=role or "trainer",
            job=job,
            launcher="paddle-v1",
        )
    if role == "pserver":
        endpoints = [p.strip() for p in env.get("PADDLE_PSERVERS_IP_PORT_LIST", "").split(",") if p.strip()]
        me = f"{env.get('POD_IP', '').strip()}:{env.get('PADDLE_PORT', '').strip()}"
        rank = endpoints.index(me) if me in endpoints else -1
        if rank < 0 and endpoints:
            log.warning("pserver endpoint %r is not in PADDLE_PSERVERS_IP_PORT_LIST %r", me, endpoints)
        return Placement(rank=rank, world_size=len(endpoints) or -1, role="pserver", job=job, launcher="paddle")
    return Placement(
        rank=_first_int(env, "PADDLE_TRAINER_ID", "PADDLE_GLOBAL_RANK"),
        world_size=_first_int(env, "PADDLE_TRAINERS_NUM", "PADDLE_GLOBAL_SIZE"),
        local_rank=_int(env, "PADDLE_LOCAL_RANK"),
        role=role or "trainer",
        job=job,
        launcher="paddle",
    )


def _tf_config(env: Mapping[str, str]) -> Placement | None:
    raw = env.get("TF_CONFIG")
    if not raw:
        return None
    try:
        config = json.loads(raw)
        task = config.get("task") or {}
        task_type = str(task.get("type", ""))
        index = int(task.get("index", -1))
        members = (config.get("cluster") or {}).get(task_type, [])
        world = len(members) if isinstance(members, list) and members else -1
    except (ValueError, TypeError, AttributeError):
        log.warning("ignoring TF_CONFIG: not the JSON of a cluster and a task: %r", raw[:200])
        return None
    return Placement(rank=max(index, -1), world_size=world, role=normalize_role(task_type), launcher="tf_config")


def _simple(
    launcher: str, rank: str, size: str, local: str = "", job: str = "", attempt: str = ""
) -> Callable[[Mapping[str, str]], Placement | None]:
    def probe(env: Mapping[str, str]) -> Placement | None:
        if rank not in env:
            return None
        return Placement(
            rank=_int(env, rank),
            world_size=_int(env, size),
            local_rank=_int(env, local) if local else -1,
            role="trainer",
            job=env.get(job, "") if job else "",
            attempt=_int(env, attempt) if attempt else -1,
            launcher=launcher,
        )

    return probe


_PROBES = (
    _torchrun,
    _paddle,
    _tf_config,
    _simple("horovod", "HOROVOD_RANK", "HOROVOD_SIZE", "HOROVOD_LOCAL_RANK"),
    _simple("openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"),
    _simple("pmi", "PMI_RANK", "PMI_SIZE"),
    _simple("pmi", "PMIX_RANK", "PMI_SIZE"),
    _simple("slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_JOB_ID", "SLURM_RESTART_COUNT"),
)


def detect(env: Mapping[str, str]) -> Placement:
    """The placement the first matching launcher's variables give, or an empty one."""
    for probe in _PROBES:
        found = probe(env)
        if found is not None:
            return found
    return Placement()


def resolve(
    env: Mapping[str, str],
    *,
    rank: int | None = None,
    world_size: int | None = None,
    local_rank: int | None = None,
    role: str | None = None,
    job: str | None = None,
    attempt: int | None = None,
) -> Placement:
    """:func:`detect`, with every explicit argument winning over the environment.

    Raises ``TypeError``/``ValueError`` naming a bad explicit argument.
    """
    for name, value in (("rank", rank), ("world_size", world_size), ("local_rank", local_rank), ("attempt", attempt)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ValueError(f"{name} must be a non-negative integer or None; got {value!r}")
    if world_size is not None and world_size < 1:
        raise ValueError(f"world_size must be at least 1; got {world_size!r}")
    for name, text in (("role", role), ("job", job)):
        if text is not None and not isinstance(text, str):
            raise TypeError(f"{name} must be a string or None; got {type(text).__name__} {text!r}")
    found = detect(env)
    out = Placement(
        rank=found.rank if rank is None else rank,
        world_size=found.world_size if world_size is None else world_size,
        local_rank=found.local_rank if local_rank is None else local_rank,
        role=found.role if role is None else normalize_role(role),
        job=found.job if job is None else job,
        attempt=found.attempt if attempt is None else attempt,
        launcher=found.launcher,
    )
    if out.rank >= 0 and not out.role:
        out = replace(out, role="trainer")
    if out.rank >= 0 and out.world_size >= 0 and out.rank >= out.world_size:
        log.warning("rank %d is not below world_size %d", out.rank, out.world_size)
    return out
