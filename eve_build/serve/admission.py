"""Which requests `eve serve` admits: one policy, checked before any route runs.

    policy = derive_admission("127.0.0.1", allow_hosts=["agent.example.com"])
    app = Starlette(..., middleware=[Middleware(Admission, policy=policy), ...])

Every route (channels, the session routes, `/.eve/health`, `/mcp`, any route added
later) passes three checks, in this order, each answered in the one error shape
(eve_build.serve.answers) before the route sees the request:

1. **Host** (DNS rebinding): the `Host` header must name an admitted host: the
   loopback names (`localhost`, `127.0.0.1`, `[::1]`), the address the server
   listens on, each `--allow-host` (`*`: any), and, when it listens on every address
   (`0.0.0.0`, `::`), any IP address (a rebinding page can only use a name). Any
   port. Else 421 `serve/host-refused`.
2. **Origin** (cross-site requests from a browser): a request without `Origin` is
   not from a page; with one, it must be the server's own origin (its host and port
   are the request's `Host`) or an `--allow-origin` (`https://app.example.com`,
   `http://localhost:*` for any port, `*` for any). Else 403 `serve/origin-refused`
   (`Origin: null` included).
3. **Content type** of the JSON routes (`/.eve/...`, `/mcp`): a request with a
   body must say `application/json` (or `application/<x>+json`), so a page's form
   or `text/plain` fetch cannot pass for JSON. Else 415
   `serve/content-type-refused`. A channel that reads `request.json()` applies the
   same rule to its body (eve_build.serve.request).

An origin that is admitted is also answered the CORS headers a browser needs to send
JSON and read the reply (`derive_cors`: preflights of `OPTIONS`, `Access-Control-*`).

The routes have no authentication of their own: this policy only keeps browsers on
other sites out (docs/deploying.md, "Who may call the server").
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from eve_build.diagnostics import Diagnostic, error
from eve_build.errors import DiagnosticsError

if TYPE_CHECKING:
    from starlette.middleware import Middleware
    from starlette.types import ASGIApp, Receive, Scope, Send

HOSTS_VARIABLE = "EVE_ALLOW_HOSTS"
ORIGINS_VARIABLE = "EVE_ALLOW_ORIGINS"
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
WILDCARD_ADDRESSES = ("", "0.0.0.0", "::")
JSON_PREFIXES = ("/.eve/", "/mcp/")
JSON_PATHS = ("/mcp",)
"""The routes whose bodies are JSON: every `/.eve/` route (sessions, health) and MCP."""
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_HOST = re.compile(r"^(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[^:\[\]/]+))(?::(?P<port>\d*))?$")
_ORIGIN = re.compile(r"^(?P<scheme>https?)://(?P<host>\[[0-9A-Fa-f:.]+\]|[^:/\[\]@?#]+)"
                     r"(?::(?P<port>\d+|\*))?$")
_LABEL = re.compile(r"^[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?$")


@dataclass(frozen=True)
class Refusal:
    """Why a request is not admitted: its status, code, message and hint; `seen` is the
    header value refused, for the log only (an answer never echoes what a page sent)."""

    status: int
    code: str
    message: str
    hint: str
    seen: str = ""


@dataclass(frozen=True)
class AdmissionPolicy:
    """The hosts and origins admitted (see the module docstring); build it with
    `derive_admission`."""

    hosts: frozenset[str]  # lower case, no port, IPv6 without brackets; "*": any
    origins: tuple[str, ...]  # `scheme://host[:port]`, port `*` for any; "*": any
    any_ip: bool = False  # the server listens on every address

    def check(self, method: str, path: str, headers: Iterable[tuple[bytes, bytes]],
              ) -> Refusal | None:
        """The refusal of this request, None when it is admitted."""
        host = origin = content_type = None
        has_body = False
        for name, value in headers:
            if name == b"host":
                host = value.decode("latin-1")
            elif name == b"origin":
                origin = value.decode("latin-1")
            elif name == b"content-type":
                content_type = value.decode("latin-1")
            elif name == b"content-length":
                has_body = value.strip() not in (b"0", b"")
            elif name == b"transfer-encoding":
                has_body = True
        refusal = self._check_host(host)
        if refusal is None and origin is not None:
            refusal = self._check_origin(origin, host or "")
        if refusal is None and method in _BODY_METHODS and is_json_route(path) and (
                has_body or content_type is not None) and not is_json_media_type(content_type):
            refusal = Refusal(415, "serve/content-type-refused",
                              "the body is not declared as JSON; this route takes JSON only",
                              "send the header `Content-Type: application/json`",
                              seen=f"Content-Type {content_type!r}")
        return refusal

    def _check_host(self, host: str | None) -> Refusal | None:
        if "*" in self.hosts:
            return None
        parsed = _HOST.match(host or "")
        name = (parsed["v6"] or parsed["name"] or "").lower() if parsed else ""
        if name and (name in self.hosts or (self.any_ip and _is_ip(name))):
            return None
        return Refusal(421, "serve/host-refused",
                       "the request's `Host` names a host this server does not serve (a "
                       "DNS-rebinding page names its own)",
                       "call the server by an admitted name (`localhost`, the address it "
                       "listens on), or start it with `--allow-host NAME`",
                       seen=f"Host {host!r}")

    def _check_origin(self, origin: str, host: str) -> Refusal | None:
        if _same_origin(origin, host) or any(_origin_matches(origin, allowed)
                                             for allowed in self.origins):
            return None
        return Refusal(403, "serve/origin-refused",
                       "the request's `Origin` is a page of another site, which may not call "
                       "this server",
                       "serve that page from this server, or start it with "
                       "`--allow-origin ORIGIN` naming the page's origin",
                       seen=f"Origin {origin!r}")


class Admission:
    """ASGI middleware: the policy in front of every HTTP route of the app."""

    def __init__(self, app: ASGIApp, policy: AdmissionPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = self.policy.check(scope["method"], scope["path"], scope["headers"])
            if refusal is not None:
                await _refuse(refusal, scope, receive, send)
                return
        await self.app(scope, receive, send)


async def _refuse(refusal: Refusal, scope: Scope, receive: Receive, send: Send) -> None:
    from eve_build.serve.answers import error_response
    from eve_build.serve.faults import logger

    logger.warning("%s %s: %d %s: %s (%s)", scope["method"], scope["path"], refusal.status,
                   refusal.code, refusal.message, refusal.seen[:200])
    await error_response(refusal.status, refusal.code, refusal.message, refusal.hint)(
        scope, receive, send)


CORS_HEADERS = ("accept", "content-type", "authorization", "last-event-id",
                "mcp-session-id", "mcp-protocol-version")
"""Request headers an admitted page may send (JSON, SSE resumption, MCP's own)."""


def derive_cors(policy: AdmissionPolicy) -> Middleware | None:
    """starlette's CORS layer for the admitted origins (None when only the server's own
    origin is admitted: a same-origin page needs no CORS)."""
    if not policy.origins:
        return None
    from starlette.middleware import Middleware
    from starlette.middleware.cors import CORSMiddleware

    exact = [o for o in policy.origins if not o.endswith(":*")]
    ports = [re.escape(o[:-2]) + r":\d+" for o in policy.origins if o.endswith(":*")]
    return Middleware(CORSMiddleware, allow_origins=exact,
                      allow_origin_regex="|".join(ports) or None,
                      allow_methods=["GET", "POST", "DELETE"], allow_headers=CORS_HEADERS,
                      expose_headers=["mcp-session-id"])


def derive_admission(address: str = "127.0.0.1", *, allow_hosts: Sequence[str] = (),
                     allow_origins: Sequence[str] = (),
                     environ: Mapping[str, str] | None = None) -> AdmissionPolicy:
    """The policy of a server listening on `address` with these `--allow-host` and
    `--allow-origin` values and those of EVE_ALLOW_HOSTS / EVE_ALLOW_ORIGINS in
    `environ` (comma-separated). Raises DiagnosticsError naming a value that is not a
    host or an origin."""
    environ = environ or {}
    hosts = [*allow_hosts, *_split(environ.get(HOSTS_VARIABLE, ""))]
    origins = [*allow_origins, *_split(environ.get(ORIGINS_VARIABLE, ""))]
    found = [*find_host_problems(hosts), *find_origin_problems(origins)]
    if found:
        raise DiagnosticsError("cannot serve", found)
    listening = address.strip("[]").lower()
    admitted = {*LOOPBACK_HOSTS, *(() if listening in WILDCARD_ADDRESSES else (listening,)),
                *(_normal_host(h) for h in hosts)}
    return AdmissionPolicy(frozenset(admitted), tuple(o.lower() for o in origins),
                           any_ip=listening in WILDCARD_ADDRESSES)


def find_host_problems(hosts: Iterable[str]) -> list[Diagnostic]:
    """A diagnostic for each `--allow-host` value that is not a host name or address."""
    return [error("serve/allow-host-invalid", "", f"`{host}` is not a host name or address",
                  "pass a name or address without scheme or port, e.g. `--allow-host "
                  "agent.example.com`, or `*` for any host")
            for host in hosts if not _is_host(host)]


def find_origin_problems(origins: Iterable[str]) -> list[Diagnostic]:
    """A diagnostic for each `--allow-origin` value that is not an origin."""
    return [error("serve/allow-origin-invalid", "", f"`{origin}` is not an origin",
                  "pass `scheme://host[:port]` without a path, e.g. `--allow-origin "
                  "https://app.example.com` (`http://localhost:*`: any port; `*`: any)")
            for origin in origins if origin != "*" and not _ORIGIN.match(origin)]


def is_json_route(path: str) -> bool:
    """Whether the route at `path` takes JSON bodies only (not a channel's: its own)."""
    return path in JSON_PATHS or path.startswith(JSON_PREFIXES)


def is_json_media_type(content_type: str | None) -> bool:
    """Whether a Content-Type says JSON (`application/json`, `application/x+json`)."""
    if not content_type:
        return False
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/")
                                           and media.endswith("+json"))


def _split(raw: str) -> list[str]:
    return [part.strip() for part in raw.split(",") if part.strip()]


def _normal_host(host: str) -> str:
    return host.strip().strip("[]").lower()


def _is_host(host: str) -> bool:
    value = host.strip()
    if value == "*":
        return True
    value = value.strip("[]") if value.startswith("[") and value.endswith("]") else value
    return _is_ip(value) or (bool(value) and len(value) <= 253 and all(
        _LABEL.match(label) for label in value.rstrip(".").split(".")))


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _same_origin(origin: str, host: str) -> bool:
    """Whether `origin` is the server's own, as the request's Host names it."""
    parsed = _ORIGIN.match(origin)
    if parsed is None or not host or parsed["port"] == "*":
        return False
    default = "443" if parsed["scheme"] == "https" else "80"
    given = _HOST.match(host)
    if given is None:
        return False
    host_name = f"[{given['v6']}]" if given["v6"] else (given["name"] or "")
    return (parsed["host"].lower() == host_name.lower()
            and (parsed["port"] or default) == (given["port"] or default))


def _origin_matches(origin: str, allowed: str) -> bool:
    if allowed == "*":
        return True
    if allowed.endswith(":*"):
        base = allowed[:-2]
        return origin.lower() == base or (origin.lower().startswith(base + ":")
                                          and origin[len(base) + 1:].isdigit())
    return origin.lower() == allowed
