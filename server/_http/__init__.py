"""The HTTP layer (layer 7): the only place that imports flask.

Every route is declared once, with its parameters, limits and answer schema; the OpenAPI
document (``/api/openapi.json``) is generated from that table, and the server parses queries
with it. Handlers parse and delegate to the provider and the views; answers are JSON through
orjson, gzipped over 8 KiB and tagged with a weak ETag of their bytes (``If-None-Match`` gets
a 304).

- ``routes.py``: ``ROUTES``, each route's path, summary, query parameters, answer and errors;
  ``params.py``: query parameters declared once (limits, JSON schema, parsing).
- ``openapi.py``: the OpenAPI document, generated from ``ROUTES``.
- ``answers.py`` and its siblings, one per family of answers (``answers_kinds.py``,
  ``answers_graph.py``, ``answers_goodput.py``, ``answers_job_ends.py``,
  ``answers_stragglers.py``, ``answers_system.py``, ``answers_wrong.py``): the answers' JSON
  Schema, built with ``jsonschema.py``'s few words.
- ``handlers.py``: what answers each route: the parsed query in, the answer out.
- ``api.py``: one blueprint over the provider, one error handler, gzip and ETags;
  ``jsonio.py``: JSON responses through orjson, numpy arrays serialized natively.
- ``blobs.py``: images, audio and graphs streamed from their log files with their length.
- ``static.py``: the web UI's files at content-hashed URLs, cached for a year, sent gzipped.
- ``wsgiserver.py``: waitress, the multi-threaded WSGI server, answering its own errors in JSON too.
"""
