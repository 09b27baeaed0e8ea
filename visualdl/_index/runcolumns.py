"""What a runs query (:mod:`visualdl._index.runquery`) is evaluated over: the runs as columns.

A :class:`Column` is one field over the runs, numbers and texts apart (booleans are both),
with its distinct texts worked out once (what text comparisons and regular expressions run
over, however many runs share a text) and a bounded memo of what queries found in them; a
:class:`RunTable` names the runs and the columns a query's fields may name: its own columns
(``name``, ``status``, ...), ``hparams.X`` or ``X``, and a tag's ``last``/``min``/``max``
from a callable asked only for the fields a query names.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["REMEMBERED_BYTES", "REMEMBERED_PATTERNS", "Column", "RunTable", "column_of"]


@dataclass(frozen=True, slots=True)
class Column:
    """One field over the runs: ``numbers`` (float; booleans as 1 and 0) where ``is_number``,
    ``texts`` (str; booleans as "true"/"false") where ``is_text``; neither: the run lacks it."""

    numbers: np.ndarray  # float64
    is_number: np.ndarray  # bool
    texts: np.ndarray  # object (str or None)
    is_text: np.ndarray  # bool
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def text_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """``(distinct, codes)``: the distinct texts in code point order (an object array) and
        each run's index among them (-1: the run has no text here); worked out once."""
        found = self.memo.get("codes")
        if found is None:
            codes = np.full(self.is_text.size, -1, np.intp)
            texts = self.texts[self.is_text]
            distinct = np.empty(0, object)
            if texts.size:
                distinct, inverse = np.unique(texts, return_inverse=True)
                codes[self.is_text] = inverse.ravel()
            found = self.memo.setdefault("codes", (distinct, codes))
        return found  # type: ignore[no-any-return]

    def remembers(self, pattern: str) -> bool:
        """Whether :meth:`found_in_texts` remembers ``pattern``'s answer over this column's
        distinct texts (then matching it costs nothing). Only a hint: by the time it is asked
        for, the answer may have been forgotten, and is then worked out again."""
        size = self.text_codes()[0].size
        with _MEMO_LOCK:
            bits = self.memo.get("found", {}).get(pattern)
        return bits is not None and bits.size == (size + 7) // 8

    def found_in_texts(
        self, patterns: Sequence[str], search: Callable[[list[str]], np.ndarray]
    ) -> dict[str, np.ndarray]:
        """For each regular expression of ``patterns``, whether it is found in each distinct
        text (:meth:`text_codes`); ``search(missing)`` answers those not remembered (a bool
        row per pattern). The answers of the last :data:`REMEMBERED_PATTERNS` are kept, a bit
        per distinct text, at most :data:`REMEMBERED_BYTES` of them."""
        size = self.text_codes()[0].size
        with _MEMO_LOCK:
            remembered: OrderedDict[str, np.ndarray] = self.memo.setdefault("found", OrderedDict())
            packed = {p: remembered[p] for p in patterns if p in remembered}
            for p in packed:
                remembered.move_to_end(p)
        out = {p: np.unpackbits(bits, count=size).astype(bool) for p, bits in packed.items()}
        missing = [p for p in dict.fromkeys(patterns) if p not in out]
        if missing:
            rows = search(missing)
            bits = np.packbits(rows, axis=1)
            with _MEMO_LOCK:
                for i, p in enumerate(missing):
                    out[p] = rows[i]
                    remembered[p] = bits[i].copy()  # its own bytes: the rest of the rows can go
                while len(remembered) > REMEMBERED_PATTERNS or (
                    len(remembered) > 1 and len(remembered) * bits.shape[1] > REMEMBERED_BYTES
                ):
                    remembered.popitem(last=False)
        return out


#: What a column remembers of the regular expressions run over its texts: this many patterns'
#: answers, at most this many bytes of them (a bit per distinct text and pattern: 256 patterns
#: over 30,000 distinct names are 0.96 MB).
REMEMBERED_PATTERNS = 256
REMEMBERED_BYTES = 1 << 20
_MEMO_LOCK = threading.Lock()


_NUMBER_TYPES = frozenset((int, float))
_TEXT_TYPES = frozenset((str,))
_NONE = type(None)


def column_of(values: Sequence[object]) -> Column:
    """A column from one value per run (None: missing; bool, int, float, str as they are).
    A column of numbers or of texts, with or without missing values, is built by numpy; a
    mixed one run by run."""
    n = len(values)
    numbers = np.full(n, np.nan)
    is_number = np.zeros(n, bool)
    texts = np.empty(n, object)
    is_text = np.zeros(n, bool)
    types = set(map(type, values))
    present = types - {_NONE}
    if present <= _NUMBER_TYPES or present <= _TEXT_TYPES:
        boxed = np.empty(n, object)
        boxed[:] = values
        known = boxed != None  # noqa: E711 - elementwise, in C
        if present and present <= _NUMBER_TYPES:
            numbers[known] = boxed[known].astype(float)
            is_number = known
        elif present:
            texts[known] = boxed[known]
            is_text = known
        return Column(numbers, is_number, texts, is_text)
    for i, v in enumerate(values):  # a mixed column: once per run and field, when the table is built
        if v is None:
            continue
        if isinstance(v, bool):
            numbers[i], is_number[i] = float(v), True
            texts[i], is_text[i] = "true" if v else "false", True
        elif isinstance(v, int | float | np.integer | np.floating):
            numbers[i], is_number[i] = float(v), True
        else:
            texts[i], is_text[i] = str(v), True
    return Column(numbers, is_number, texts, is_text)


class RunTable:
    """The runs a query selects from: their ``names`` and the columns a field may name.

    ``columns``: fields by name (``name`` is added); ``hparams``: each hparam's column;
    ``metrics``: a callable giving the column of ``(tag, summary)`` (``summary`` one of
    last, min, max) or None when no run logged the tag, asked only for the fields a query names."""

    SUMMARIES = ("last", "min", "max")

    def __init__(
        self,
        names: Sequence[str],
        columns: Mapping[str, Column] | None = None,
        hparams: Mapping[str, Column] | None = None,
        metrics: object = None,
    ) -> None:
        self.names = list(names)
        self.columns = {"name": column_of(self.names), **(columns or {})}
        self.hparams = dict(hparams or {})
        self._metrics = metrics

    def __len__(self) -> int:
        return len(self.names)

    def field(self, name: str) -> Column | None:
        """The column ``name`` names (see the module docstring), None when none."""
        if name in self.columns:
            return self.columns[name]
        if name.startswith("hparams.") and name[8:] in self.hparams:
            return self.hparams[name[8:]]
        if name in self.hparams:
            return self.hparams[name]
        stem, dot, summary = name.rpartition(".")
        if dot and summary in self.SUMMARIES and callable(self._metrics):
            found = self._metrics(stem, summary)
            if found is not None:
                assert isinstance(found, Column)
                return found
        return None

    def known_fields(self) -> list[str]:
        return [*self.columns, *self.hparams]

    def fields_hint(self) -> str:
        """What a field may name here, for an error about one that names nothing."""
        return f"fields: {', '.join(self.known_fields()[:12])}; a tag's summary: TAG.last, TAG.min, TAG.max"
