"""A TCP proxy that injects the faults of a network between a client and an object store.

Put it in front of the S3 API server on loopback (``FaultProxy(host, port)``, then point
``AWS_ENDPOINT_URL`` at ``proxy.url``) and switch its mode while a writer or a reader works
through it:

- ``pass``: bytes are forwarded both ways.
- ``refuse``: new connections are reset at once (RST), and so are the open ones at the
  switch: an endpoint whose process is gone.
- ``blackhole``: new connections are accepted and then neither read nor answered nor
  closed, and the open ones go silent the same way: a host that hangs.
- ``drop_answers``: requests reach the store (and take effect), but each answer is
  swallowed and the client's connection closed before a byte of it arrives.
- ``outage(seconds)``: a silent outage (a dead host, a dropped NAT entry): for
  ``seconds``, every connection open or opened goes silent (nothing read, nothing sent,
  nothing closed), then new connections pass again. The connections that went silent
  stay silent for good, as a flow whose NAT entry was dropped: a client must give up on
  them and connect anew.

Silent connections are not read from: a client writing a large body blocks once the
socket buffers are full, as it does when its packets are dropped. Everything held is
closed by :meth:`FaultProxy.stop`. ``counts`` says how many connections each mode saw.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import struct
import threading
import time
from collections import Counter
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

__all__ = ["FAST_CLIENT", "MODES", "FaultProxy", "client_env", "fault_proxy"]

MODES = ("pass", "refuse", "blackhole", "drop_answers", "outage")
T = TypeVar("T")

#: fsspec's settings of an S3 client that gives up fast (tests): what ``FSSPEC_S3`` holds.
FAST_CLIENT = {"config_kwargs": {"connect_timeout": 0.5, "read_timeout": 1.0, "retries": {"total_max_attempts": 1}}}


def client_env(proxy: FaultProxy) -> dict[str, str]:
    """Environment variables of a process whose S3 client goes through ``proxy`` and gives
    up fast."""
    return {"AWS_ENDPOINT_URL": proxy.url, "FSSPEC_S3": json.dumps(FAST_CLIENT)}


class _Link:
    """One client connection and, unless it is silent, its upstream connection."""

    def __init__(self, client: asyncio.StreamWriter) -> None:
        self.client = client
        self.upstream: asyncio.StreamWriter | None = None
        self.silent = asyncio.Event()

    def reset(self) -> None:
        _reset(self.client)
        if self.upstream is not None:
            self.upstream.transport.abort()


def _reset(writer: asyncio.StreamWriter) -> None:
    sock = writer.transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


class FaultProxy:
    """A proxy to ``upstream_host:upstream_port`` on 127.0.0.1, served by a thread of its own."""

    def __init__(self, upstream_host: str, upstream_port: int) -> None:
        self.upstream = (upstream_host, upstream_port)
        self.mode = "pass"
        self.counts: Counter[str] = Counter()  # connections accepted, by the mode they met
        self._outage_until = 0.0
        self._links: set[_Link] = set()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="faultproxy", daemon=True)
        self._server: asyncio.Server | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FaultProxy:
        self._thread.start()
        self._server = self._call(asyncio.start_server(self._serve, "127.0.0.1", 0))
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def stop(self) -> None:
        async def stop() -> None:
            assert self._server is not None
            self._server.close()
            for link in list(self._links):
                link.reset()
            self._links.clear()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        self._call(stop())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    def set(self, mode: str, seconds: float = 0.0) -> None:
        """Switch to ``mode`` (one of :data:`MODES`); ``outage`` lasts ``seconds``, then the
        proxy passes again on its own."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}; got {mode!r}")

        async def switch() -> None:
            self.mode = mode
            if mode == "outage":
                self._outage_until = time.monotonic() + seconds
            if mode == "refuse":
                for link in list(self._links):
                    link.reset()
                self._links.clear()
            elif mode in ("blackhole", "outage"):
                for link in self._links:
                    link.silent.set()

        self._call(switch())

    def current(self) -> str:
        """The mode new connections meet now (an outage over is ``pass``)."""
        if self.mode == "outage" and time.monotonic() >= self._outage_until:
            return "pass"
        return self.mode

    def _call(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(10)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._connection(reader, writer)
        except asyncio.CancelledError:  # stop(): ended quietly (asyncio reports a cancelled handler)
            writer.transport.abort()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        mode = self.current()
        self.counts[mode] += 1
        if mode == "refuse":
            _reset(writer)
            return
        link = _Link(writer)
        self._links.add(link)
        try:
            if mode in ("blackhole", "outage"):
                link.silent.set()
                await self._hold(link)
                return
            try:
                up_reader, link.upstream = await asyncio.open_connection(*self.upstream)
            except OSError:
                _reset(writer)
                return
            await asyncio.gather(
                self._pump(link, reader, link.upstream, answers=False),
                self._pump(link, up_reader, writer, answers=True),
            )
        finally:
            self._links.discard(link)

    async def _hold(self, link: _Link) -> None:
        """A silent connection: nothing read or written; closed only by stop() (or a reset)."""
        for writer in (link.client, link.upstream):
            if writer is not None:
                transport = writer.transport
                assert isinstance(transport, asyncio.ReadTransport)
                transport.pause_reading()
        await asyncio.Event().wait()

    async def _pump(
        self, link: _Link, source: asyncio.StreamReader, sink: asyncio.StreamWriter, *, answers: bool
    ) -> None:
        try:
            while True:
                read = asyncio.ensure_future(source.read(1 << 16))
                silent = asyncio.ensure_future(link.silent.wait())
                done, _ = await asyncio.wait({read, silent}, return_when=asyncio.FIRST_COMPLETED)
                if silent in done:
                    read.cancel()
                    await self._hold(link)
                silent.cancel()
                data = read.result()
                if not data:
                    sink.close()
                    return
                if answers and self.mode == "drop_answers":
                    while data.startswith(b"HTTP/1.1 100 "):  # "send the body": the request goes on
                        head, _, data = data.partition(b"\r\n\r\n")
                        sink.write(head + b"\r\n\r\n")
                    if not data:
                        continue
                    link.reset()  # the request took effect; its answer never arrives
                    return
                sink.write(data)
                await sink.drain()
        except (OSError, asyncio.CancelledError):
            link.reset()


@contextlib.contextmanager
def fault_proxy(endpoint: str) -> Iterator[FaultProxy]:
    """A started :class:`FaultProxy` in front of ``endpoint`` (``http://host:port``), stopped
    at the end."""
    host, _, port = endpoint.removeprefix("http://").rpartition(":")
    proxy = FaultProxy(host, int(port)).start()
    try:
        yield proxy
    finally:
        proxy.stop()
