"""Job analysis: what a distributed job did, from its log files' index values. Pure.

A layer above :mod:`visualdl._index` (which it reads: each file's writer and progress
trace, system samples, the first rank to go wrong) and below the server, whose views only
shape its values as JSON; ``--inspect`` (:mod:`visualdl._cli.inspect`), the notebook and
:class:`~visualdl.LogReader` say the same values in their own ways. Functions here take
index values and return frozen dataclasses; none reads a file, holds a lock or builds JSON.

- ``progress.py``: :data:`FileProgress`, one file's writer and its ``(wall time, highest
  step)`` trace, what every analysis reads, and the order files are taken in.
- ``overview.py``: :class:`JobOverview` (``job_overview``): each file's state (running,
  silent, killed, closed, raised, signalled, crashed) and span, the places alive over a
  time grid, the step skew per role, each place's throughput, the stragglers, the restarts.
- ``goodput.py``: :class:`Goodput` (``measure_goodput``): per place productive and lost
  seconds, restarts and their gaps, steps done twice, throughput; :class:`GoodputTotals`
  per role and for the job. Vectorised over every rank's trace at once.
- ``ends.py``: :class:`EndTimeline` (``end_timeline``): the first process to end uncleanly
  and the others grouped by how they ended.
- ``stragglers.py``: :class:`StragglerReport` (``job_stragglers``): why each straggler is
  slow, its system metric furthest from its role's median at the same time, and its host's.
- ``heatmap.py``: :class:`HeatmapMatrix`: rank x time matrices of a job, throughput and any
  metric registered in ``METRICS``, with restart and end overlays.
- ``system.py``: a job's system metrics (``list_system``, ``read_system``): bands over the
  ranks of each role on a time grid, and one rank's own lines.
- ``wrong.py``: the first non-finite value and the first divergence of replicated ranks, in words.

A new analysis is one module here and one view in ``server/_views/``.
"""
