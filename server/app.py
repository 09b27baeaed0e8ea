"""``create_app(settings)``: the Flask app of the server. No app at module level."""

from __future__ import annotations

from flask import Flask

from visualdl.server._http.api import build_blueprint
from visualdl.server._http.jsonio import OrjsonProvider
from visualdl.server._provider import DataProvider
from visualdl.server._reload import Reloader
from visualdl.server._settings import Settings

__all__ = ["Settings", "create_app"]


def create_app(settings: Settings, provider: DataProvider | None = None) -> Flask:
    """The app serving ``settings.logdirs``; starts background indexing unless told not to
    (then the :class:`Reloader` is ``app.extensions["visualdl.reloader"]``)."""
    app = Flask(__name__, static_folder=None)
    app.json = OrjsonProvider(app)
    provider = provider or DataProvider(settings)
    app.extensions["visualdl.provider"] = provider
    app.register_blueprint(build_blueprint(settings))
    if settings.background:
        reloader = Reloader(provider, settings.reload_interval)
        app.extensions["visualdl.reloader"] = reloader
        reloader.start()
    return app
