"""``python -m visualdl`` is the ``visualdl`` command."""

from visualdl.cli import main

raise SystemExit(main())
