"""DNS rebinding: the server answers only trusted Host names, and never sends a Host back in a redirect."""

from __future__ import annotations

import os

import pytest
from kit.apps import build_app
from werkzeug.test import EnvironBuilder, run_wsgi_app

from visualdl import LogWriter
from visualdl.server._hosts import HostPolicy, host_name
from visualdl.server._settings import Settings


@pytest.fixture
def logs(logdir):
    with LogWriter(os.path.join(logdir, "train")) as w:
        w.add_scalar("loss", 0.5, 0)
    return logdir


def _client(logdir: str, **settings):
    app = build_app(logdir, **settings)
    return app.test_client()


def _every_url(client) -> list[str]:
    """A GET of every route, with parameters that make most of them answer 200."""
    urls = ["/", "/static/app.js", "/vendor/plotly.min.js", "/api/nothing"]
    for rule in client.application.url_map.iter_rules():
        if rule.rule.startswith("/api/"):
            urls.append(rule.rule + "?run=train&tag=loss")
    return urls


@pytest.mark.parametrize(
    "host", ["localhost", "localhost:8080", "LocalHost:1", "127.0.0.1", "127.0.0.1:6006", "[::1]", "[::1]:8080"]
)
def test_loopback_host_names_are_answered(logs, host):
    client = _client(logs)
    response = client.get("/api/runs", headers={"Host": host})
    assert response.status_code == 200
    assert [r["name"] for r in response.get_json()["runs"]] == ["train"]


@pytest.mark.parametrize(
    "host",
    ["attacker.example", "attacker.example:8080", "localhost.attacker.example", "127.0.0.1.attacker.example",
     "0.0.0.0:8080", "10.0.0.5", "", "a b", "[::1", "localhost:8080@attacker.example", "xn--bcher-kva.example"],
)  # fmt: skip
def test_other_host_names_get_403_json_naming_the_option(logs, host):
    client = _client(logs)
    for url in _every_url(client):
        response = client.get(url, headers={"Host": host})
        assert response.status_code == 403, (url, response.status_code)
        error = response.get_json()["error"]
        assert "--allow-host" in error and "DNS rebinding" in error
        assert logs not in response.get_data(as_text=True)  # /api/health's absolute paths stay private


def test_bound_host_and_allowed_names_are_answered(logs):
    client = _client(logs, host="192.0.2.10", allowed_hosts=("viz.example", "Other.Example.", "[2001:db8::1]"))
    for host in ("192.0.2.10:8080", "viz.example", "VIZ.example:80", "other.example", "[2001:db8::1]:1", "localhost"):
        assert client.get("/api/runs", headers={"Host": host}).status_code == 200, host
    for host in ("viz.example.attacker.example", "192.0.2.11", "example"):
        assert client.get("/api/runs", headers={"Host": host}).status_code == 403, host


def test_wildcard_bind_answers_other_names_only_when_allowed(logs):
    client = _client(logs, host="0.0.0.0")
    for host in ("0.0.0.0:8080", "192.0.2.10", "myworkstation"):
        assert client.get("/api/runs", headers={"Host": host}).status_code == 403, host
    assert client.get("/api/runs", headers={"Host": "127.0.0.1:8080"}).status_code == 200
    anyone = _client(logs, host="0.0.0.0", allowed_hosts=("*",))
    assert anyone.get("/api/runs", headers={"Host": "myworkstation:8080"}).status_code == 200


def test_request_without_host_header_is_answered(logs):
    client = _client(logs)
    response = client.get("/api/runs", environ_overrides={"HTTP_HOST": None})
    assert response.status_code == 200


def test_redirects_are_relative_and_never_name_the_host(logs):
    client = _client(logs, path_prefix="/visualdl", allowed_hosts=("*",))
    response = client.get("/visualdl", headers={"Host": "attacker.example"})
    assert response.status_code == 308 and response.headers["Location"] == "/visualdl/"
    merged = client.get("/visualdl//api//runs?x=1", headers={"Host": "attacker.example"})
    assert merged.status_code == 308 and merged.headers["Location"] == "/visualdl/api/runs?x=1"


def test_redirect_for_a_loopback_host_with_a_bad_port_is_no_500(logs, make_app):
    app = make_app(logs, poll=False)
    builder = EnvironBuilder(path="/api//runs", headers=[("Host", "localhost:99999")])
    chunks, status, headers = run_wsgi_app(app, builder.get_environ(), buffered=True)  # the test client parses Host
    assert status.startswith("308") and headers["Location"] == "/api/runs", b"".join(chunks)


@pytest.mark.parametrize(
    ("header", "name"),
    [("Example.ORG", "example.org"), ("example.org.:443", "example.org"), ("[::1]:80", "::1"),
     ("[0:0::1]", "::1"), ("127.0.0.1:", "127.0.0.1"), ("a b", None), ("x:y", None), ("[::1", None),
     ("", None), ("user@host", None), ("host/path", None), ("::1", None)],
)  # fmt: skip
def test_host_name_of_a_header(header, name):
    assert host_name(header) == name


def test_host_policy_of_settings():
    policy = HostPolicy.of("0.0.0.0", ("viz.example",))
    assert policy.names == frozenset({"viz.example"}) and not policy.any_host
    assert HostPolicy.of("::", ("*",)).any_host
    assert HostPolicy.of("Box.Example", ()).allows("box.example:8080")


@pytest.mark.parametrize("bad", ["example.org:8080", "http://example.org", "exa mple", "", "a/b", "ex@mple"])
def test_allowed_hosts_take_names_without_ports(bad):
    with pytest.raises(ValueError, match=r"Settings.allowed_hosts .* is not a host name or IP address"):
        Settings(allowed_hosts=(bad,))


def test_allowed_subdomains_of_a_domain():
    policy = HostPolicy.of("127.0.0.1", ("*.Example.org.",))
    assert policy.suffixes == (".example.org",)
    for host in ("a.example.org", "B.c.Example.ORG:8080", "x-1.example.org."):
        assert policy.allows(host), host
    for host in ("example.org", "aexample.org", "example.org.evil.net", "a.example.com", "evil.net"):
        assert not policy.allows(host), host


@pytest.mark.parametrize("bad", ["*.10.0.0.1", "*.[::1]", "*.", "*.exa mple", "*.*.example.org"])
def test_allowed_subdomains_take_a_domain_name(bad):
    with pytest.raises(ValueError, match=r"Settings\.allowed_hosts"):
        Settings(allowed_hosts=(bad,))


def test_allowed_subdomains_through_the_app(logs):
    client = _client(logs, allowed_hosts=("*.viz.example",))
    assert client.get("/api/runs", headers={"Host": "gpu7.viz.example:8080"}).status_code == 200
    assert client.get("/api/runs", headers={"Host": "viz.example.evil"}).status_code == 403
