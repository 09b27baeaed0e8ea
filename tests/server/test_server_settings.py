"""Settings are checked where they are built: a bad field is a clear error, never a 500 later."""

from __future__ import annotations

import pathlib

import pytest

from visualdl.server._settings import Settings


@pytest.mark.parametrize(
    ("field", "value", "error", "message"),
    [
        ("max_points", 0, ValueError, "Settings.max_points must be from 5 to 100000; got 0"),
        ("max_points", 10**9, ValueError, "from 5 to 100000"),
        ("max_points", 5.0, TypeError, "must be an integer"),
        ("max_points", True, TypeError, "must be an integer"),
        ("max_points_limit", 4, ValueError, "Settings.max_points_limit must be from 5 to 10000000"),
        ("port", -1, ValueError, "Settings.port must be from 0 to 65535; got -1"),
        ("port", 65536, ValueError, "from 0 to 65535"),
        ("port", "8080", TypeError, "must be an integer"),
        ("reload_interval", 0, ValueError, "Settings.reload_interval must be above 0 and at most 86400"),
        ("reload_interval", float("nan"), ValueError, "above 0"),
        ("reload_interval", float("inf"), ValueError, "above 0"),
        ("reload_interval", "2", TypeError, "must be a number of seconds"),
        ("host", "", ValueError, "Settings.host must be a host name"),
        ("host", "local host", ValueError, "no spaces"),
        ("host", None, TypeError, "must be a string"),
        ("path_prefix", "visualdl", ValueError, "Settings.path_prefix must be '' or a URL path"),
        ("path_prefix", "/a/../b", ValueError, "no '..'"),
        ("path_prefix", "//evil.example", ValueError, "'//'"),
        ("path_prefix", "/a?b", ValueError, "?#%"),
        ("logdirs", "runs", TypeError, "Settings.logdirs must be a tuple of (name, path) pairs"),
        ("logdirs", (("", ""),), ValueError, "non-empty path"),
        ("logdirs", ("runs",), TypeError, "pairs"),
        ("models", "model.onnx", TypeError, "Settings.models must be a tuple of model file paths"),
        ("models", ("",), ValueError, "non-empty paths"),
        ("background", "no", TypeError, "Settings.background must be True or False"),
        ("cache_dir", 3, TypeError, "Settings.cache_dir must be a directory's path, or None"),
        ("cache_dir", "", ValueError, "Settings.cache_dir must be a non-empty path"),
    ],
)
def test_settings_bad_field_is_a_clear_error_where_built(field, value, error, message):
    with pytest.raises(error) as caught:
        Settings(**{field: value})
    assert message in str(caught.value)
    assert isinstance(caught.value, ValueError | TypeError)


def test_settings_max_points_within_its_own_limit():
    assert Settings(max_points=500, max_points_limit=500).max_points == 500
    with pytest.raises(ValueError, match=r"max_points must be from 5 to 500 \(max_points_limit\); got 5000"):
        Settings(max_points_limit=500)


def test_settings_lists_and_paths_become_tuples_and_strings(tmp_path):
    settings = Settings(logdirs=[["a", tmp_path]], models=[tmp_path / "m.onnx"])  # type: ignore[arg-type]
    assert settings.logdirs == (("a", str(tmp_path)),)
    assert settings.models == (str(pathlib.Path(tmp_path) / "m.onnx"),)
    hash(settings)  # a frozen value: usable as a key


def test_settings_cache_dir_is_given_or_the_environment_variable_and_reaches_the_index(tmp_path, monkeypatch):
    from visualdl._index.series import CACHE_DIR_ENV
    from visualdl.server._provider import DataProvider

    given, from_env = tmp_path / "given", tmp_path / "from-env"
    given.mkdir()
    from_env.mkdir()
    monkeypatch.delenv(CACHE_DIR_ENV, raising=False)
    assert Settings().cache_dir is None  # the system's temporary directory
    monkeypatch.setenv(CACHE_DIR_ENV, str(from_env))
    assert Settings().cache_dir == str(from_env)  # read where the settings are built
    settings = Settings(logdirs=(("", str(tmp_path)),), background=False, cache_dir=given)
    assert settings.cache_dir == str(given)
    provider = DataProvider(settings)
    assert [source.reader._spill.directory for source in provider._sources] == [str(given)]


def test_settings_defaults_are_valid_and_serve(tmp_path, make_app):
    app = make_app(str(tmp_path), poll=False)
    client = app.test_client()
    assert client.get("/api/scalars?tag=x&run=nope").status_code == 404


def test_a_logdir_named_by_one_letter_takes_an_absolute_path_off_windows(monkeypatch):
    from visualdl.server._settings import parse_logdir_spec

    assert parse_logdir_spec("b:/tmp/demo_logs") == ("b", "/tmp/demo_logs")
    assert parse_logdir_spec("train:exp/a") == ("train", "exp/a")
    assert parse_logdir_spec("exp/a") == ("", "exp/a")
    assert parse_logdir_spec("s3://bucket/exp") == ("", "s3://bucket/exp")
    assert parse_logdir_spec("dir/with:colon") == ("", "dir/with:colon")  # a name has no separator
    monkeypatch.setattr("os.name", "nt")
    assert parse_logdir_spec("C:/logs") == ("", "C:/logs")  # a drive letter on Windows
    assert parse_logdir_spec("C:\\logs") == ("", "C:\\logs")
