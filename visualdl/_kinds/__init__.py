"""The kinds of record, a module each (layer 3: above the formats' bytes, below storage).

Each module declares its kind's :class:`~visualdl._kinds.kind.Kind` entry in one place;
:mod:`visualdl._kinds.table` assembles them. Nothing here imports from
:mod:`visualdl._formats`: the formats import the kinds' event classes, not the reverse.
"""
