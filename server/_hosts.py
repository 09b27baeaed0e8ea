"""Which ``Host`` headers the server answers: the guard against DNS rebinding. Pure: no flask, no I/O.

A web page the user visits can point its own name at 127.0.0.1 (DNS rebinding) and then
read this server as if it were the page's own origin. Its requests carry the page's name
in ``Host``, so the server answers only:

- loopback names: ``localhost`` and loopback IP addresses (127.0.0.1, ``[::1]``, ...);
- the address it was told to bind (``--host``), unless that is a wildcard (0.0.0.0, ::);
- the names the user allows (``Settings.allowed_hosts``: ``--allow-host NAME`` and the
  host of ``VISUALDL_PROXY_URL``); ``*.example.org`` allows every name under example.org
  (``a.example.org``, ``b.c.example.org``; not ``example.org`` itself, nor IP addresses);
  ``*`` allows any name.

Ports are not compared: a name is what a rebinding page cannot fake. A request without a
``Host`` header (HTTP/1.0, not a browser) is answered.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

__all__ = ["ANY_HOST", "HostPolicy", "host_name", "is_loopback", "is_wildcard", "normalise_host_name"]

#: The ``allowed_hosts`` entry that allows every name (and so turns the guard off).
ANY_HOST = "*"
#: The start of an ``allowed_hosts`` entry that allows every name under a domain.
_SUBDOMAINS = "*."
_WILDCARD_BINDS = frozenset({"", "0.0.0.0", "::", "[::]", "*"})
# uri-host [":" port] (RFC 9110): an IP literal in brackets, or a name/IPv4 address without colons.
_HOST_HEADER = re.compile(r"(\[[0-9A-Za-z:.%]+\]|[^:\[\]/@\s]+)(?::[0-9]{0,5})?")
_NAME = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*")


def host_name(header: str) -> str | None:
    """The name in a ``Host`` header, normalised: ``Example.COM.:8080`` -> ``example.com``,
    ``[::1]:80`` -> ``::1``; ``None`` when the header is not a host."""
    match = _HOST_HEADER.fullmatch(header)
    if match is None:
        return None
    try:
        return normalise_host_name(match[1])
    except ValueError:
        return None


def normalise_host_name(name: str) -> str:
    """``name`` (a host name, an IP address, ``[IPv6]`` or ``*``) in the form the guard compares:
    lower case, no brackets, no trailing dot. ``ValueError`` for anything else (a port, a URL)."""
    text = name.strip().lower()
    if text == ANY_HOST:
        return text
    if text.startswith(_SUBDOMAINS):  # *.example.org: the names under a domain
        domain = text[len(_SUBDOMAINS) :]
        if _is_ip(domain.strip("[]")):
            raise ValueError(f"{name[:100]!r}: '*.' takes a domain name, e.g. '*.example.org', not an IP address")
        if domain.startswith(_SUBDOMAINS[0]):
            raise ValueError(f"{name[:100]!r}: '*.' takes a domain name once, e.g. '*.example.org'")
        return _SUBDOMAINS + normalise_host_name(domain)
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        pass
    text = text[:-1] if text.endswith(".") else text
    if not text or len(text) > 253 or _NAME.fullmatch(text) is None:
        raise ValueError(
            f"{name[:100]!r} is not a host name or IP address; give one without a port or scheme, e.g. "
            "'example.org', '10.0.0.5' or '[fe80::1]' (or '*' for any)"
        )
    return text


def is_loopback(name: str) -> bool:
    """``localhost`` or a loopback IP address (``name`` as :func:`normalise_host_name` gives it)."""
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def is_wildcard(bind: str) -> bool:
    """Whether binding ``bind`` listens on every interface (0.0.0.0, ::)."""
    return bind.strip().lower() in _WILDCARD_BINDS


@dataclass(frozen=True, slots=True)
class HostPolicy:
    """The names answered besides loopback ones; ``any_host`` when ``*`` was allowed."""

    names: frozenset[str]
    any_host: bool = False
    #: ``.example.org`` for each ``*.example.org`` allowed.
    suffixes: tuple[str, ...] = ()

    @classmethod
    def of(cls, bind: str, allowed: tuple[str, ...]) -> HostPolicy:
        """The policy of a server bound to ``bind`` that allows ``allowed`` (``Settings.allowed_hosts``)."""
        names = {normalise_host_name(name) for name in allowed}
        if not is_wildcard(bind):
            try:
                names.add(normalise_host_name(bind))
            except ValueError:
                pass  # an address waitress will refuse to bind anyway
        suffixes = tuple(sorted(name[1:] for name in names if name.startswith(_SUBDOMAINS)))
        exact = frozenset(name for name in names if name != ANY_HOST and not name.startswith(_SUBDOMAINS))
        return cls(exact, ANY_HOST in names, suffixes)

    def allows(self, header: str | None) -> bool:
        """Whether to answer a request whose ``Host`` header is ``header`` (``None``: none sent)."""
        if header is None or self.any_host:
            return True
        name = host_name(header)
        if name is None:
            return False
        if is_loopback(name) or name in self.names:
            return True
        return any(name.endswith(suffix) for suffix in self.suffixes) and not _is_ip(name)


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True
