"""Where a writer's process came from: its command line, interpreter, working directory,
the git state of its code and the versions of the key packages it imported.

Built on the writer's background thread, never the training thread (the dirty flag runs
``git status``), once per process and kept: every writer of a process has the same. The
commit and the branch are read from the repository's files (``HEAD``, the ref, or
``packed-refs``), so a machine without git still records them; the dirty flag needs git and
is left unknown when git is missing, fails, or takes more than :data:`GIT_TIMEOUT` seconds
(then git and whatever it started are killed).

No lock is held while it is built (``git status`` takes seconds in a large repository): the
first writer's thread builds it and publishes it under the lock, the other writers' threads
wait for it. A process forked meanwhile (a fork-based ``multiprocessing.Pool`` or DataLoader
started right after the writer) has no thread building it: it starts afresh, with a lock of
its own, and builds its own when its first writer asks.
"""

from __future__ import annotations

import os
import platform
import signal
import subprocess
import sys
import threading
import time

from visualdl.proto import pb

__all__ = ["GIT_TIMEOUT", "KEY_PACKAGES", "git_state", "provenance", "provenance_record"]

#: Seconds ``git status`` may take before the dirty flag is left unknown.
GIT_TIMEOUT = 5.0
#: The packages whose versions are recorded when the process has imported them (by module).
KEY_PACKAGES = (
    "torch", "paddle", "tensorflow", "jax", "flax", "keras", "numpy", "transformers", "lightning",
    "pytorch_lightning", "accelerate", "deepspeed", "visualdl",
)  # fmt: skip

_lock = threading.Lock()  # guards the two below, never held while building
_cached: tuple[pb.Provenance, int] | None = None  # and the pid it was built in
_building: tuple[threading.Event, int] | None = None  # set when the one being built is published


def provenance() -> pb.Provenance:
    """This process's provenance (see the module docstring); ``wall_time`` is now. A forked
    child builds its own (its own package list) when its first writer asks."""
    global _cached, _building
    pid = os.getpid()
    while True:
        with _lock:
            if _cached is not None and _cached[1] == pid:
                built = _cached[0]
                break
            other = _building[0] if _building is not None and _building[1] == pid else None
            if other is None:
                done = threading.Event()
                _building = (done, pid)
        if other is not None:
            other.wait()  # another thread builds it; no lock is held meanwhile
            continue
        try:
            built = _build()  # outside the lock: git status takes seconds
            with _lock:
                _cached = (built, pid)
        finally:
            with _lock:
                if _building is not None and _building[0] is done:
                    _building = None
            done.set()
        break
    out = pb.Provenance()
    out.CopyFrom(built)
    out.wall_time = time.time()
    return out


def provenance_record() -> pb.Record:
    """:func:`provenance` as the record a writer's background thread writes."""
    return pb.Record(provenance=provenance())


def _build() -> pb.Provenance:
    out = pb.Provenance(
        argv=[str(a) for a in sys.argv],
        executable=sys.executable or "",
        cwd=_cwd(),
        python=f"{platform.python_version()} ({platform.python_implementation()})",
    )
    for name in KEY_PACKAGES:
        module = sys.modules.get(name)
        version = getattr(module, "__version__", None) if module is not None else None
        if isinstance(version, str) and version:
            out.packages[name] = version
    commit, branch, dirty = git_state(_code_dir())
    out.git_commit, out.git_branch = commit, branch
    if dirty is not None:
        out.git_dirty = dirty
    return out


def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError:  # the working directory was removed
        return ""


def _code_dir() -> str:
    """The directory of the script being run, else the working directory."""
    script = sys.argv[0] if sys.argv else ""
    if script and script not in ("-c", "-m") and os.path.isfile(script):
        return os.path.dirname(os.path.abspath(script))
    return _cwd()


def git_state(start: str) -> tuple[str, str, bool | None]:
    """``(commit, branch, dirty)`` of the git work tree holding ``start``: ``("", "", None)``
    outside one; ``branch`` "" when HEAD is detached; ``dirty`` None when unknown."""
    if not start:
        return "", "", None
    top, git_dir = _find_repo(start)
    if not git_dir:
        return "", "", None
    commit, branch = _head(git_dir)
    if not commit:
        return "", "", None  # a repository without a commit yet, or one we cannot read
    return commit, branch, _dirty(top)


def _find_repo(start: str) -> tuple[str, str]:
    """The work tree's top and its git directory (following a ``.git`` file of a worktree or
    a submodule); ``("", "")`` when ``start`` is in none."""
    here = os.path.abspath(start)
    while True:
        dot = os.path.join(here, ".git")
        if os.path.isdir(dot):
            return here, dot
        if os.path.isfile(dot):
            try:
                with open(dot, encoding="utf-8") as f:
                    line = f.readline().strip()
            except (OSError, UnicodeDecodeError):
                return "", ""
            if line.startswith("gitdir:"):
                target = line[7:].strip()
                return here, os.path.normpath(os.path.join(here, target))
            return "", ""
        parent = os.path.dirname(here)
        if parent == here:
            return "", ""
        here = parent


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except (OSError, UnicodeDecodeError):
        return ""


def _head(git_dir: str) -> tuple[str, str]:
    head = _read(os.path.join(git_dir, "HEAD"))
    if not head.startswith("ref:"):
        return (head if _is_sha(head) else ""), ""
    ref = head[4:].strip()
    branch = ref.removeprefix("refs/heads/")
    # A linked worktree keeps its HEAD in its own directory and the refs in the common one.
    common = _read(os.path.join(git_dir, "commondir"))
    roots = [git_dir] + ([os.path.normpath(os.path.join(git_dir, common))] if common else [])
    for root in roots:
        sha = _read(os.path.join(root, *ref.split("/")))
        if _is_sha(sha):
            return sha, branch
    for root in roots:
        for line in _read(os.path.join(root, "packed-refs")).splitlines():
            sha, _, name = line.partition(" ")
            if name == ref and _is_sha(sha):
                return sha, branch
    return "", branch


def _is_sha(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def _dirty(top: str) -> bool | None:
    try:
        git = subprocess.Popen(
            ["git", "-C", top, "status", "--porcelain", "--untracked-files=no"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},  # never take the index's lock
            start_new_session=True,  # its own process group: killed with what it started
        )
    except (OSError, subprocess.SubprocessError):
        return None
    try:
        out, _ = git.communicate(timeout=GIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        _kill_group(git)
        return None
    if git.returncode != 0:
        return None
    return bool(out.strip())


def _kill_group(git: subprocess.Popen[bytes]) -> None:
    """git and whatever it started (which would hold its output open) killed, and reaped."""
    try:
        os.killpg(git.pid, signal.SIGKILL)
    except OSError:
        git.kill()
    try:
        git.communicate(timeout=GIT_TIMEOUT)
    except subprocess.TimeoutExpired:  # a process of another group holds the pipe: let it be
        if git.stdout is not None:
            git.stdout.close()
        git.wait()


def _after_fork_in_child() -> None:
    """A forked child has no thread building the parent's provenance (nor holding its lock)."""
    global _lock, _building
    _lock = threading.Lock()
    _building = None


os.register_at_fork(after_in_child=_after_fork_in_child)
