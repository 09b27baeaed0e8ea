"""The serving side of VisualDL: queries and views (layer 6) under the HTTP layer (layer 7).

Above the index and the job analysis. The provider answers typed calls, the views shape
each answer's JSON from its values, and the HTTP layer (``_http/``, ``app.py``), the only
place that imports flask, routes requests to them. The views never import the HTTP layer.

- ``_provider/``: :class:`DataProvider`: keyword-only ``list_*``/``read_*`` calls that return
  typed values (``_data.py``); no JSON, no thread (its package docstring lists its modules).
- ``_data.py``: the values the provider answers with: typed, immutable.
- ``_reload.py``: the reload thread and its counters.
- ``_views/``: one module per answer, building its JSON shape (a ``TypedDict``) from the
  provider's and the job analysis' values (its package docstring lists them).
- ``_graph/``: the graph model of ONNX files, its blocks and its layout (pure), and TensorBoard's
  ``GraphDef`` converted into an ONNX model it draws.
- ``_settings.py`` and ``_hosts.py``: configuration (``Settings``, checked field by field) and
  the ``Host`` headers answered, the guard against DNS rebinding.
- ``_patterns.py``: regular expressions that come from the logs, matched by RE2 in linear time.
- ``_rebin.py``: a histogram's buckets re-binned onto even bins for the charts
  (``/api/histograms?bins=``, the notebook's; pure).
- ``_manifold.py``: t-SNE and UMAP in a worker process with memory and time limits (the
  projector's view starts them).
- ``_http/``: routes, handlers, blobs, static files, JSON (its package docstring lists them).
- ``app.py``: ``create_app(settings)``, the Flask app's factory.
"""
