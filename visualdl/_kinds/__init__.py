"""The kinds of record, a module each (layer 1: above the schema, below the formats).

What each record kind is: its value class (``ImageEvent``, ``ScalarBlock``, ...), its record
builder and the decoder of our own records. Each module declares its kind's
:class:`~visualdl._kinds.kind.Kind` entry in one place; :mod:`visualdl._kinds.table`
assembles them into ``KINDS``, the table that the writer, the reader, the API and the UI
dispatch through. Nothing here imports from :mod:`visualdl._formats`: the formats import the
kinds' event classes, not the reverse.

- ``kind.py``: what a kind declares (:class:`Kind`), the record built for it, where a blob
  lies (:class:`RecordRef`).
- ``table.py``: ``KINDS``, in the order the UI shows them, and the kinds' names re-exported.
- The kinds of data: ``scalars.py`` (batches of points of several tags, one record per
  flush; their column codecs in ``columns.py``), ``image.py``, ``audio.py``, ``text.py``,
  ``histogram.py``, ``pr_curve.py``, ``roc_curve.py`` (their float64 columns in
  ``float64.py``), ``graph.py``, ``hparams.py``, ``embeddings.py``, ``scalar_layout.py``.
- The records of a writer that are not data: ``meta.py`` (a run's display name),
  ``process_end.py`` (how the process ended), ``system_metrics.py`` (samples of the
  process's, host's and GPUs' metrics), ``tag_info.py`` (a property of one tag: replicated).
- ``png.py`` and ``wav.py`` read an image's and a clip's shape from its header, so that
  foreign logs' images and clips are listed without decoding them.
"""
