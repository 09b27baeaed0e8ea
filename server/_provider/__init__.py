"""The data provider: the runs, tags and data of all logdirs, as typed values.

The serving side and the notebook see only this interface: keyword-only ``list_*``/``read_*``
calls returning the values of :mod:`visualdl.server._data` (or numpy arrays and the kinds'
events), and the errors of :mod:`visualdl.errors` (:class:`NotFound` for an unknown run, tag
or entry). No JSON here (each answer's JSON is built by its view in ``server/_views/``) and
no thread: :meth:`DataProvider.poll` reads what was added, and :mod:`visualdl.server._reload`
calls it in the background. Downsampled series are cached by (run, tag, data version,
range, budget); the lists of runs and tags until the next change of the logdirs.

Views reach the indexes only through these calls: the index of a run
(``RunCatalog._resolve``, ``_located``) is private to this package.

Its modules, one concern each (:class:`DataProvider` is the class they make together):

- ``runs.py``: the logdirs and their runs by the names the API takes, the lists of runs,
  tags and kinds, health (:class:`~.runs.RunCatalog`, the base of the others).
- ``scalars.py``: one run's series of a scalar tag (a job's per role, with its bands), a tag's
  points of one run or of many.
- ``lines.py``: series to chart lines, downsampled (pure).
- ``charts.py``: :meth:`~DataProvider.read_chart`, one scalar tag over many runs as
  ``/api/scalars`` and the notebook draw it: the runs selected, grouped or each on its own
  line, a job's marked where it first went wrong.
- ``groups.py``: runs grouped, each group one line with bands.
- ``runsource.py``: the runs table, read through the provider's own calls.
- ``records.py``: a run's newest hyperparameters and custom scalar layout.
- ``events.py``: a tag's events and the blobs they point at (images, clips, graphs, embeddings).
- ``jobs.py``: a job's progress, first non-finite values and divergence, system metrics.
- ``provider.py``: :class:`DataProvider`.
"""

from __future__ import annotations

from visualdl.server._provider.charts import MAX_CHART_RUNS
from visualdl.server._provider.lines import role_line
from visualdl.server._provider.provider import DataProvider
from visualdl.server._provider.runs import MAX_RUN_LENGTH, MAX_TAG_LENGTH, servable

__all__ = ["MAX_CHART_RUNS", "MAX_RUN_LENGTH", "MAX_TAG_LENGTH", "DataProvider", "role_line", "servable"]
