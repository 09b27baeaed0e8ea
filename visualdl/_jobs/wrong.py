"""The first rank to go wrong, in words: a job's first non-finite value and the first step
at which replicated ranks disagree (found as points are stored, :mod:`visualdl._index.wrong`).
Pure; the chart marks, the jobs page and ``--inspect`` say them alike."""

from __future__ import annotations

from visualdl._index.wrong import Divergence, FirstNonfinite

__all__ = ["divergence_text", "nonfinite_text", "rank_name"]


def rank_name(role: str, rank: int) -> str:
    """``trainer 3``; ``an unranked writer`` for a writer without a rank."""
    return f"{role or 'rank'} {rank}" if rank >= 0 else "an unranked writer"


def nonfinite_text(f: FirstNonfinite) -> str:
    """``first nan on trainer 3``."""
    return f"first {f.value} on {rank_name(f.role, f.rank)}"


def divergence_text(d: Divergence) -> str:
    """``ranks disagree from step 880 (trainer 7 of 8)``."""
    named = ", ".join(str(r) for r in d.ranks)
    more = f" and {d.minority - len(d.ranks)} more" if d.minority > len(d.ranks) else ""
    return f"ranks disagree from step {d.step:,} ({d.role or 'rank'} {named}{more} of {d.points})"
