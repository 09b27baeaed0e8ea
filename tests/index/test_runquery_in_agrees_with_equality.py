"""``in`` and ``not in`` are what the docs define them as: ``x in [a, b]`` is ``x == a or x == b``
and ``x not in [a, b]`` is ``not (x in [a, b])``, that is ``x != a and x != b``, in the same
three-valued logic: a text against a number is unknown in a list as it is in ``==``, so
``x not in [32]`` selects no text that ``x != 32`` does not.

Checked over random runs (numbers, texts, booleans, missing values, NaN) and random queries of
``in``/``not in`` and ``==``/``!=`` chains under ``and``/``or``/``not``: the query, the same
query with every list written out as its chain, and a plain evaluation one run at a time all
select the same runs."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from visualdl._index.runcolumns import RunTable, column_of
from visualdl._index.runquery import parse

NAN = float("nan")
FIELDS = ("x", "y", "z")
RUN_VALUES = st.one_of(
    st.none(),
    st.sampled_from([0.0, 1.0, 2.0, 32.0, -1.5, NAN]),
    st.sampled_from([0, 1, 32]),
    st.booleans(),
    st.sampled_from(["a", "b", "32", "true", "false", "", "A"]),
)
LITERALS = st.one_of(
    st.sampled_from([0.0, 1.0, 32.0, -1.5, NAN]),
    st.booleans(),
    st.sampled_from(["a", "32", "true", "false", ""]),
)


def _literal(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value)
    return '"' + str(value) + '"'


# -- a plain evaluation, one run at a time: True, False or None (unknown) -------------------------


def _as_text(x: object) -> object:
    return ("true" if x else "false") if isinstance(x, bool) else x


def _equal(x: object, v: object) -> bool | None:
    if x is None:
        return None
    if isinstance(v, bool):  # a boolean literal: 1/0 against a number, "true"/"false" against a text
        return x == _as_text(v) if isinstance(x, str) else float(x) == float(v)  # type: ignore[arg-type]
    if isinstance(v, str):
        return _as_text(x) == v if isinstance(x, str | bool) else None
    return float(x) == v if not isinstance(x, str) else None  # type: ignore[arg-type]


def _order(op: str, x: object, v: object) -> bool | None:
    if x is None:
        return None
    if isinstance(v, bool):
        v = float(v)
    if isinstance(v, str):
        if not isinstance(x, str | bool):
            return None
        a: object = _as_text(x)
    else:
        if isinstance(x, str):
            return None
        a = float(x)  # type: ignore[arg-type]
    return {"<": a < v, "<=": a <= v, ">": a > v, ">=": a >= v}[op]  # type: ignore[operator]


def _not(a: bool | None) -> bool | None:
    return None if a is None else not a


def _or(values: list[bool | None]) -> bool | None:
    return True if True in values else (None if None in values else False)


def _and(values: list[bool | None]) -> bool | None:
    return False if False in values else (None if None in values else True)


def _plain(tree: tuple, run: dict[str, object]) -> bool | None:
    kind = tree[0]
    if kind == "not":
        return _not(_plain(tree[1], run))
    if kind in ("and", "or"):
        parts = [_plain(t, run) for t in tree[1:]]
        return _and(parts) if kind == "and" else _or(parts)
    x = run[tree[1]]
    if kind == "cmp":
        _, _, op, v = tree
        if op in ("==", "!="):
            same = _equal(x, v)
            return same if op == "==" else _not(same)
        return _order(op, x, v)
    _, _, negated, values = tree  # "in"
    found = (False if x is not None else None) if not values else _or([_equal(x, v) for v in values])
    return _not(found) if negated else found


# -- queries: as written, and with every list written out as its chain ---------------------------

LEAVES = st.one_of(
    st.tuples(st.just("cmp"), st.sampled_from(FIELDS), st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), LITERALS),
    st.tuples(st.just("in"), st.sampled_from(FIELDS), st.booleans(), st.lists(LITERALS, max_size=4)),
)
TREES = st.recursive(
    LEAVES,
    lambda inner: st.one_of(
        st.tuples(st.just("not"), inner),
        st.tuples(st.sampled_from(["and", "or"]), inner, inner),
        st.tuples(st.sampled_from(["and", "or"]), inner, inner, inner),
    ),
    max_leaves=6,
)


def _render(tree: tuple, *, chains: bool, spelled: str = "not in") -> str:
    kind = tree[0]
    if kind == "not":
        return f"not ({_render(tree[1], chains=chains, spelled=spelled)})"
    if kind in ("and", "or"):
        return f" {kind} ".join(f"({_render(t, chains=chains, spelled=spelled)})" for t in tree[1:])
    if kind == "cmp":
        _, field, op, v = tree
        return f"{field} {op} {_literal(v)}"
    _, field, negated, values = tree
    if chains and values:  # x in [a, b] -> x == a or x == b; x not in [a, b] -> x != a and x != b
        if negated:
            return " and ".join(f"{field} != {_literal(v)}" for v in values)
        return " or ".join(f"{field} == {_literal(v)}" for v in values)
    listed = f"[{', '.join(_literal(v) for v in values)}]"
    if not negated:
        return f"{field} in {listed}"
    return f"{field} not in {listed}" if spelled == "not in" else f"not ({field} in {listed})"


def _table(runs: list[dict[str, object]]) -> RunTable:
    names = [f"run{i}" for i in range(len(runs))]
    return RunTable(names, hparams={f: column_of([run[f] for run in runs]) for f in FIELDS})


RUNS = st.lists(st.fixed_dictionaries({f: RUN_VALUES for f in FIELDS}), min_size=1, max_size=12)


@settings(max_examples=600, deadline=None)
@given(RUNS, TREES)
def test_lists_select_what_their_equality_chains_and_a_plain_evaluation_select(runs, tree):
    table = _table(runs)
    want = [f"run{i}" for i, run in enumerate(runs) if _plain(tree, run) is True]
    for text in (
        _render(tree, chains=False),
        _render(tree, chains=False, spelled="not (in)"),
        _render(tree, chains=True),
    ):
        assert parse(text).matching(table) == want, (text, runs)


def test_not_in_a_list_of_numbers_selects_no_text_that_not_equal_does_not():
    table = _table([{"x": "abc", "y": None, "z": None}, {"x": 32, "y": None, "z": None}, {"x": 7.0, "y": 1, "z": 1}])
    assert parse("x != 32").matching(table) == ["run2"]
    assert parse("x not in [32]").matching(table) == ["run2"]
    assert parse("not (x in [32])").matching(table) == ["run2"]
    assert parse('x not in ["abc"]').matching(table) == []  # numbers are unknown against a text
    assert parse("x not in []").matching(table) == ["run0", "run1", "run2"]  # missing stays unknown
    assert parse("y not in []").matching(table) == ["run2"]
