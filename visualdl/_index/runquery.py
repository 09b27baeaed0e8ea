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

Every column is a numpy array of the runs, so a query costs a few array operations per
comparison, not a Python call per run (``~`` runs the regex once per distinct text).
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import re2

from visualdl._index.runcolumns import Column, RunTable
from visualdl.errors import InvalidArgument

__all__ = ["MAX_DEPTH", "MAX_QUERY_CHARS", "Query", "QueryError", "parse"]

#: Longest query accepted, in characters (a URL parameter; a list of 1,000 run names fits).
MAX_QUERY_CHARS = 64 * 1024
#: Deepest nesting of parentheses and ``not``s.
MAX_DEPTH = 64

Literal = float | str | bool


class QueryError(InvalidArgument):
    """A query that cannot be parsed or names what does not exist; ``position`` is the
    offending character's index in the query (0-based)."""

    def __init__(self, message: str, query: str, position: int) -> None:
        self.position = position
        self.query = query
        self.reason = message
        super().__init__(f"{message}, at character {position + 1} of the query: {_pointed(query, position)}")


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
    pattern: Any = None  # a compiled RE2 pattern (its search())


@dataclass(frozen=True, slots=True)
class Not:
    operand: Node


@dataclass(frozen=True, slots=True)
class Both:
    op: str  # and, or
    left: Node
    right: Node


Node = Compare | Not | Both


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
            raise self.error(f"nested deeper than {MAX_DEPTH}")

    def or_(self) -> Node:
        node = self.and_()
        while self.expect_keyword("or"):
            node = Both("or", node, self.and_())
        return node

    def and_(self) -> Node:
        node = self.not_()
        while self.expect_keyword("and"):
            node = Both("and", node, self.not_())
        return node

    def not_(self) -> Node:
        if self.expect_keyword("not"):
            self.nested()
            node = Not(self.not_())
            self.depth -= 1
            return node
        return self.comparison()

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
        self.take()
        op = self.token
        if op.kind == "keyword" and op.text in ("in", "not"):
            negated = self.expect_keyword("not")
            if not self.expect_keyword("in"):
                raise self.error("expected 'in' after 'not'")
            values = self.list_()
            node: Node = Compare(token.text, "in", values, token.position)
            return Not(node) if negated else node
        if op.kind != "op":
            found = "the end of the query" if op.kind == "end" else repr(op.text)
            raise self.error(f"expected a comparison (== != < <= > >= ~ !~ in) after {token.text!r}, found {found}")
        self.take()
        value = self.literal()
        if op.text in ("~", "!~"):
            if not isinstance(value, str):
                raise self.error(f"'{op.text}' takes a string (a regular expression)", self.tokens[self.at - 1])
            try:
                pattern = re2.compile(value, _re2_options())
            except re2.error as e:
                reason = e.args[0].decode("utf-8", "replace") if e.args and isinstance(e.args[0], bytes) else str(e)
                raise self.error(
                    f"not a regular expression RE2 takes ({reason}; no backreferences or lookaround)",
                    self.tokens[self.at - 1],
                ) from None
            return Compare(token.text, op.text, value, token.position, pattern)
        return Compare(token.text, op.text, value, token.position)

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


@dataclass(frozen=True, slots=True)
class Query:
    """A parsed query: :meth:`select` evaluates it over a :class:`RunTable`."""

    text: str
    root: Node

    def select(self, table: RunTable) -> np.ndarray:
        """Which runs the query is true for (a bool per run of ``table``); :class:`QueryError`
        naming the first field that names nothing."""
        true, _ = self._eval(self.root, table)
        return true

    def matching(self, table: RunTable) -> list[str]:
        """The names of the runs selected, in the table's order."""
        mask = self.select(table)
        return [name for name, on in zip(table.names, mask.tolist(), strict=True) if on]

    def _eval(self, node: Node, table: RunTable) -> tuple[np.ndarray, np.ndarray]:
        """(true, known) per run: Kleene's three-valued logic."""
        if isinstance(node, Not):
            true, known = self._eval(node.operand, table)
            return known & ~true, known
        if isinstance(node, Both):
            lt, lk = self._eval(node.left, table)
            rt, rk = self._eval(node.right, table)
            lf, rf = lk & ~lt, rk & ~rt
            if node.op == "and":
                true, false = lt & rt, lf | rf
            else:
                true, false = lt | rt, lf & rf
            return true, true | false
        column = table.field(node.field)
        if column is None:
            raise QueryError(
                f"no field {node.field!r} ({table.fields_hint()})",
                self.text,
                node.position,
            )
        return _compare(column, node)


def _compare(column: Column, node: Compare) -> tuple[np.ndarray, np.ndarray]:
    if node.op == "in":
        assert isinstance(node.value, tuple)
        true = np.zeros(column.numbers.size, bool)
        texts = {v for v in node.value if isinstance(v, str)}
        numbers = [float(v) for v in node.value if not isinstance(v, str)]
        if texts and column.is_text.any():  # a set lookup per run, not a comparison per run and value
            at = np.flatnonzero(column.is_text)
            true[at] = np.fromiter((t in texts for t in column.texts[at]), bool, at.size)
        if numbers:
            true |= column.is_number & np.isin(column.numbers, numbers)
        for item in node.value:
            if isinstance(item, bool):  # true/false also match the texts "true"/"false"
                true |= _textual(column, "==", "true" if item else "false")[0]
        return true, column.is_number | column.is_text
    raw = node.value
    assert not isinstance(raw, tuple)
    value: Literal = raw
    if node.op in ("~", "!~"):
        assert node.pattern is not None
        known = column.is_text.copy()
        true = np.zeros(column.texts.size, bool)
        texts = column.texts[known]
        if texts.size:
            distinct, inverse = np.unique(texts.astype(str), return_inverse=True)
            hits = np.fromiter((node.pattern.search(t) is not None for t in distinct), bool, distinct.size)
            true[known] = hits[inverse]
        return (known & ~true if node.op == "!~" else true), known
    if isinstance(value, bool):
        value = float(value) if node.op in ("<", "<=", ">", ">=") else value
    if isinstance(value, bool):  # == and != with true/false: numbers 1/0 or texts "true"/"false"
        t_num, k_num = _numeric(column, node.op, float(value))
        t_txt, k_txt = _textual(column, node.op, "true" if value else "false")
        return t_num | (t_txt & ~k_num), k_num | k_txt
    if isinstance(value, float):
        return _numeric(column, node.op, value)
    return _textual(column, node.op, value)


#: The comparisons, elementwise over a column's numbers or texts.
_COMPARE = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def _numeric(column: Column, op: str, value: float) -> tuple[np.ndarray, np.ndarray]:
    known = column.is_number
    with np.errstate(invalid="ignore"):
        true = np.asarray(_COMPARE[op](column.numbers, value), bool)
    return true & known, known


def _textual(column: Column, op: str, value: str) -> tuple[np.ndarray, np.ndarray]:
    known = column.is_text
    true = np.zeros(known.size, bool)
    texts = column.texts[known]
    if texts.size:
        true[known] = np.asarray(_COMPARE[op](texts, value), bool)
    return true, known


def parse(query: str) -> Query:
    """The query parsed; :class:`QueryError` with the position of what is wrong."""
    if not isinstance(query, str):
        raise TypeError(f"a query is a string, not {type(query).__name__}")
    if len(query) > MAX_QUERY_CHARS:
        raise QueryError(f"a query of {len(query):,} characters; at most {MAX_QUERY_CHARS:,}", query, MAX_QUERY_CHARS)
    return Query(query, _Parser(query).parse())
