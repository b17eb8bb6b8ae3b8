"""The mount file `eve add` writes: the config call generated from the config JSON Schema.

    from eve_build.sdk import env

    from acme_crm import acme_crm

    mount = acme_crm(
        api_key=env("CRM_API_KEY"),
        # region="eu",
    )

Required fields come first, each as an argument; a required field has no value eve
could know, so it reads an environment variable `<NS>_<FIELD>` (set it, or replace
it with a value). Secret-like fields (`SecretStr`, `format: password`, or a name with
key, token, secret or password) always read one: secrets never go in source files.
Optional fields follow as comments showing their defaults.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from eve_build.secret_fields import is_secret_property

GENERATED = "# Written by `eve add`; edit freely."


@dataclass(frozen=True)
class MountText:
    text: str
    env: tuple[str, ...]  # variables the mount reads, in the order written


def serialize_mount_file(import_name: str, namespace: str, schema: dict[str, Any] | None
                         ) -> MountText:
    """The mount file for `import_name` mounted as `namespace`."""
    properties = (schema or {}).get("properties")
    fields: dict[str, Any] = properties if isinstance(properties, dict) else {}
    required_list = (schema or {}).get("required")
    required = [str(r) for r in required_list] if isinstance(required_list, list) else []
    lines: list[str] = []
    env: list[str] = []
    for name in [n for n in fields if n in required]:
        variable = derive_env_name(namespace, name)
        env.append(variable)
        lines.append(f'    {name}=env("{variable}"),')
    for name in [n for n in fields if n not in required]:
        prop = fields[name] if isinstance(fields[name], dict) else {}
        if is_secret(name, prop):
            lines.append(f'    # {name}=env("{derive_env_name(namespace, name)}"),')
        elif "default" in prop:
            lines.append(f"    # {name}={_python_literal(prop['default'])},")
        else:
            lines.append(f"    # {name}=...,")
    head = [f'"""Mount `{import_name}` as `{namespace}`."""', "", GENERATED, ""]
    if env:
        head += ["from eve_build.sdk import env", ""]
    head.append(f"from {import_name} import {import_name}")
    call = f"mount = {import_name}(\n" + "\n".join(lines) + "\n)" if lines else \
        f"mount = {import_name}()"
    return MountText("\n".join([*head, "", call]) + "\n", tuple(env))


def is_secret(name: str, prop: dict[str, Any]) -> bool:
    """Secret-like: `SecretStr` (`format: password`, `writeOnly`) or a telling name."""
    return is_secret_property(name, prop)


def derive_env_name(namespace: str, field: str) -> str:
    """`crm`, `api_key` -> `CRM_API_KEY`."""
    return re.sub(r"[^A-Za-z0-9]+", "_", f"{namespace}_{field}").upper()


def _python_literal(value: Any) -> str:
    """A JSON default as Python source: strings double-quoted, `true` -> `True`."""
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)


def find_connection_variables(contributions: dict[str, Any], namespace_env: tuple[str, ...]
                              ) -> tuple[str, ...]:
    """The variables the extension's connections read (a url or header given as
    `env("NAME")`), after `namespace_env` and without repeating one of them."""
    found: list[str] = []
    for item in contributions.get("connections") or []:
        if not isinstance(item, dict):
            continue
        url = item.get("url")
        names = [url["$env"]] if isinstance(url, dict) and "$env" in url else []
        names += [str(n) for n in item.get("headerEnv") or []]
        found += [n for n in names if n not in namespace_env and n not in found]
    return tuple(found)
