"""Costly queries take turns: at most COSTLY_AT_ONCE are evaluated at once in a process, a
costly one waits at most COSTLY_WAIT for its turn and then is QueryBusy; a cheap query never
waits. Real threads hold the turns, inside a real evaluation."""

from __future__ import annotations

import threading

import pytest

import visualdl._index.runquery as runquery
from visualdl._index.runcolumns import RunTable, column_of
from visualdl._index.runquery import COSTLY_AT_ONCE, QueryBusy, parse


def _table(n: int = 3000) -> RunTable:
    return RunTable([f"lr{i % 10}/seed{i}" for i in range(n)], hparams={"n": column_of(list(range(n)))})


def test_costly_queries_past_the_ones_at_once_are_busy_and_cheap_ones_never_wait(monkeypatch):
    table = _table()
    costly = parse(" or ".join(f'name ~ "seed{i}7$"' for i in range(40)))
    monkeypatch.setattr(runquery, "COSTLY_WORK", 1_000_000)  # 40 regexes over 3,000 names: costly; one: not
    monkeypatch.setattr(runquery, "COSTLY_WAIT", 0.05)
    entered = threading.Semaphore(0)
    release = threading.Event()
    search = runquery._search_distinct

    def held(patterns, texts):  # the threads' costly evaluations hold their turns until told
        if threading.current_thread() is not threading.main_thread():
            entered.release()
            assert release.wait(60)
        return search(patterns, texts)

    monkeypatch.setattr(runquery, "_search_distinct", held)
    answers: list[int] = []
    threads = []
    for salt in range(COSTLY_AT_ONCE):
        query = parse(" or ".join(f'name ~ "seed{i}7$|x{salt}"' for i in range(40)))
        threads.append(threading.Thread(target=lambda q=query: answers.append(int(q.select(table).sum()))))
        threads[-1].start()
    try:
        for _ in range(COSTLY_AT_ONCE):
            assert entered.acquire(timeout=60)
        with pytest.raises(QueryBusy) as caught:
            costly.select(table)
        assert caught.value.http_status == 503 and caught.value.retry_after > 0
        assert f"{COSTLY_AT_ONCE} costly queries are being evaluated already" in str(caught.value)
        assert parse('n < 10 and name ~ "seed"').select(table).sum() == 10  # cheap: answered meanwhile
    finally:
        release.set()
        for thread in threads:
            thread.join(60)
    assert answers == [len([i for i in range(3000) if any(f"seed{i}" == f"seed{j}7" for j in range(40))])] * 2
    monkeypatch.setattr(runquery, "_search_distinct", search)
    assert costly.select(table).sum() == answers[0]  # turns given back


def test_a_patient_costly_query_waits_for_its_turn_instead_of_busy(monkeypatch):
    """A script's reader (``LogReader.runs(where=...)``) is never told busy: its costly query
    waits until a turn is free, then is answered."""
    table = _table()
    monkeypatch.setattr(runquery, "COSTLY_WORK", 1_000_000)
    monkeypatch.setattr(runquery, "COSTLY_WAIT", 0.05)
    entered = threading.Semaphore(0)
    release = threading.Event()
    search = runquery._search_distinct
    holders: set[threading.Thread] = set()

    def held(patterns, texts):
        if threading.current_thread() in holders:
            entered.release()
            assert release.wait(60)
        return search(patterns, texts)

    monkeypatch.setattr(runquery, "_search_distinct", held)
    costly = parse(" or ".join(f'name ~ "seed{i}7$"' for i in range(40)))
    holders.update(threading.Thread(target=costly.select, args=(table,)) for _ in range(COSTLY_AT_ONCE))
    for thread in holders:
        thread.start()
    answer: list[int] = []
    patient = threading.Thread(target=lambda: answer.append(int(costly.select(table, patient=True).sum())))
    try:
        for _ in range(COSTLY_AT_ONCE):
            assert entered.acquire(timeout=60)
        patient.start()
        patient.join(0.5)  # ten times COSTLY_WAIT: an impatient query would have been told busy by now
        assert patient.is_alive() and not answer
    finally:
        release.set()
        for thread in holders:
            thread.join(60)
    patient.join(60)
    assert answer == [int(costly.select(table).sum())]


def test_a_costly_query_asked_again_is_answered_while_the_turns_are_held(monkeypatch):
    """What a column remembers of a regular expression costs nothing to match again, so the
    same costly query asked again is cheap (no turn to wait for), while a new one is still
    busy; the work bound (400) still counts every regular expression in full."""
    table = _table()
    monkeypatch.setattr(runquery, "COSTLY_WORK", 1_000_000)
    monkeypatch.setattr(runquery, "COSTLY_WAIT", 0.05)
    costly = parse(" or ".join(f'name ~ "seed{i}7$"' for i in range(40)))
    first = int(costly.select(table).sum())  # matched once: the name column remembers its 40 answers
    entered = threading.Semaphore(0)
    release = threading.Event()
    search = runquery._search_distinct

    def held(patterns, texts):
        if threading.current_thread() is not threading.main_thread():
            entered.release()
            assert release.wait(60)
        return search(patterns, texts)

    monkeypatch.setattr(runquery, "_search_distinct", held)
    threads = []
    for salt in range(COSTLY_AT_ONCE):
        query = parse(" or ".join(f'name ~ "seed{i}7$|x{salt}"' for i in range(40)))
        threads.append(threading.Thread(target=query.select, args=(table,)))
        threads[-1].start()
    try:
        for _ in range(COSTLY_AT_ONCE):
            assert entered.acquire(timeout=60)
        assert int(costly.select(table).sum()) == first  # remembered: answered, not busy
        again = parse(costly.text + ' or name ~ "seed5$"')  # one new regex over 3,000 names: cheap
        assert int(again.select(table).sum()) == first + 1
        with pytest.raises(QueryBusy):  # a new costly query still waits for a turn
            parse(" or ".join(f'name ~ "seed{i}7$|y"' for i in range(40))).select(table)
    finally:
        release.set()
        for thread in threads:
            thread.join(60)
    monkeypatch.setattr(runquery, "MAX_WORK", 1_000_000)
    with pytest.raises(runquery.QueryError, match="too costly"):  # the bound: the same whatever is remembered
        costly.select(table)
