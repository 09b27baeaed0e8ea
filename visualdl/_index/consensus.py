"""Whether the ranks of a job agree on a tag, step by step, compared as the points are stored. Pure.

Tags that every rank logs with the same value (an all-reduced loss, a gradient norm, a
parameter checksum) disagree from the step where a rank went its own way. A
:class:`Consensus` is kept per run, role and tag, over the files of ranked writers, and
fed each block of points the index stores (one rank's points of the tag, a few numpy
calls per block, never a read of a series):

* the first rank to log a step gives the step its *reference* value; each later point of
  that step is compared with it, and with the step's *alternative* (the first value that
  differed from the reference), in a vectorised pass over the block;
* per step the index keeps the two values, how many points matched each, how many matched
  neither, and the first rank of each group: 48 bytes per distinct step, however many
  ranks (10,000 ranks x 20 tags x 500 steps: 480 KB per run);
* at most :data:`MAX_STEPS` steps per role and tag: past them a tag is compared on a
  sample of its steps, those whose hash (a multiplicative hash of the step) has its top
  ``level`` bits zero, ``level`` growing by one (the sample halving) each time the steps
  kept would pass the bound. The sample is the same whatever the order the points come in
  and whatever the steps' pattern (every 10th, odd ones), so memory stays bounded however
  long the run, and a divergence that lasts (a rank that went wrong stays wrong) is found
  within about ``2 ** level`` steps of where it began;
* two values agree when they are equal (NaN with NaN, an infinity with itself) or within
  :data:`TOLERANCE` of each other, relative to the larger magnitude.

A point counts each time it is stored: a restarted rank's replayed steps count again (in
the group of its new value). :meth:`Consensus.summary` tells whether the tag looks
replicated (:data:`MIN_COMPARED` steps compared, on more than half of them a value held
by more than half of their points, and parted for good once parted: see
:meth:`Consensus.looks_replicated`) and its first step of disagreement.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["MAX_STEPS", "MIN_COMPARED", "TOLERANCE", "Consensus", "Split", "agree"]

#: Relative difference up to which two values are the same value.
TOLERANCE = 1e-6
#: Steps logged by at least two points a tag needs before it can be found replicated.
MIN_COMPARED = 5
#: Steps a :class:`Consensus` keeps at most (72 MiB at most with its spare capacity); past
#: them it keeps a sample (see the module docstring).
MAX_STEPS = 1 << 20
#: The multiplier of the steps' hash (2^64 over the golden ratio, odd): consecutive steps
#: spread over the whole range, so its top bits sample any pattern of steps evenly.
_HASH = np.uint64(0x9E3779B97F4A7C15)

_FIELDS = ("steps", "ref", "alt", "n_ref", "n_alt", "n_other", "ref_rank", "alt_rank", "other_rank")
_DTYPES = (np.int64, np.float64, np.float64, np.int32, np.int32, np.int32, np.int32, np.int32, np.int32)


def agree(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise: ``a`` and ``b`` are the same value (see the module docstring)."""
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(a - b)
        close = (diff <= TOLERANCE * np.maximum(np.abs(a), np.abs(b))) & np.isfinite(diff)  # inf is near no number
    same: np.ndarray = (a == b) | close | (np.isnan(a) & np.isnan(b))
    return same


@dataclass(frozen=True, slots=True)
class Split:
    """The first step where the points of a tag disagree, as the counts of its groups say."""

    step: int
    points: int  # points logged at the step
    majority: float  # the value most points held (on a tie: the group of the lowest first rank)
    majority_points: int
    #: The one rank outside the majority, when exactly one point was (else None: read them).
    lone_rank: int | None


class Consensus:
    """The per-step comparison of one run's role's tag (see the module docstring)."""

    __slots__ = (
        "n", "level", "steps", "ref", "alt", "n_ref", "n_alt", "n_other", "ref_rank", "alt_rank", "other_rank",
    )  # fmt: skip

    def __init__(self) -> None:
        self.n = 0  # steps held; each column's first n entries, by step
        self.level = 0  # the steps held are those whose hash has this many top bits zero
        self.steps = np.empty(0, np.int64)
        self.ref = np.empty(0)  # the first value logged at the step
        self.alt = np.empty(0)  # the first value that differed from it
        self.n_ref = np.empty(0, np.int32)  # points that held each, and neither
        self.n_alt = np.empty(0, np.int32)
        self.n_other = np.empty(0, np.int32)
        self.ref_rank = np.empty(0, np.int32)  # the first rank of each group
        self.alt_rank = np.empty(0, np.int32)
        self.other_rank = np.empty(0, np.int32)

    @property
    def nbytes(self) -> int:
        return sum(getattr(self, name).nbytes for name in _FIELDS)

    def add(self, rank: int, steps: np.ndarray, values: np.ndarray) -> None:
        """Compare one rank's block of points with what the other ranks logged; its new steps
        take its values as their reference."""
        if not steps.size:
            return
        values = np.asarray(values, np.float64)
        if steps.size > 1 and not (steps[1:] > steps[:-1]).all():  # out of order, or a step twice
            order = np.argsort(steps, kind="stable")
            steps, values = steps[order], values[order]
            last = np.ones(steps.size, bool)  # a step twice in a block: its last point
            last[:-1] = steps[1:] != steps[:-1]
            steps, values = steps[last], values[last]
        if self.level:
            kept = self._sampled(steps, self.level)
            steps, values = steps[kept], values[kept]
            if not steps.size:
                return
        n = self.n
        if n and steps.size <= n and steps[0] == self.steps[0] and steps[-1] == self.steps[steps.size - 1]:
            if np.array_equal(steps, self.steps[: steps.size]):  # the common case: the same steps as the first rank
                self._compare(rank, np.arange(steps.size), values)
                return
        pos = np.searchsorted(self.steps[:n], steps)
        known = pos < n
        known[known] = self.steps[pos[known]] == steps[known]
        if known.any():
            self._compare(rank, pos[known], values[known])
        if not known.all():
            self._insert(rank, steps[~known], values[~known])

    def _compare(self, rank: int, at: np.ndarray, values: np.ndarray) -> None:
        ref = self.ref[at]
        same_ref = values == ref
        if same_ref.all():  # the common case of a replicated tag: no other comparison
            self.n_ref[at] += 1
            return
        same_ref |= agree(values, ref)
        has_alt = self.n_alt[at] > 0
        same_alt = ~same_ref & has_alt & agree(values, self.alt[at])
        new_alt = ~same_ref & ~has_alt
        other = ~same_ref & has_alt & ~same_alt
        self.n_ref[at[same_ref]] += 1
        self.n_alt[at[same_alt]] += 1
        first_alt = at[new_alt]
        self.alt[first_alt] = values[new_alt]
        self.alt_rank[first_alt] = rank
        self.n_alt[first_alt] = 1
        others = at[other]
        self.other_rank[others[self.n_other[others] == 0]] = rank
        self.n_other[others] += 1

    @staticmethod
    def _sampled(steps: np.ndarray, level: int) -> np.ndarray:
        """Which of ``steps`` a consensus of ``level`` keeps (all of them at level 0)."""
        with np.errstate(over="ignore"):
            top = (steps.astype(np.uint64) * _HASH) >> np.uint64(64 - level)
        kept: np.ndarray = top == 0
        return kept

    def _thin(self, incoming: np.ndarray) -> np.ndarray:
        """Raise the level until the steps held and the ``incoming`` new ones kept fit in
        :data:`MAX_STEPS`, dropping the steps held that the new level does not keep; which
        of ``incoming`` to insert."""
        take = np.ones(incoming.size, bool)
        while self.n + int(np.count_nonzero(take)) > MAX_STEPS and self.level < 64:
            self.level += 1
            n = self.n
            held = self._sampled(self.steps[:n], self.level)
            if not held.all():
                for name in _FIELDS:
                    column = getattr(self, name)
                    column[: int(np.count_nonzero(held))] = column[:n][held]
                self.n = int(np.count_nonzero(held))
            take = self._sampled(incoming, self.level)
        return take

    def _insert(self, rank: int, steps: np.ndarray, values: np.ndarray) -> None:
        if self.n + steps.size > MAX_STEPS:
            take = self._thin(steps)
            steps, values = steps[take], values[take]
            if not steps.size:
                return
        k = steps.size
        new = (
            steps,
            values,
            np.zeros(k),
            np.ones(k),
            np.zeros(k),
            np.zeros(k),
            np.full(k, rank),
            np.full(k, -1),
            np.full(k, -1),
        )
        n = self.n
        if n == 0 or steps[0] > self.steps[n - 1]:  # appended: amortised, into spare capacity
            if n + k > self.steps.size:
                capacity = max(64, n + k, min((n * 3) // 2, MAX_STEPS))
                for name in _FIELDS:
                    old = getattr(self, name)
                    grown = np.empty(capacity, old.dtype)
                    grown[:n] = old[:n]
                    setattr(self, name, grown)
            for name, column in zip(_FIELDS, new, strict=True):
                getattr(self, name)[n : n + k] = column
        else:  # steps before the last one: merged in, the columns rebuilt (rare: a late rank's file)
            order = np.argsort(np.concatenate([self.steps[:n], steps]), kind="stable")
            for name, dtype, column in zip(_FIELDS, _DTYPES, new, strict=True):
                both = np.concatenate([getattr(self, name)[:n], np.asarray(column, dtype)])
                setattr(self, name, both[order])
        self.n = n + k

    def summary(self) -> tuple[int, int, Split | None]:
        """``(compared, agreeing, split)``: the steps with two points or more, those of them
        where more than half the points held one value, and the first step where not all
        points agreed (None: none)."""
        n = self.n
        n_ref, n_alt, n_other = self.n_ref[:n], self.n_alt[:n], self.n_other[:n]
        total = n_ref + n_alt + n_other
        compared = total >= 2
        top = np.maximum(n_ref, n_alt)
        agreeing = int(np.count_nonzero(compared & (2 * top > total)))
        split_at = np.flatnonzero(compared & ((n_alt > 0) | (n_other > 0)))
        split = None
        if split_at.size:
            i = int(split_at[0])
            # On a tie, the group whose first rank is the lowest: the same answer whatever the
            # order the files were read in (with two ranks, rank 0 is taken as right).
            ref_wins = bool(n_ref[i] > n_alt[i] or (n_ref[i] == n_alt[i] and self.ref_rank[i] <= self.alt_rank[i]))
            lone = None
            if int(total[i] - top[i]) == 1:
                if ref_wins:
                    lone = int(self.alt_rank[i] if n_alt[i] == 1 else self.other_rank[i])
                elif n_ref[i] == 1:
                    lone = int(self.ref_rank[i])
                else:
                    lone = int(self.other_rank[i])
            split = Split(
                int(self.steps[i]),
                int(total[i]),
                float(self.ref[i] if ref_wins else self.alt[i]),
                int(top[i]),
                lone,
            )
        return int(np.count_nonzero(compared)), agreeing, split

    def looks_replicated(self) -> bool:
        """At least :data:`MIN_COMPARED` steps compared, on most of them a majority value, and
        the ranks, once parted, stay parted: on at least half the compared steps from the
        first split on, not every point agrees. A tag whose ranks differ now and then and
        agree again (a pserver's staleness, a count that is often equal by chance) is equal
        by coincidence, not by construction; a replicated value that went wrong stays wrong
        (a declared tag is compared whatever its history)."""
        compared, agreeing, split = self.summary()
        if compared < MIN_COMPARED or 2 * agreeing <= compared:
            return False
        if split is None:
            return True
        n = self.n
        total = self.n_ref[:n] + self.n_alt[:n] + self.n_other[:n]
        after = (total >= 2) & (self.steps[:n] >= split.step)
        parted = after & ((self.n_alt[:n] > 0) | (self.n_other[:n] > 0))
        return 2 * int(np.count_nonzero(parted)) >= int(np.count_nonzero(after))
