"""The tests' shared kit: helpers that fixtures and test modules import by module name.

Fixtures live in the conftest files (``tests/conftest.py`` for all, a folder's own for its
tests); what a module-scoped fixture or a test body calls directly lives here, one concern a
module, so that ``from kit.waiting import wait_until`` means the same in every folder (a bare
``from conftest import ...`` would depend on which folder's conftest pytest imported last).
"""
