"""The running eve-build's own files: the templates it ships, and itself as something pip
can install into a scaffold's or a node's venv.

A scaffold must match the toolchain that made it, and eve-build is not on PyPI, so
`init` (and a node's venv, `eve_build.node.venv`) installs itself: its source checkout
when it runs from one, else a wheel re-packed from its own installed files.

A foundation module: `scaffold/` (the build side) and `local/` and `node/` (the run side)
both ask it.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlparse

from packaging.utils import canonicalize_name

import eve_build
from eve_build._version import __version__
from eve_build.errors import EveBuildError

DISTRIBUTION = "eve-build"
PACKAGE = "eve_build"
WHEEL_METADATA = (
    "Wheel-Version: 1.0\nGenerator: eve-build (re-packed)\nRoot-Is-Purelib: true\n"
    "Tag: py3-none-any\n"
)
INSTALL_ONLY_METADATA = frozenset({"RECORD", "INSTALLER", "REQUESTED", "direct_url.json", "WHEEL"})
"""dist-info files an installer writes (or that the re-pack writes afresh)."""
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
EXTENSION_TEMPLATE = "extension"


def locate_templates(kind: str = EXTENSION_TEMPLATE) -> Path:
    """The folder of the `kind` templates: shipped in the wheel, else the checkout's.

    Raises:
        EveBuildError: neither location has them (a broken install).
    """
    package_dir = Path(eve_build.__file__).parent
    shipped = package_dir / "_templates"
    root = shipped if shipped.is_dir() else package_dir.parent / "templates"
    folder = root / kind
    if not folder.is_dir():
        raise EveBuildError(
            f"the `{kind}` scaffold templates are missing: looked in `{folder}`",
            hint="reinstall eve-build; a wheel ships them in `eve_build/_templates/`",
        )
    return folder


def try_locate_checkout(package_dir: Path | None = None) -> Path | None:
    """The source checkout eve-build runs from, or None when it runs installed.

    A checkout is the parent of the `eve_build` package folder when it holds a
    `pyproject.toml` whose project is `eve-build` (an editable install counts).
    """
    root = (package_dir or Path(eve_build.__file__).parent).parent
    try:
        data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    project = data.get("project")
    name = project.get("name") if isinstance(project, dict) else None
    if isinstance(name, str) and canonicalize_name(name) == DISTRIBUTION:
        return root
    return None


def try_locate_installed_wheel(distribution: metadata.Distribution | None = None) -> Path | None:
    """The wheel file eve-build was installed from, when pip recorded it and it still exists."""
    dist = distribution or metadata.distribution(DISTRIBUTION)
    try:
        text = dist.read_text("direct_url.json")
        url = str(json.loads(text)["url"]) if text else ""
    except (ValueError, KeyError, TypeError):
        return None
    parsed = urlparse(url)
    path = Path(unquote(parsed.path))
    if parsed.scheme == "file" and path.suffix == ".whl" and path.is_file():
        return path
    return None


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"sha256={digest.decode('ascii')}"


def _collect_members(dist: metadata.Distribution, dist_info: str) -> dict[str, bytes]:
    """The package's files and its dist-info (under `dist_info`), by archive path."""
    members: dict[str, bytes] = {}
    for entry in dist.files or []:
        parts = PurePosixPath(entry.as_posix()).parts
        if not parts or "__pycache__" in parts or entry.suffix == ".pyc":
            continue
        if parts[0] == PACKAGE:
            name = "/".join(parts)
        elif parts[0].endswith(".dist-info") and len(parts) > 1:
            if len(parts) == 2 and parts[1] in INSTALL_ONLY_METADATA:
                continue
            name = "/".join((dist_info, *parts[1:]))
        else:
            continue  # scripts (`../../bin/eve`) and .pth files: the installer recreates them
        path = Path(str(dist.locate_file(entry)))
        if path.is_file():
            members[name] = path.read_bytes()
    return members


def write_installed_wheel(
    directory: Path, distribution: metadata.Distribution | None = None
) -> Path:
    """Re-pack the installed eve-build into `directory/eve_build-<version>-py3-none-any.whl`.

    The wheel holds the package and the dist-info (with a fresh `WHEEL` and `RECORD`),
    never the console scripts, which pip regenerates from `entry_points.txt`.

    Raises:
        EveBuildError: the installed distribution is not the running eve-build, or
            lists no package files (an editable install outside a checkout).
    """
    dist = distribution or metadata.distribution(DISTRIBUTION)
    version = dist.version
    if version != __version__:
        raise EveBuildError(
            f"the installed `{DISTRIBUTION}` is {version}, but eve-build {__version__} is running",
            hint="run `eve extension init` from the environment eve-build is installed in",
        )
    dist_info = f"{PACKAGE}-{version}.dist-info"
    members = _collect_members(dist, dist_info)
    if f"{PACKAGE}/__init__.py" not in members:
        raise EveBuildError(
            f"cannot re-pack the installed `{DISTRIBUTION}` {version}: its RECORD lists no "
            "package files",
            hint="install eve-build from a wheel or run it from its source checkout",
        )
    members[f"{dist_info}/WHEEL"] = WHEEL_METADATA.encode("ascii")
    return write_wheel_archive(directory / f"{PACKAGE}-{version}-py3-none-any.whl",
                               members, dist_info, zipfile.ZIP_DEFLATED)


def write_wheel_archive(wheel: Path, members: dict[str, bytes], dist_info: str,
                        compression: int) -> Path:
    """Write `members` (archive name -> bytes, without RECORD) as the wheel `wheel`: the
    package first and the dist-info last, ending with a fresh RECORD (PEP 427), with
    fixed dates and modes so the same members give the same bytes."""
    record_name = f"{dist_info}/RECORD"
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    order = sorted(members, key=lambda name: (name.startswith(dist_info), name))
    for name in order:
        writer.writerow([name, _record_hash(members[name]), len(members[name])])
    writer.writerow([record_name, "", ""])
    archived = {**members, record_name: record.getvalue().encode("utf-8")}
    with zipfile.ZipFile(wheel, "w", compression=compression) as archive:
        for name in [*order, record_name]:
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.external_attr = 0o644 << 16
            info.compress_type = compression
            archive.writestr(info, archived[name])
    return wheel
