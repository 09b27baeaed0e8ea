"""The runs query language: every operator, precedence, three-valued logic, errors that point
at the bad character, and no way to run code; random queries against a plain Python
evaluation of the same query."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from visualdl._index.runcolumns import RunTable, column_of
from visualdl._index.runquery import MAX_DEPTH, QueryError, parse

NAN = float("nan")
RUNS = {
    "lr0.1/seed1": {"lr": 0.1, "opt": "adam", "layers": 2, "fast": True, "loss.min": 0.05},
    "lr0.1/seed2": {"lr": 0.1, "opt": "sgd", "layers": 4, "fast": False, "loss.min": 0.2},
    "lr0.3/seed10": {"lr": 0.3, "opt": "adam", "layers": 4, "loss.min": NAN},
    "lr1/seed3": {"lr": 1, "opt": "Adam", "fast": True},
    "odd": {"lr": "auto", "layers": 8, "loss.min": 0.01},
}


def _table(runs=RUNS) -> RunTable:
    names = list(runs)
    fields = sorted({k for values in runs.values() for k in values if k != "loss.min"})
    hparams = {f: column_of([runs[n].get(f) for n in names]) for f in fields}
    losses = column_of([runs[n].get("loss.min") for n in names])
    return RunTable(
        names, hparams=hparams, metrics=lambda tag, summary: losses if (tag, summary) == ("loss", "min") else None
    )


def _select(query: str) -> list[str]:
    return parse(query).matching(_table())


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("lr == 0.1", ["lr0.1/seed1", "lr0.1/seed2"]),
        ("lr != 0.1", ["lr0.3/seed10", "lr1/seed3"]),  # "auto" is a text: unknown against a number
        ("lr < 0.3", ["lr0.1/seed1", "lr0.1/seed2"]),
        ("lr <= 0.3", ["lr0.1/seed1", "lr0.1/seed2", "lr0.3/seed10"]),
        ("lr > 0.3", ["lr1/seed3"]),
        ("lr >= 0.3", ["lr0.3/seed10", "lr1/seed3"]),
        ('opt == "adam"', ["lr0.1/seed1", "lr0.3/seed10"]),
        ('opt != "adam"', ["lr0.1/seed2", "lr1/seed3"]),  # "odd" has no opt: unknown, not selected
        ('opt < "b"', ["lr0.1/seed1", "lr0.3/seed10", "lr1/seed3"]),  # code point order: "A" < "a"
        ('opt ~ "^[aA]d"', ["lr0.1/seed1", "lr0.3/seed10", "lr1/seed3"]),
        ('opt !~ "am$"', ["lr0.1/seed2"]),
        (r'name ~ "seed1\d+"', ["lr0.3/seed10"]),
        ('lr in [0.1, "auto"]', ["lr0.1/seed1", "lr0.1/seed2", "odd"]),
        ("lr not in (0.1, 0.3)", ["lr1/seed3"]),  # "auto" is unknown against numbers, as with !=
        ('lr not in (0.1, "auto")', []),  # lr != 0.1 and lr != "auto": a number is unknown against "auto"
        ("fast == true", ["lr0.1/seed1", "lr1/seed3"]),
        ('fast == "false"', ["lr0.1/seed2"]),
        ("fast in [false]", ["lr0.1/seed2"]),
        ("loss.min < 0.1", ["lr0.1/seed1", "odd"]),
        ("loss.min != 0.05", ["lr0.1/seed2", "lr0.3/seed10", "odd"]),  # NaN != x
        ("hparams.layers >= 4", ["lr0.1/seed2", "lr0.3/seed10", "odd"]),
        ("`layers` == 2", ["lr0.1/seed1"]),
        ("lr == 1e0", ["lr1/seed3"]),
        ("lr < inf", ["lr0.1/seed1", "lr0.1/seed2", "lr0.3/seed10", "lr1/seed3"]),
    ],
)
def test_each_operator_selects_what_it_says(query, expected):
    assert _select(query) == expected


def test_precedence_not_binds_tighter_than_and_tighter_than_or():
    assert _select('opt == "sgd" or opt == "adam" and layers == 2') == ["lr0.1/seed1", "lr0.1/seed2"]
    assert _select('(opt == "sgd" or opt == "adam") and layers == 2') == ["lr0.1/seed1"]
    assert _select('not opt == "adam" and layers == 4') == ["lr0.1/seed2"]
    # "odd" has no opt but layers 8: unknown and false is false, and not false is true
    assert _select('not (opt == "adam" and layers == 4)') == ["lr0.1/seed1", "lr0.1/seed2", "lr1/seed3", "odd"]
    assert _select("not not lr == 1") == ["lr1/seed3"]


def test_missing_fields_are_unknown_and_not_of_unknown_stays_unknown():
    # "odd" has no opt, "lr1/seed3" no layers: neither side selects them, nor does "not".
    assert "odd" not in _select('opt == "adam"') and "odd" not in _select('not opt == "adam"')
    assert _select("layers > 100 or fast == true") == ["lr0.1/seed1", "lr1/seed3"]  # unknown or true: true
    assert _select("layers > 1 and fast == true") == ["lr0.1/seed1"]  # true and unknown: not selected
    assert "lr1/seed3" in _select("not (layers > 1 and fast == false)")  # unknown and false: false; not: true


@pytest.mark.parametrize(
    ("query", "position", "says"),
    [
        ("", 0, "an empty query"),
        ("lr <", 4, "expected a value"),
        ("lr = 3", 3, "write '=='"),
        ("lr < 3 and", 10, "expected a field name"),
        ("(lr < 3", 7, "expected ')' closing the '(' of character 1"),
        ('lr ~ "("', 5, "not a regular expression"),
        ("lr < 3 3", 7, "expected 'and', 'or' or the end"),
        ('"x" == 1', 0, "expected a field name"),
        ("lr in 3", 6, "expected a list"),
        ('lr < "abc', 5, "without its closing quote"),
        ("lr < 3 & opt", 7, "unexpected character '&'"),
        ("lr < adam", 5, 'quote a string: "adam"'),
        ("lr ~ 3", 5, "takes a string"),
        ("lr in [1 2]", 9, "expected ',' or ']'"),
        ("lr not 3", 7, "expected 'in' after 'not'"),
        ("`lr < 3", 0, "closing backquote"),
        ("lr", 2, "expected a comparison"),
    ],
)
def test_errors_name_the_problem_and_point_at_it(query, position, says):
    with pytest.raises(QueryError) as caught:
        parse(query)
    assert caught.value.position == position, str(caught.value)
    assert says in str(caught.value)
    assert f"at character {position + 1} of the query" in str(caught.value)


def test_an_unknown_field_is_named_where_it_stands():
    with pytest.raises(QueryError, match=r"no field 'momentum' \(fields: name, fast, layers, lr, opt") as caught:
        parse('opt == "adam" and momentum > 0.9').select(_table())
    assert caught.value.position == 18


def test_nesting_is_bounded_and_long_queries_refused():
    parse("(" * (MAX_DEPTH - 1) + "lr == 1" + ")" * (MAX_DEPTH - 1))
    with pytest.raises(QueryError, match=f"nested deeper than {MAX_DEPTH}"):
        parse("not " * (MAX_DEPTH + 1) + "lr == 1")
    with pytest.raises(QueryError, match="at most 65,536"):
        parse("name in [" + ", ".join(['"x"'] * 20_000) + "]")


def test_regexes_run_in_linear_time_and_lookaround_is_refused_where_it_stands():
    names = ["a" * 5000 + "b", "a" * 40]
    table = RunTable(names)
    # (a+)+$ backtracks for hours in Python's re on 41 characters; RE2 matches at once
    assert parse('name ~ "^(a+)+$"').matching(table) == ["a" * 40]
    with pytest.raises(QueryError, match="RE2") as caught:
        parse('name ~ "(?=a)b"')
    assert caught.value.position == 7


def test_python_never_runs():
    for query in ('__import__("os").system("true")', "lr == __import__", "lr == (1).__class__", "exec('x')"):
        with pytest.raises(QueryError):
            parse(query).select(_table())


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("lr opt=<>!~()[],\"'`0123456789.-eandortinfx\\")), max_size=40))
def test_any_text_parses_or_raises_a_query_error(text):
    try:
        query = parse(text)
    except QueryError as e:
        assert 0 <= e.position <= len(text)
        return
    try:
        mask = query.select(_table())
    except QueryError as e:  # an unknown field
        assert 0 <= e.position < len(text)
        return
    assert mask.dtype == bool and mask.shape == (len(RUNS),)


# -- random queries against a plain evaluation ---------------------------------------------------

_FIELDS = ["lr", "opt", "layers", "fast", "loss.min", "name"]
_VALUES = st.one_of(
    st.sampled_from([0.1, 0.3, 1.0, 2.0, 4.0, 0.05, NAN]),
    st.sampled_from(["adam", "sgd", "Adam", "auto", "lr0.1/seed1"]),
    st.booleans(),
)


def _literal(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value)
    return '"' + value + '"'


_COMPARISONS = st.tuples(
    st.sampled_from(_FIELDS),
    st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "~", "!~", "in"]),
    _VALUES,
    st.lists(_VALUES, max_size=3),
)


def _trees(leaves):
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.tuples(st.just("not"), inner),
            st.tuples(st.sampled_from(["and", "or"]), inner, inner),
        ),
        max_leaves=6,
    )


def _render(tree) -> str:
    if tree[0] == "not":
        return f"not ({_render(tree[1])})"
    if tree[0] in ("and", "or"):
        return f"({_render(tree[1])}) {tree[0]} ({_render(tree[2])})"
    field, op, value, values = tree
    if op == "in":
        return f"{field} in [{', '.join(_literal(v) for v in values)}]"
    if op in ("~", "!~"):
        return f"{field} {op} {_literal(re.escape(str(value)))}"
    return f"{field} {op} {_literal(value)}"


def _value(run: str, field: str):
    return run if field == "name" else RUNS[run].get(field)


def _plain(tree, run: str):
    """True, False or None (unknown), one run at a time."""
    if tree[0] == "not":
        v = _plain(tree[1], run)
        return None if v is None else not v
    if tree[0] in ("and", "or"):
        a, b = _plain(tree[1], run), _plain(tree[2], run)
        if tree[0] == "and":
            return False if a is False or b is False else (None if a is None or b is None else True)
        return True if a is True or b is True else (None if a is None or b is None else False)
    field, op, value, values = tree
    x = _value(run, field)
    if x is None:
        return None
    if op == "in":  # x == a or x == b ...
        each = [_equal(x, v) for v in values]
        return True if True in each else (None if None in each else False)
    if op in ("~", "!~"):
        if isinstance(x, bool):
            x = "true" if x else "false"
        if not isinstance(x, str):
            return None
        found = re.search(re.escape(str(value)), x) is not None
        return found if op == "~" else not found
    if isinstance(value, bool) and op in ("==", "!="):
        same = _equal(x, value)
        if same is None:
            return None
        return same if op == "==" else not same
    if isinstance(value, bool):
        value = float(value)
    if isinstance(x, bool):
        x = float(x) if isinstance(value, float) else ("true" if x else "false")
    if isinstance(x, str) != isinstance(value, str):
        return None
    return {"==": x == value, "!=": x != value, "<": x < value, "<=": x <= value, ">": x > value, ">=": x >= value}[op]


def _equal(x, v):
    if isinstance(v, bool):
        if isinstance(x, bool):
            return x == v
        if isinstance(x, str):
            return x == ("true" if v else "false")
        return float(x) == float(v)
    if isinstance(x, bool):
        x = float(x) if not isinstance(v, str) else ("true" if x else "false")
    if isinstance(x, str) != isinstance(v, str):
        return None  # a text against a number: unknown, as in ==
    return x == v


@settings(max_examples=400, deadline=None)
@given(_trees(_COMPARISONS))
def test_random_queries_select_what_a_plain_evaluation_selects(tree):
    text = _render(tree)
    got = parse(text).matching(_table())
    want = [run for run in RUNS if _plain(tree, run) is True]
    assert got == want, text


def test_thirty_thousand_runs_are_filtered_without_a_call_per_run_and_value():
    n = 30_000
    names = [f"lr{i % 10}/seed{i}" for i in range(n)]
    table = RunTable(
        names,
        hparams={"lr": column_of([(i % 10) / 10 for i in range(n)]), "opt": column_of(["adam", "sgd"] * (n // 2))},
    )
    excluded = ", ".join(f'"{x}"' for x in names[:900])
    mask = parse(f'lr < 0.3 and opt == "adam" and name ~ "seed1\\d+$" and name not in [{excluded}]').select(table)
    expect = np.array(
        [
            (i % 10) / 10 < 0.3 and i % 2 == 0 and re.search(r"seed1\d+$", names[i]) is not None and i >= 900
            for i in range(n)
        ]
    )
    np.testing.assert_array_equal(mask, expect)
