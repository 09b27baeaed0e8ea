"""What one query may cost is bounded, and what it costs is what it needs.

Bounded: at most MAX_TERMS comparisons, MAX_DEPTH levels of nesting, MAX_REGEX_SIZE of regular
expressions (RE2's program size), and MAX_WORK of work over the table it is evaluated on; past
a bound, a QueryError names the bound and the character where the query passed it. A chain of
``or``/``and`` is evaluated flat, never one Python frame per term.

What it needs: a regular expression is matched once per distinct text of its column (never per
run, never twice in one query), and again not at all while the table stands."""

from __future__ import annotations

import re

import numpy as np
import pytest

import visualdl._index.runquery as runquery
from visualdl._index.runcolumns import RunTable, column_of
from visualdl._index.runquery import MAX_DEPTH, MAX_REGEX_SIZE, MAX_TERMS, QueryError, parse


def _numbered(n: int) -> RunTable:
    names = [f"lr{i % 10}/seed{i}" for i in range(n)]
    return RunTable(
        names, hparams={"n": column_of(list(range(n))), "opt": column_of(["adam", "sgd", "lamb"] * (n // 3))}
    )


def test_a_chain_of_as_many_comparisons_as_allowed_is_evaluated_flat():
    table = _numbered(3 * MAX_TERMS)
    chain = " or ".join(f"n == {i}" for i in range(MAX_TERMS))
    assert parse(chain).select(table).nonzero()[0].tolist() == list(range(MAX_TERMS))
    every = " and ".join(f"n != {i}" for i in range(MAX_TERMS))
    assert parse(every).select(table).nonzero()[0].tolist() == list(range(MAX_TERMS, 3 * MAX_TERMS))
    mixed = " or ".join(f'n == {i} and opt != "lamb"' for i in range(MAX_TERMS // 2))
    assert parse(mixed).select(table).nonzero()[0].tolist() == [i for i in range(MAX_TERMS // 2) if i % 3 != 2]


def test_one_comparison_past_the_limit_is_refused_naming_it_and_where():
    terms = [f"n == {i}" for i in range(MAX_TERMS + 1)]
    text = " or ".join(terms)
    with pytest.raises(QueryError) as caught:
        parse(text)
    assert caught.value.position == text.rindex("n == ")
    assert f"more than {MAX_TERMS:,} comparisons" in str(caught.value)
    # ~5,000 terms in 60 KB, under the length limit: refused as too many, never a RecursionError
    long = " or ".join(f"n == {i % 10}" for i in range(5400))
    assert len(long) < runquery.MAX_QUERY_CHARS
    with pytest.raises(QueryError, match="comparisons"):
        parse(long)


def test_nesting_past_the_limit_is_refused_whatever_nests():
    inner = "n == 1"
    for i in range(MAX_DEPTH):
        inner = f"(n == {i} or not {inner})" if i % 2 else f"(not {inner})"
    with pytest.raises(QueryError, match=f"nested deeper than {MAX_DEPTH}"):
        parse(inner)


def test_regular_expressions_past_the_size_limit_are_refused_at_the_one_that_passes_it():
    big = r"[\x{0}-\x{10ffff}]{1000}"  # about 7,000 RE2 instructions
    count = MAX_REGEX_SIZE // 7000 + 2
    terms = [f'name ~ "{big}{i}"' for i in range(count)]
    text = " or ".join(terms)
    with pytest.raises(QueryError) as caught:
        parse(text)
    assert f"at most {MAX_REGEX_SIZE:,}" in str(caught.value)
    passed = caught.value.position
    assert text[passed:].startswith('"')  # at a pattern
    assert text.count("name ~", 0, passed) <= count and text.count("name ~", 0, passed) > MAX_REGEX_SIZE // 7100
    # the same pattern many times costs its size once
    parse(" or ".join([f'name ~ "{big}"'] * count))


def test_work_past_the_bound_is_refused_on_a_table_where_it_would_cost_too_much(monkeypatch):
    text = 'n > 3 and (name ~ "seed1\\d+$" or opt ~ "^a")'
    query = parse(text)
    name_size, opt_size = (term.size + runquery.MATCH_WORK for term in query.terms[1:])
    small, large = _numbered(30), _numbered(3000)
    # each comparison counts the runs; each regular expression MATCH_WORK plus its size per distinct text
    monkeypatch.setattr(runquery, "MAX_WORK", 3 * 3000 + 30 * name_size + 3 * opt_size)
    query.select(small)
    with pytest.raises(QueryError) as caught:
        query.select(large)
    assert caught.value.position == text.index('"seed1')
    message = str(caught.value)
    assert "'name', 3,000 distinct texts" in message and f"at most {runquery.MAX_WORK:,}" in message
    # a column of 3,000 runs but 3 distinct texts: 3 texts to match, whatever the runs
    monkeypatch.setattr(runquery, "MAX_WORK", 2 * 3000 + 3 * opt_size)
    assert parse('n > 3 and opt ~ "^a"').select(large).sum() == len([i for i in range(4, 3000) if i % 3 == 0])
    monkeypatch.setattr(runquery, "MAX_WORK", 2 * 3000 + 3 * opt_size - 1)
    with pytest.raises(QueryError, match="'opt', 3 distinct texts"):
        parse('n > 3 and opt ~ "^a"').select(large)


def test_each_regex_is_matched_once_per_distinct_text_and_a_repeated_query_not_at_all(monkeypatch):
    seen: list[tuple[int, int]] = []
    search = runquery._search_distinct

    def counted(patterns, texts):
        seen.append((len(patterns), len(texts)))
        return search(patterns, texts)

    monkeypatch.setattr(runquery, "_search_distinct", counted)
    table = _numbered(3000)
    terms = [f'opt ~ "^{c}"' for c in "abcdefghijklmnopqrstuvwxyz"] * 8 + ['opt !~ "^a"', 'name ~ "seed1"']
    query = parse(" or ".join(terms))
    mask = query.select(table)
    assert sorted(seen) == [(1, 3000), (26, 3)]  # opt: its 26 patterns over its 3 texts; name: 1 over 3,000
    assert mask.tolist() == [True] * 3000
    seen.clear()
    parse(" or ".join(terms)).select(table)
    assert seen == []
    name = table.field("name")
    assert name is not None
    remembered = name.memo["found"]  # a bit per distinct text
    assert [bits.nbytes for bits in remembered.values()] == [3000 // 8]


def test_a_column_remembers_a_bounded_number_of_answers(monkeypatch):
    import visualdl._index.runcolumns as runcolumns

    monkeypatch.setattr(runcolumns, "REMEMBERED_BYTES", 10 * (3000 // 8))
    table = _numbered(3000)
    for start in range(0, 40, 8):
        parse(" or ".join(f'name ~ "seed{i}7$"' for i in range(start, start + 8))).select(table)
    name = table.field("name")
    assert name is not None
    assert list(name.memo["found"]) == [f"seed{i}7$" for i in range(30, 40)]  # the last ten


def test_many_regexes_select_what_python_re_selects():
    n = 3000
    names = [f"lr{i % 10}/seed{i}" for i in range(n)]
    table = RunTable(names)
    patterns = [f"seed{i}\\d?$" for i in range(150)] + [f"^lr{i % 10}/.*{i}" for i in range(40)]
    patterns += [r"[\x{0}-\x{10ffff}]{2}/s" * 30, "", "^$", "e{2,}", r"(\d)\d$"]  # one larger than a set takes
    for op in ("~", "!~"):
        text = " or ".join(f'name {op} "{p}"' for p in patterns)
        got = parse(text).select(table)
        python = [p.replace(r"\x{0}-\x{10ffff}", "\x00-\U0010ffff") for p in patterns]
        hits = np.array([[re.search(p, name) is not None for name in names] for p in python])
        want = hits.any(axis=0) if op == "~" else (~hits).any(axis=0)
        np.testing.assert_array_equal(got, want)
