"""The HTTP side of VisualDL: the JSON API and the static web UI over LogReader.

Nothing outside this package imports flask.
"""
