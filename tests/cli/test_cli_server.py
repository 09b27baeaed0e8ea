"""`visualdl --logdir` as a user starts it: a subprocess serving on its port, stopped by signals."""

from __future__ import annotations

import http.client
import json
import signal
import socket
import subprocess
import sys
import urllib.request

import pytest
from kit.servers import stop_process
from kit.waiting import wait_until

from visualdl import LogWriter

pytestmark = pytest.mark.e2e  # each test starts visualdl in a process of its own: about a CPU second


def _start(args, env):
    proc = subprocess.Popen(
        [sys.executable, "-m", "visualdl", *args],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    line = proc.stdout.readline()  # the URL line comes once the port is bound
    return proc, line


def _answer(url: str):
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return [json.loads(response.read())]
    except OSError:
        return None  # the server is starting


def _get(url: str, deadline: float = 20.0):
    """The JSON at ``url`` once the server answers (it may still be binding its port)."""
    return wait_until(lambda: _answer(url), deadline, f"an answer from {url}")[0]


def _wait_until(predicate, deadline: float = 20.0):
    wait_until(predicate, deadline, "the live server's answer", interval=0.1)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_serves_on_its_port_and_stops_cleanly(tmp_path, child_env, sig, free_port):
    with LogWriter(str(tmp_path / "run1")) as w:
        w.add_scalar("loss", 0.25, 3)
    port = free_port
    proc, line = _start(["--logdir", str(tmp_path), "--port", str(port), "--reload-interval", "0.2"], child_env)
    try:
        assert f"http://127.0.0.1:{port}/" in line
        _wait_until(lambda: _get(f"http://127.0.0.1:{port}/api/health")["loaded"])
        body = _get(f"http://127.0.0.1:{port}/api/scalars?tag=loss&run=run1")
        assert body["runs"][0]["values"] == [0.25]
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=20)
        assert proc.returncode == 0, err
        assert "VisualDL stopped" in out and "Traceback" not in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_port_in_use_is_a_one_line_error(tmp_path, child_env):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "visualdl", "--logdir", str(tmp_path), "--port", str(port)],
            env=child_env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"cannot serve on 127.0.0.1:{port}" in lines[0]


def test_missing_logdir_is_watched_until_it_appears(tmp_path, child_env, free_port):
    logdir = tmp_path / "later"
    port = free_port
    proc, line = _start(["--logdir", str(logdir), "--port", str(port), "--reload-interval", "0.2"], child_env)
    try:
        assert f":{port}/" in line
        health = _get(f"http://127.0.0.1:{port}/api/health")
        assert health["logdirs"][0]["exists"] is False
        with LogWriter(str(logdir)) as w:
            w.add_scalar("x", 1.0, 0)
        _wait_until(lambda: [r["name"] for r in _get(f"http://127.0.0.1:{port}/api/runs")["runs"]] == ["."])
    finally:
        _, err = stop_process(proc, signal.SIGINT)
    assert "does not exist yet; watching for it" in err and "Traceback" not in err


@pytest.mark.parametrize("inspect", [False, True])
def test_a_file_given_as_the_logdir_is_named_as_not_a_directory(tmp_path, child_env, inspect):
    readme = tmp_path / "README.md"
    readme.write_text("# not logs\n")
    args = [sys.executable, "-m", "visualdl", "--logdir", str(readme), *(["--inspect"] if inspect else ["--port", "0"])]
    done = subprocess.run(args, env=child_env, capture_output=True, text=True, timeout=60)
    assert done.returncode == (1 if inspect else 2)
    assert f"logdir {str(readme)!r} is a file, not a directory" in done.stderr, done.stderr
    assert "does not exist" not in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "args",
    [["--logdir", "x", "--port", "notaport"], ["--logdir", "x", "--reload-interval", "-1"],
     ["--logdir", "x", "--max-points", "1"], ["--logdir", "x", "--path-prefix", "a/../b"], [],
     ["--logdir", "x", "--port", "70000"], ["--logdir", "x", "--reload-interval", "nan"],
     ["--logdir", "x", "--host", ""], ["--logdir", "x", "--max-points", "1e3"],
     ["--logdir", "x", "--allow-host", "example.org:8080"], ["--logdir", "x", "--allow-host", "http://a.example"]],
)  # fmt: skip
def test_bad_arguments_are_usage_errors(child_env, args):
    result = subprocess.run([sys.executable, "-m", "visualdl", *args], env=child_env, capture_output=True, text=True)
    assert result.returncode == 2
    assert "usage:" in result.stderr and "Traceback" not in result.stderr
    if args:  # the option and its rule, in the words Settings uses
        assert f"argument {args[2]}: " in result.stderr


def test_other_host_warns_that_logs_are_visible(tmp_path, child_env, free_port):
    port = free_port
    proc, line = _start(["--logdir", str(tmp_path), "--host", "0.0.0.0", "--port", str(port)], child_env)
    try:
        assert f"http://0.0.0.0:{port}/" in line
    finally:
        _, err = stop_process(proc, signal.SIGTERM)
    assert "visible to the network" in err
    assert "only requests for localhost, 127.0.0.1, [::1] are answered" in err and "--allow-host '*'" in err


def _status(port: int, host: str, path: str = "/api/runs") -> tuple[int, dict]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path, headers={"Host": host})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def test_allow_host_and_proxy_url_host_are_answered_others_get_403(tmp_path, child_env, free_port):
    port = free_port
    env = dict(child_env, VISUALDL_PROXY_URL="https://Hub.Example/user/me/proxy/%PORT%/")
    args = ["--logdir", str(tmp_path), "--port", str(port), "--allow-host", "viz.example", "--allow-host", "[::2]"]
    proc, _ = _start(args, env)
    try:
        _get(f"http://127.0.0.1:{port}/api/health")
        for host in (f"localhost:{port}", "viz.example", f"hub.example:{port}", "[::2]:80"):
            assert _status(port, host)[0] == 200, host
        status, body = _status(port, "attacker.example", "/api/health")
        assert status == 403 and "--allow-host attacker.example" in body["error"]
        assert str(tmp_path) not in json.dumps(body)
    finally:
        _, err = stop_process(proc, signal.SIGTERM)
    assert "warning" not in err and "Traceback" not in err


def test_allow_host_any_name_is_said_in_a_warning(tmp_path, child_env, free_port):
    port = free_port
    proc, _ = _start(["--logdir", str(tmp_path), "--port", str(port), "--allow-host", "*"], child_env)
    try:
        _get(f"http://127.0.0.1:{port}/api/health")
        assert _status(port, "anything.example")[0] == 200
    finally:
        _, err = stop_process(proc, signal.SIGTERM)
    assert "answering any Host name (--allow-host '*')" in err and "DNS rebinding" in err
    assert "visible to the network" not in err  # bound to 127.0.0.1


def test_help_documents_every_option(child_env):
    out = subprocess.run([sys.executable, "-m", "visualdl", "--help"], env=child_env, capture_output=True, text=True)
    options = ("--logdir", "--host", "--port", "--reload-interval", "--max-points", "--path-prefix", "--model")
    for option in (*options, "--allow-host"):
        assert option in out.stdout


def _raw(port: int, data: bytes) -> tuple[bytes, bytes]:
    """Send ``data`` as it is; the answer's head and body. A reset before the answer is read
    (the server closes with bytes of ours unread) is retried."""
    for attempt in range(5):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(data)
            s.shutdown(socket.SHUT_WR)
            answer = b""
            try:
                while chunk := s.recv(65536):
                    answer += chunk
            except ConnectionResetError:
                if attempt < 4 and b"\r\n\r\n" not in answer:
                    continue
        head, _, body = answer.partition(b"\r\n\r\n")
        return head, body
    raise AssertionError("unreachable")


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [(b"GET /api/runs HTTP/1.1\r\nHost: localhost\r\nBad Header\r\n\r\n", b"400"),
     (b"BLAH\r\n\r\n", b"400"),
     (b"GET /api/runs HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"a" * 262_200 + b"\r\n\r\n", b"431")],
    ids=["bad-header", "bad-request-line", "headers-too-large"],
)  # fmt: skip
def test_http_server_errors_are_json_too(tmp_path, child_env, request_bytes, status, free_port):
    port = free_port
    proc, _ = _start(["--logdir", str(tmp_path), "--port", str(port)], child_env)
    try:
        _get(f"http://127.0.0.1:{port}/api/health")
        head, body = _raw(port, request_bytes)
        assert head.split(b" ")[1] == status, head
        assert b"Content-Type: application/json" in head
        assert json.loads(body)["error"]
    finally:
        stop_process(proc, signal.SIGTERM)
