"""``python -m visualdl`` is the ``visualdl`` command."""

from visualdl._cli import main

raise SystemExit(main())
