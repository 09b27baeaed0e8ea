"""The views (layer 6): one module per answer of the JSON API, JSON only.

Each builds its answer's shape (a ``TypedDict``) from the values of the provider
(:mod:`visualdl.server._provider`) and of the job analysis (:mod:`visualdl._jobs`): no view
reads a log, computes an analysis, or takes a dict that another view built; none imports
the HTTP layer.

The runs and their data:

- ``runs.py``: ``/api/runs`` and ``/api/kinds``: the runs with their writers, the tabs.
- ``runtable.py``: ``/api/runs/table``: the runs as a table, filtered, sorted, a page of it.
- ``scalars.py``: ``/api/scalars``: the chart of one tag over runs, as the provider's
  ``read_chart`` selects, groups and marks it (NaN and infinities listed apart, steps as arrays).
- ``images.py``, ``audio.py``, ``text.py``: a tag's images, clips and texts by step, without
  their bytes.
- ``histograms.py``: ``/api/histograms``: a tag's histograms, as written or re-binned onto one
  even grid; ``distribution.py``: their percentile bands over steps (pure numpy).
- ``curves.py``: the PR and ROC curves routes.
- ``hparams.py``: the hyperparameters and custom scalar layout routes.
- ``projector.py``: the embedding projector's projections (PCA here; t-SNE and UMAP in a
  worker process, ``server/_manifold.py``) and nearest neighbours, each computed once.
- ``graph.py``: logged graphs and ``--model`` files, parsed once, views laid out once
  (``server/_graph/``).
- ``health.py``: ``/api/health``: how far indexing got, the logdirs, and what is wrong.

A job (``_jobs/``'s values as JSON):

- ``jobs.py``: ``/api/job``: the job's overview (throughput, skew, restarts, stragglers), its
  ``goodput`` field from ``goodput.py`` and its ``ends`` from ``job_ends.py`` (which also
  answers ``/api/job/end``, one writer's end with its traceback).
- ``jobpages.py``: each run's job page and what is built from the same data (the stragglers'
  causes, the system bands asked), built once per change of the run (``Index.run_version``)
  and served again within a poll, so that the page of 10,000 ranks is laid out once, not once
  per request.
- ``stragglers.py``: ``/api/job/stragglers``: why each straggler is slow.
- ``job_wrong.py``: ``/api/job/wrong``: the first non-finite value per tag and the first
  divergence of replicated tags, and their marks on a job's chart.
- ``heatmap.py``: ``/api/job/heatmap``: a rank x time matrix of a job, quantised to bytes.
- ``system.py``: ``/api/job/system`` and the list in ``/api/job``: a job's system metrics.

A new route is one entry in ``server/_http/routes.py``, one handler, one module here.
"""
