"""The web UI's static files (HTML, ES modules, CSS), served by :mod:`visualdl.server`.

A package only so that ``importlib.resources.files("visualdl.frontend_static")`` finds
the folder, installed or in a checkout; it holds no Python code.
"""
