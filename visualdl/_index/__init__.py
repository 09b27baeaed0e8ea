"""Reading (layer 4b: above storage, beside the SDK, below the job analysis and the server).

Every file of every run of a logdir, followed as it grows: runs and files found through the
store, the bytes added since the last poll decoded by their format, points stored columnar
(spilled to a scratch file), events kept as references to their records, a job's ranks put
together. :class:`~visualdl._index.index.Index` is the internal query API that the server,
the notebook and :class:`~visualdl.LogReader` (``visualdl/_logreader.py``, the public facade
over it and over the job analysis) ask. Never imports the SDK: writing and reading stand
side by side.

Finding and following:

- ``discovery.py``: lists runs and files, and the problems of the listing.
- ``tail.py``: follows one file: the bytes added since last time, whole records out (a record
  over 16 MB checked a chunk at a time and handed to its decoder pruned of its images).
- ``polling.py``: the index's state and how polls fill it: the read threads and rounds.
- ``sidecars.py``: the fatal-signal sidecars of logs without an end, read after each poll.
- ``projector.py``: the projector files of TensorBoard's writers (``add_embedding``: a config
  and the files it names, parsed by ``_formats/projector.py``, through ``Store.resolve``, which
  refuses a path outside the logdir) as embeddings entries, read again when they change.

What is held:

- ``runs.py``: one run (its files, each tag's data per file, the versions its cached results
  are checked against) and how far each writer got.
- ``series.py``: columnar points, in memory or spilled to a scratch file; ``cache.py``: the
  one byte-bounded cache, the server's too; ``blobs.py``: where a blob lies in its log file,
  and reading it.
- ``system.py``: each file's system samples, apart from the tags (a table per declaration
  of columns, a row per metric).
- ``wrong.py``: as points are stored, each file's first non-finite point per tag
  (``firsts.py``) and the ranks' step-by-step agreement on each tag (``consensus.py``), for the
  first rank to go wrong.
- ``writers.py``: each file's ``WriterInfo``, its writer's end included, and the host-memory
  samples of a run gathered per host once (``HostMemories``); ``ends.py`` infers how a writer
  ended when its log does not say (a fatal signal, killed without a trace, probably out of
  memory; pure).

Series and jobs:

- ``streams.py``: a tag's files put together per stream (a place in a job), restarts resolved
  (``restarts.py``: the newest attempt wins from its first step on), and a job's ranks laid end
  to end for aggregation, the single-file streams read in one gather from the scratch file
  (``series.gather``).
- ``sessions.py``: TensorBoard's rule for its event files (a session start orphans the points
  read before it with a step at or past its own, by file order, never by wall time).
- ``aggregate.py``: one tag over a job's ranks (mean, min, max, quantiles, the rank at each
  extreme); ``quantileranks.py`` names the rank at each quantile's edge (numpy's nearest-rank
  order statistic, a pass per quantile over the block the band already holds);
  ``outliers.py`` collapses the ranks at an extreme or an edge into ranges of steps held by one rank.
- ``downsample.py``: min/max-preserving buckets (a spike is never hidden), a long series a
  piece at a time.
- ``systembands.py``: one system metric of many ranks on a time grid, its bands over ranks (pure).

Runs as a table:

- ``runquery.py``: the query language over runs (a grammar, never ``eval``; three-valued logic
  over numpy columns; regexes by RE2), evaluated over ``runcolumns.py``'s columns of runs.
- ``runtable.py``: every run as a row of the columns it evaluates over (status, host, times,
  hparams, a tag's last, min and max from one gather of every run's points).
- ``experiments.py``: which metrics each trial of a hyperparameter search has and which run
  each is read from (declared by the nearest experiment above the trial, or every scalar tag
  of its runs, as TensorBoard's hparams plugin; pure).

The queries: ``index.py`` (:class:`Index`).
"""
