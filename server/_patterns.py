"""Regular expressions that come from the logs (custom scalar layouts), matched in linear time.

A pattern written by a user's script is data, and Python's ``re`` backtracks: ``(a+)+$``
against 41 characters, or ``(.*)*_loss$`` against 27, runs for seconds to hours while
holding the GIL, which freezes every thread of the server (and its SIGTERM handler). RE2
(``google-re2``) matches in time linear in the text and bounds the memory of a compiled
pattern, so no pattern can do that.

RE2's syntax is Python's without backreferences (``\\1``), lookaround (``(?=``, ``(?!``,
``(?<=``, ``(?<!``) and ``\\Z`` (write ``\\z`` or ``$``); ``\\d``, ``\\w`` and ``\\s`` match
ASCII characters only, and ``$`` only the end of the tag (not before a final newline). A
pattern that uses what RE2 lacks, or that does not compile at all, is refused with
:class:`~visualdl.errors.CannotShow` naming the pattern and why; the caller shows it where
the pattern was written (a layout's chart), never as a failed request. Such patterns are
not run through Python's ``re`` instead: a match there cannot be bounded in a thread, only
in another process.
"""

from __future__ import annotations

import functools
from typing import Protocol

import re2

from visualdl.errors import CannotShow

__all__ = ["Pattern", "compile_pattern"]

#: Bytes the compiled program of one pattern may take (RE2's own default is 8 MiB).
MAX_PROGRAM_BYTES = 8 << 20
#: Characters of a pattern at most: a layout is written by hand.
MAX_PATTERN = 10_000


class Pattern(Protocol):
    def search(self, text: str) -> object: ...


def _options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # a refused pattern is reported by the caller, not on stderr
    options.max_mem = MAX_PROGRAM_BYTES
    return options


@functools.lru_cache(maxsize=1024)
def compile_pattern(pattern: str) -> Pattern:
    """``pattern`` compiled by RE2 (``search`` finds it anywhere in a text, as ``re.search``).

    Raises :class:`~visualdl.errors.CannotShow` when the pattern does not compile in RE2's
    syntax, naming it, RE2's reason, and what to change.
    """
    if len(pattern) > MAX_PATTERN:
        raise CannotShow(
            f"regular expression {pattern[:40]!r}... is {len(pattern):,} characters long; "
            f"write one of at most {MAX_PATTERN:,}"
        )
    try:
        compiled: Pattern = re2.compile(pattern, _options())
    except re2.error as e:
        reason = e.args[0].decode("utf-8", "replace") if e.args and isinstance(e.args[0], bytes) else str(e)
        raise CannotShow(
            f"regular expression {pattern!r} does not compile ({reason}); patterns are matched by RE2, "
            "which has no backreferences, lookaround or \\Z: rewrite it without them"
        ) from e
    return compiled
