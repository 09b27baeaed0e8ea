"""Where a writer's process came from: its command line, interpreter, working directory,
the git state of its code and the versions of the key packages it imported.

Built on the writer's background thread, never the training thread (the dirty flag runs
``git status``), once per process and kept: every writer of a process has the same. The
commit and the branch are read from the repository's files (``HEAD``, the ref, or
``packed-refs``), so a machine without git still records them; the dirty flag needs git and
is left unknown when git is missing, fails, or takes more than :data:`GIT_TIMEOUT` seconds.
"""

from __future__ import annotations

import os
import platform
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

_lock = threading.Lock()
_cached: tuple[pb.Provenance, int] | None = None  # and the pid it was built in


def provenance() -> pb.Provenance:
    """This process's provenance (see the module docstring); ``wall_time`` is now. A forked
    child keeps its parent's (same code, same command line) but its own package list."""
    global _cached
    with _lock:
        if _cached is None or _cached[1] != os.getpid():
            _cached = (_build(), os.getpid())
        out = pb.Provenance()
        out.CopyFrom(_cached[0])
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
        done = subprocess.run(
            ["git", "-C", top, "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},  # never take the index's lock
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return bool(done.stdout.strip())
