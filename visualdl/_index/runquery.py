"""A small query language over runs: what the runs table's filter box, the URL, ``LogReader.runs(where=...)``
and the notebook select runs with. Pure: parsed by a grammar, never ``eval``.

    lr < 0.3 and opt == "adam" and eval/loss.min < 0.1 and name ~ "seed1\\d+"
    not (status in ["crashed", "killed"]) or hparams.batch >= 64

Grammar (lowest precedence first)::

    query      := or
    or         := and ("or" and)*
    and        := not ("and" not)*
    not        := "not" not | comparison
    comparison := "(" query ")" | field OP literal | field ["not"] "in" list
    OP         := == | != | < | <= | > | >= | ~ | !~        (~: a regex found in the text,
                  matched by RE2 in time linear in the text: no backreferences or lookaround)
    list       := "[" [literal ("," literal)*] "]"  (or parentheses)
    literal    := number | "string" | 'string' | true | false   (in a string, \" is a quote;
                  other backslashes stay as written, for regular expressions)
    field      := a name of letters, digits and _ . / - : (not starting with a digit or -),
                  or `any text` in backquotes

A field names, in this order: a column of the table the caller gives (``name``, ``status``,
``host``, ...); ``hparams.X`` or an hparam ``X``; ``TAG.last``, ``TAG.min``, ``TAG.max``
(a scalar tag's summary). Which names exist is the caller's table's business
(:class:`RunTable`); an unknown name is an error that points at it.

Values follow three-valued logic, as SQL's do: a run without the field (an hparam it does not
have, a metric it did not log) is *unknown* there, and so is a comparison of a number with a
text. ``not`` of unknown is unknown; ``false and unknown`` is false, ``true or unknown`` true;
a run is selected when the query is true. NaN is a value: ``x == x`` is false for it, as in
numpy, and ``x != x`` true. Numbers compare as numbers, texts as texts (``==``, ``!=``, order
by code point), booleans as 1 and 0 with numbers and as ``true``/``false`` with texts.
``x in [a, b]`` is ``x == a or x == b`` and ``x not in [a, b]`` is ``not (x in [a, b])``, that
is ``x != a and x != b``: a text is unknown against ``[32]`` as against ``== 32``, so
``x not in [32]`` selects numbers only (an empty list: false, where the run has the field).

What one query may cost is bounded, each bound a :class:`QueryError` at the character that
passes it: :data:`MAX_QUERY_CHARS`, :data:`MAX_TERMS` comparisons (a list is one),
:data:`MAX_DEPTH` levels of parentheses and ``not``, :data:`MAX_REGEX_SIZE` of regular
expressions (RE2's program size, each distinct pattern once), and :data:`MAX_WORK` over the
table it is evaluated on: each distinct comparison counts the table's runs, each distinct
regular expression :data:`MATCH_WORK` plus its program size per distinct text of its column.
A costly query (work above :data:`COSTLY_WORK`, less the regular expressions its columns remember
the answers of: asked again, a query is cheap) takes turns: at most :data:`COSTLY_AT_ONCE` are
evaluated at once in a process, and one that finds no turn within :data:`COSTLY_WAIT` seconds
is :class:`QueryBusy` (a server's 503), so that costly queries never hold every thread.

Every column is a numpy array of the runs, so a query costs a few array operations per
comparison, not a Python call per run. A chain of ``and`` or ``or`` is one node, evaluated
flat; a comparison written twice is evaluated once. Texts are compared through their column's
distinct values, and a regular expression is matched once per distinct text: all of one
column's at once, by RE2's multi-pattern matcher, and remembered by the column
(:meth:`Column.found_in_texts`), so a query asked again matches nothing.
"""

from __future__ import annotations

import contextlib
import itertools
import operator
import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import re2

from visualdl._index.runcolumns import Column, RunTable
from visualdl.errors import InvalidArgument, VisualDLError

__all__ = [
    "COSTLY_AT_ONCE",
    "COSTLY_WAIT",
    "COSTLY_WORK",
    "MAX_DEPTH",
    "MAX_QUERY_CHARS",
    "MAX_REGEX_SIZE",
    "MAX_TERMS",
    "MAX_WORK",
    "MATCH_WORK",
    "Query",
    "QueryBusy",
    "QueryError",
    "parse",
]

#: Longest query accepted, in characters (a URL parameter; a list of 1,000 run names fits).
MAX_QUERY_CHARS = 64 * 1024
#: Deepest nesting of parentheses and ``not``s.
MAX_DEPTH = 64
#: Most comparisons in one query (a list, however long, is one; a comparison written twice, two).
MAX_TERMS = 1000
#: Most RE2 program size (about an instruction per character matched) of a query's distinct
#: regular expressions together: what parsing one may compile.
MAX_REGEX_SIZE = 100_000
#: Most work a query may cost over a table, in units of about a nanosecond of one core at the
#: most: the table's runs per distinct comparison, and per distinct regular expression its
#: column's distinct texts times :data:`MATCH_WORK` plus its program size (a 200-term query of
#: small regular expressions over 30,000 run names: 1.6 billion, and about 0.1 s in fact).
MAX_WORK = 2_000_000_000
#: The work of matching one more pattern against one text beyond its size: what RE2's
#: multi-pattern matcher and gathering its answers cost at worst (every pattern matching).
MATCH_WORK = 250
#: The program size of a multi-pattern matcher (RE2's Set) at most: room to spare for its
#: automaton within its memory, so that it never fails (a larger pattern is matched alone).
_SET_SIZE = 20_000
#: And at most this many patterns: a matcher of many patterns may have many more states than
#: its memory holds, and then it builds them again and again.
_SET_PATTERNS = 32

#: A query whose work passes this (about a tenth of a second at the most) is costly: at most
#: COSTLY_AT_ONCE of them are evaluated at once in a process, each waiting at most COSTLY_WAIT
#: seconds for its turn, so that costly queries never hold every thread of a server (a cheap
#: one, any number of comparisons and a few regular expressions over 30,000 runs, never waits).
COSTLY_WORK = 100_000_000
COSTLY_AT_ONCE = 2
COSTLY_WAIT = 0.5
_COSTLY = threading.BoundedSemaphore(COSTLY_AT_ONCE)

Literal = float | str | bool


class QueryError(InvalidArgument):
    """A query that cannot be parsed, names what does not exist or costs more than its bounds;
    ``position`` is the offending character's index in the query (0-based)."""

    def __init__(self, message: str, query: str, position: int) -> None:
        self.position = position
        self.query = query
        self.reason = message
        super().__init__(f"{message}, at character {position + 1} of the query: {_pointed(query, position)}")


class QueryBusy(VisualDLError):
    """A costly query while :data:`COSTLY_AT_ONCE` others are evaluated (HTTP 503): ask again
    after :attr:`retry_after` seconds."""

    http_status = 503
    code = "busy"
    retry_after = 1


def _pointed(query: str, position: int) -> str:
    """The query around ``position`` with the character marked: ``lr <> 3`` -> ``lr <>>>here<<< 3``."""
    lo = max(0, position - 30)
    head = ("..." if lo else "") + query[lo:position]
    tail = query[position : position + 30] + ("..." if position + 30 < len(query) else "")
    return f"{head} >>> {tail}" if tail else f"{head} >>> (end)"


# -- tokens -------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<number>[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|inf|nan)(?![\w./:-]))
  | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<quoted>`[^`]*`)
  | (?P<op>==|!=|<=|>=|!~|<|>|~|=)
  | (?P<punct>[()\[\],])
  | (?P<word>[A-Za-z_][\w./:-]*)
    """,
    re.VERBOSE,
)
_KEYWORDS = {"and", "or", "not", "in", "true", "false"}


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # number string field op punct keyword end
    text: str
    position: int
    value: Literal | None = None


def _unquote(text: str) -> str:
    r"""A string literal's text: a backslash before its own quote character is that quote;
    every other backslash stays as written (regular expressions keep ``\d``, ``\.``)."""
    quote = text[0]
    return text[1:-1].replace("\\" + quote, quote)


def _tokens(query: str) -> list[_Token]:
    out = []
    at = 0
    while at < len(query):
        m = _TOKEN.match(query, at)
        if m is None:
            c = query[at]
            if c in "\"'":
                raise QueryError("a string without its closing quote", query, at)
            if c == "`":
                raise QueryError("a field name without its closing backquote", query, at)
            raise QueryError(f"unexpected character {c!r}", query, at)
        kind = m.lastgroup
        text = m.group()
        if kind == "number":
            out.append(_Token("number", text, at, float(text)))
        elif kind == "string":
            out.append(_Token("string", text, at, _unquote(text)))
        elif kind == "quoted":
            out.append(_Token("field", text[1:-1], at))
        elif kind == "op":
            if text == "=":
                raise QueryError("'=' is not a comparison; write '=='", query, at)
            out.append(_Token("op", text, at))
        elif kind == "punct":
            out.append(_Token("punct", text, at))
        elif kind == "word":
            if text in _KEYWORDS:
                out.append(_Token("keyword", text, at, {"true": True, "false": False}.get(text)))
            else:
                out.append(_Token("field", text, at))
        at = m.end()
    out.append(_Token("end", "", len(query)))
    return out


# -- syntax tree --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Compare:
    field: str
    op: str  # == != < <= > >= ~ !~ in
    value: Literal | tuple[Literal, ...]
    position: int  # of the field
    pattern: Any = None  # a compiled RE2 pattern (~ and !~)
    size: int = 0  # its RE2 program size
    at: int = 0  # where its value stands

    def key(self) -> tuple[Any, ...]:
        """What makes two comparisons the same one (``lr == 1`` written twice)."""
        values = self.value if isinstance(self.value, tuple) else (self.value,)
        return (self.field, self.op, tuple((type(v).__name__, repr(v)) for v in values))


@dataclass(frozen=True, slots=True)
class Not:
    operand: Node


@dataclass(frozen=True, slots=True)
class Chain:
    """``a and b and c``, or ``a or b or c``: one node however many operands (two or more)."""

    op: str  # and, or
    operands: tuple[Node, ...]


Node = Compare | Not | Chain


def _re2_options() -> Any:
    options = re2.Options()
    options.log_errors = False  # a refused pattern is the query's error, not stderr's
    options.max_mem = 8 << 20
    return options


class _Parser:
    def __init__(self, query: str) -> None:
        self.query = query
        self.tokens = _tokens(query)
        self.at = 0
        self.depth = 0
        self.terms: list[Compare] = []
        self.patterns: dict[str, Any] = {}  # each distinct regular expression compiled once
        self.regex_size = 0

    @property
    def token(self) -> _Token:
        return self.tokens[self.at]

    def take(self) -> _Token:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def error(self, message: str, token: _Token | None = None) -> QueryError:
        token = token or self.token
        return QueryError(message, self.query, token.position)

    def expect_keyword(self, word: str) -> bool:
        if self.token.kind == "keyword" and self.token.text == word:
            self.at += 1
            return True
        return False

    def parse(self) -> Node:
        if self.token.kind == "end":
            raise self.error("an empty query")
        node = self.or_()
        if self.token.kind != "end":
            what = f"{self.token.text!r}"
            raise self.error(f"expected 'and', 'or' or the end of the query, found {what}")
        return node

    def nested(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(f"nested deeper than {MAX_DEPTH} (parentheses and 'not's)")

    def or_(self) -> Node:
        operands = [self.and_()]
        while self.expect_keyword("or"):
            operands.append(self.and_())
        return operands[0] if len(operands) == 1 else Chain("or", tuple(operands))

    def and_(self) -> Node:
        operands = [self.not_()]
        while self.expect_keyword("and"):
            operands.append(self.not_())
        return operands[0] if len(operands) == 1 else Chain("and", tuple(operands))

    def not_(self) -> Node:
        nots = 0
        while self.expect_keyword("not"):  # "not not not x": a loop, each one nesting deeper
            self.nested()
            nots += 1
        node = self.comparison()
        self.depth -= nots
        for _ in range(nots):
            node = Not(node)
        return node

    def comparison(self) -> Node:
        token = self.token
        if token.kind == "punct" and token.text == "(":
            self.take()
            self.nested()
            inner = self.or_()
            self.depth -= 1
            if not (self.token.kind == "punct" and self.token.text == ")"):
                raise self.error(f"expected ')' closing the '(' of character {token.position + 1}")
            self.take()
            return inner
        if token.kind != "field":
            if token.kind == "end":
                raise self.error("expected a field name, found the end of the query")
            raise self.error(f"expected a field name, found {token.text!r}")
        if len(self.terms) == MAX_TERMS:
            raise self.error(
                f"more than {MAX_TERMS:,} comparisons in one query; select with fewer: a list "
                '(name in ["a", "b", ...]) or one regular expression (name ~ "a|b") is one comparison'
            )
        self.take()
        op = self.token
        if op.kind == "keyword" and op.text in ("in", "not"):
            negated = self.expect_keyword("not")
            if not self.expect_keyword("in"):
                raise self.error("expected 'in' after 'not'")
            at = self.token.position
            node = Compare(token.text, "in", self.list_(), token.position, at=at)
            self.terms.append(node)
            return Not(node) if negated else node
        if op.kind != "op":
            found = "the end of the query" if op.kind == "end" else repr(op.text)
            raise self.error(f"expected a comparison (== != < <= > >= ~ !~ in) after {token.text!r}, found {found}")
        self.take()
        at = self.token.position
        value = self.literal()
        if op.text in ("~", "!~"):
            if not isinstance(value, str):
                raise self.error(f"'{op.text}' takes a string (a regular expression)", self.tokens[self.at - 1])
            pattern = self.compiled(value, self.tokens[self.at - 1])
            node = Compare(token.text, op.text, value, token.position, pattern, pattern.programsize, at)
        else:
            node = Compare(token.text, op.text, value, token.position, at=at)
        self.terms.append(node)
        return node

    def compiled(self, value: str, token: _Token) -> Any:
        """``value`` compiled by RE2, once per query; its size counted against :data:`MAX_REGEX_SIZE`."""
        pattern = self.patterns.get(value)
        if pattern is not None:
            return pattern
        try:
            pattern = re2.compile(value, _re2_options())
        except re2.error as e:
            reason = e.args[0].decode("utf-8", "replace") if e.args and isinstance(e.args[0], bytes) else str(e)
            raise self.error(
                f"not a regular expression RE2 takes ({reason}; no backreferences or lookaround)", token
            ) from None
        self.regex_size += pattern.programsize
        if self.regex_size > MAX_REGEX_SIZE:
            raise self.error(
                f"regular expressions too large: this one brings the query's to {self.regex_size:,} "
                f"(RE2's program size, about an instruction per character matched); at most "
                f"{MAX_REGEX_SIZE:,}: use fewer or smaller ones",
                token,
            )
        self.patterns[value] = pattern
        return pattern

    def literal(self) -> Literal:
        token = self.token
        if token.kind in ("number", "string") or (token.kind == "keyword" and token.text in ("true", "false")):
            self.take()
            assert token.value is not None
            return token.value
        if token.kind == "field":
            raise self.error(f'expected a value, found the name {token.text!r} (quote a string: "{token.text}")')
        found = "the end of the query" if token.kind == "end" else repr(token.text)
        raise self.error(f'expected a value (a number, a "string", true or false), found {found}')

    def list_(self) -> tuple[Literal, ...]:
        opening = self.token
        if not (opening.kind == "punct" and opening.text in "(["):
            raise self.error("expected a list: [value, ...]")
        closing = "]" if opening.text == "[" else ")"
        self.take()
        values: list[Literal] = []
        while not (self.token.kind == "punct" and self.token.text == closing):
            if values:
                if not (self.token.kind == "punct" and self.token.text == ","):
                    raise self.error(f"expected ',' or '{closing}' in the list")
                self.take()
            values.append(self.literal())
        self.take()
        return tuple(values)


# -- evaluation ---------------------------------------------------------------------------------

Mask = tuple[np.ndarray, np.ndarray]  # (true, known) per run: Kleene's three-valued logic


@dataclass(frozen=True, slots=True)
class Query:
    """A parsed query: :meth:`select` evaluates it over a :class:`RunTable`."""

    text: str
    root: Node
    terms: tuple[Compare, ...] = ()  # every comparison, in the order of the text

    def select(self, table: RunTable, *, patient: bool = False) -> np.ndarray:
        """Which runs the query is true for (a bool per run of ``table``); :class:`QueryError`
        naming the first field that names nothing, or where the query passes :data:`MAX_WORK`.
        A costly query waits :data:`COSTLY_WAIT` for its turn, then :class:`QueryBusy` (a
        server's answer); ``patient``: as long as it takes (a script's reader)."""
        columns, _, work = self._columns(table)
        with _turn(work, None if patient else COSTLY_WAIT):
            found = self._regexes(table, columns)
            done: dict[tuple[Any, ...], Mask] = {}

            def compared(node: Compare) -> Mask:
                key = node.key()
                mask = done.get(key)
                if mask is None:
                    mask = done[key] = _compare(columns[node.field], node, found)
                return mask

            true, _ = _evaluate(self.root, compared)
        return true

    def matching(self, table: RunTable, *, patient: bool = False) -> list[str]:
        """The names of the runs selected, in the table's order (``patient``: as :meth:`select`)."""
        return [table.names[i] for i in np.flatnonzero(self.select(table, patient=patient)).tolist()]

    def _columns(self, table: RunTable) -> tuple[dict[str, Column], int, int]:
        """The column of each field named, the first unknown one an error; what the query costs
        over ``table``, checked against :data:`MAX_WORK` before any of it is spent; and what is
        left of it to spend, for its turn (:data:`COSTLY_WORK`): less the regular expressions
        whose answers their column remembers (:meth:`Column.remembers`).

        The bound counts every regular expression in full, so that whether a query is too costly
        is the same whatever happens to be remembered, and forgetting an answer between this and
        the evaluation can never have a query spend more than :data:`MAX_WORK`; it then only
        spends, without a turn, what it would have been given a turn for."""
        columns: dict[str, Column] = {}
        seen: set[tuple[Any, ...]] = set()
        matched: set[tuple[str, Any]] = set()
        work = 0
        remembered = 0  # the work of the regular expressions already answered
        for term in self.terms:
            column = columns.get(term.field)
            if column is None:
                column = table.field(term.field)
                if column is None:
                    raise QueryError(f"no field {term.field!r} ({table.fields_hint()})", self.text, term.position)
                columns[term.field] = column
            key = term.key()
            if key in seen:  # evaluated once
                continue
            seen.add(key)
            work += len(table)
            if term.op in ("~", "!~") and (term.field, term.value) not in matched:
                matched.add((term.field, term.value))
                distinct = column.text_codes()[0].size
                work += distinct * (MATCH_WORK + term.size)
                if isinstance(term.value, str) and column.remembers(term.value):
                    remembered += distinct * (MATCH_WORK + term.size)
                if work > MAX_WORK:
                    raise QueryError(
                        f"a query too costly for this table: at this regular expression its work reaches {work:,}, "
                        f"at most {MAX_WORK:,} (each comparison counts the {len(table):,} runs, each regular "
                        f"expression {MATCH_WORK} plus its size, {term.size:,} here, per distinct text of "
                        f"{term.field!r}, {distinct:,} distinct texts); use fewer or smaller regular expressions, "
                        "or a list (in [...])",
                        self.text,
                        term.at,
                    )
            if work > MAX_WORK:
                raise QueryError(
                    f"a query too costly for this table: at this comparison its work reaches {work:,}, at most "
                    f"{MAX_WORK:,} (each comparison counts the {len(table):,} runs); use fewer comparisons or a "
                    "list (in [...])",
                    self.text,
                    term.position,
                )
        return columns, work, work - remembered

    def _regexes(self, table: RunTable, columns: dict[str, Column]) -> dict[tuple[str, str], np.ndarray]:
        """Whether each regular expression is found in each distinct text of its column: all of
        one column's patterns matched together, once per distinct text, or remembered."""
        by_field: dict[str, dict[str, Compare]] = {}
        for term in self.terms:
            if term.op in ("~", "!~"):
                assert isinstance(term.value, str)
                by_field.setdefault(term.field, {}).setdefault(term.value, term)
        found: dict[tuple[str, str], np.ndarray] = {}
        for name, terms in by_field.items():
            column = columns[name]
            search = _searcher(terms, column.text_codes()[0])
            for pattern, row in column.found_in_texts(list(terms), search).items():
                found[(name, pattern)] = row
        return found


@contextlib.contextmanager
def _turn(work: int, wait: float | None) -> Iterator[None]:
    """A costly query's turn (:data:`COSTLY_WORK`): at most :data:`COSTLY_AT_ONCE` are evaluated
    at once, each waiting at most ``wait`` seconds for its turn (None: as long as it takes),
    then :class:`QueryBusy`."""
    if work <= COSTLY_WORK:
        yield
        return
    if not _COSTLY.acquire(timeout=wait):  # None: no limit
        raise QueryBusy(
            f"{COSTLY_AT_ONCE} costly queries are being evaluated already, and this one is costly too (its work "
            f"{work:,}, above {COSTLY_WORK:,}: many regular expressions); ask again in a moment, or select with "
            "fewer regular expressions"
        )
    try:
        yield
    finally:
        _COSTLY.release()


def _searcher(terms: dict[str, Compare], distinct: np.ndarray) -> Any:
    """What :meth:`Column.found_in_texts` asks about the patterns it does not remember."""

    def search(patterns: list[str]) -> np.ndarray:
        return _search_distinct([terms[p] for p in patterns], distinct)

    return search


def _evaluate(node: Node, compared: Any) -> Mask:
    """``node`` over the runs; nesting (at most :data:`MAX_DEPTH`) is the only recursion."""
    if isinstance(node, Compare):
        result: Mask = compared(node)
        return result
    if isinstance(node, Not):
        true, known = _evaluate(node.operand, compared)
        return known & ~true, known
    conjunction = node.op == "and"
    first, *others = node.operands
    t, k = _evaluate(first, compared)
    true, false = t.copy(), k & ~t  # a copy: a comparison's mask is kept for its repetitions
    for operand in others:
        t, k = _evaluate(operand, compared)
        if conjunction:  # true where every operand is, false where any is
            true &= t
            false |= k & ~t
        else:  # true where any operand is, false where every one is
            true |= t
            false &= k & ~t
    return true, true | false


def _search_distinct(terms: Sequence[Compare], texts: np.ndarray) -> np.ndarray:
    """``found[i, j]``: whether ``terms[i]``'s regular expression is found in ``texts[j]``.
    Patterns are matched together by RE2's multi-pattern matcher, a few at a time (at most
    :data:`_SET_SIZE` of program), each text once per group; a larger pattern alone."""
    encoded = [t.encode("utf-8", "surrogatepass") for t in texts.tolist()]
    found = np.zeros((len(terms), len(encoded)), bool)
    group: list[int] = []
    size = 0

    def flush() -> None:
        matcher = re2.Set.SearchSet(_re2_options())
        for i in group:
            matcher.Add(terms[i].value)
        try:
            matcher.Compile()
        except re2.error:  # not expected at this size: each pattern alone, then
            for i in group:
                found[i] = [terms[i].pattern.search(t) is not None for t in encoded]
            return
        matches = [matcher.Match(t) or () for t in encoded]
        lengths = np.fromiter(map(len, matches), np.intp, len(matches))
        which = np.fromiter(itertools.chain.from_iterable(matches), np.intp, int(lengths.sum()))
        found[np.asarray(group, np.intp)[which], np.repeat(np.arange(len(encoded)), lengths)] = True

    for i, term in enumerate(terms):
        if term.size > _SET_SIZE:
            found[i] = [term.pattern.search(t) is not None for t in encoded]
            continue
        if size + term.size > _SET_SIZE or len(group) == _SET_PATTERNS:
            flush()
            group, size = [], 0
        group.append(i)
        size += term.size
    if group:
        flush()
    return found


def _compare(column: Column, node: Compare, found: dict[tuple[str, str], np.ndarray]) -> Mask:
    if node.op == "in":
        assert isinstance(node.value, tuple)
        return _listed(column, node.value)
    raw = node.value
    assert not isinstance(raw, tuple)
    value: Literal = raw
    if node.op in ("~", "!~"):
        assert isinstance(value, str)
        known = column.is_text
        _, codes = column.text_codes()
        true = np.zeros(known.size, bool)
        true[known] = found[(node.field, value)][codes[known]]
        return (known & ~true if node.op == "!~" else true), known
    if isinstance(value, bool):
        value = float(value) if node.op in ("<", "<=", ">", ">=") else value
    if isinstance(value, bool):  # == and != with true/false: numbers 1/0 or texts "true"/"false"
        return _flag(column, node.op, value)
    if isinstance(value, float):
        return _numeric(column, node.op, value)
    return _textual(column, node.op, value)


def _listed(column: Column, values: tuple[Literal, ...]) -> Mask:
    """``x in [a, b, ...]``: ``x == a or x == b or ...`` (true where one is; false where every
    one is false, so a text is unknown against a list holding a number); ``[]``: false where
    the run has the field."""
    present = column.is_number | column.is_text
    true = np.zeros(present.size, bool)
    every = present.copy()  # where every x == v is known
    numbers = [v for v in values if isinstance(v, float)]
    texts = [v for v in values if isinstance(v, str)]
    if numbers:
        true |= column.is_number & np.isin(column.numbers, numbers)
        every &= column.is_number
    if texts:  # looked up among the distinct texts: a list of 1,000 names is one pass over the runs
        distinct, codes = column.text_codes()
        wanted = np.array(texts, object)
        at = np.searchsorted(distinct, wanted)
        hit = at < distinct.size
        hit[hit] = distinct[at[hit]] == wanted[hit]
        chosen = np.zeros(distinct.size + 1, bool)  # the last: codes of -1, runs without a text
        chosen[at[hit]] = True
        true |= column.is_text & chosen[codes]
        every &= column.is_text
    for flag in {v for v in values if isinstance(v, bool)}:
        true |= _flag(column, "==", flag)[0]
    return true, true | every


def _flag(column: Column, op: str, value: bool) -> Mask:
    """``x == true`` (or ``!=``): a number against 1 or 0, a text against "true" or "false"."""
    t_num, k_num = _numeric(column, op, float(value))
    t_txt, k_txt = _textual(column, op, "true" if value else "false")
    return t_num | (t_txt & ~k_num), k_num | k_txt


#: The comparisons, elementwise over a column's numbers.
_COMPARE = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def _numeric(column: Column, op: str, value: float) -> Mask:
    known = column.is_number
    with np.errstate(invalid="ignore"):
        true = np.asarray(_COMPARE[op](column.numbers, value), bool)
    return true & known, known


def _textual(column: Column, op: str, value: str) -> Mask:
    """A comparison of texts through the column's distinct ones (in code point order): where
    ``value`` would stand among them says each run's answer, in integer comparisons."""
    known = column.is_text
    distinct, codes = column.text_codes()
    lo = int(np.searchsorted(distinct, value, "left")) if distinct.size else 0
    hi = int(np.searchsorted(distinct, value, "right")) if distinct.size else 0
    if op in ("==", "!="):
        equal = (codes >= lo) & (codes < hi)
        true = equal if op == "==" else ~equal
    elif op == "<":
        true = codes < lo
    elif op == "<=":
        true = codes < hi
    elif op == ">":
        true = codes >= hi
    else:
        true = codes >= lo
    return true & known, known


def parse(query: str) -> Query:
    """The query parsed; :class:`QueryError` with the position of what is wrong or too costly."""
    if not isinstance(query, str):
        raise TypeError(f"a query is a string, not {type(query).__name__}")
    if len(query) > MAX_QUERY_CHARS:
        raise QueryError(f"a query of {len(query):,} characters; at most {MAX_QUERY_CHARS:,}", query, MAX_QUERY_CHARS)
    parser = _Parser(query)
    root = parser.parse()
    return Query(query, root, tuple(parser.terms))
