"""Validate a mount's config against the extension's config model, at build time.

`env("NAME")` values are deferred: they are left out of validation (any error at or
below them is skipped) and recorded as `{"$env": NAME}`. A missing required field is
still an error: nothing could supply it later. Messages name the mount file, the field
and the problem, and never the value given: it may be a secret.

At build time (`defer_factories=True`) a field's `default_factory` is not called (it
may read the environment): such a field not given by the mount is left out of the
recorded config and holds None in the build-time value; the factory runs when the
agent loads. Plain `default` values are recorded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError, create_model
from pydantic.fields import FieldInfo
from pydantic_core import to_jsonable_python

from eve_build.diagnostics import Diagnostic, error, warning
from eve_build.sdk.env import ENV_MARKER, Env, is_env_json, serialize_deferred
from eve_build.secret_fields import is_secret_field

Loc = tuple[str | int, ...]
_REDACT_MIN = 4


@dataclass(frozen=True)
class BoundConfig:
    """The config as the compiled agent records it, and as a binding sees it at build time."""

    data: dict[str, Any]  # JSON-able; env values as {"$env": NAME}; defaults applied
    value: Any  # a model instance (env fields hold Env objects), or None without a model


def validate_config(
    model: type[BaseModel] | None, given: Mapping[str, Any], *, shown: str, package: str,
    line: int | None, defer_factories: bool = False, secrets: Mapping[Loc, str] | None = None,
) -> tuple[BoundConfig | None, list[Diagnostic]]:
    """`secrets`: where values resolved from env(...) sit, by the variable's name; an error
    about them (or about the whole config) names the field, variable and error type only."""
    config = dict(given)
    if model is None:
        if config:
            return None, [error(
                "mount/config-invalid", shown,
                f"`{shown}`: `{package}` takes no config, but the mount gives "
                f"{_names(config)}", "remove the arguments from the mount factory call",
                line=line,
            )]
        return BoundConfig(data={}, value=None), []
    deferred = find_env_paths(config)
    stripped = strip_paths(config, deferred)
    found: list[Diagnostic] = []
    instance: BaseModel | None = None
    factories = _factory_fields(model) if defer_factories else {}
    checked = _without_factories(model, factories)
    try:
        instance = checked.model_validate(stripped)
    except Exception as exc:  # a validator may raise anything; pydantic wraps only some
        if not isinstance(exc, ValidationError):
            return None, [error(
                "mount/config-invalid", shown,
                f"`{shown}`: validating the config of `{package}` raised "
                f"{type(exc).__name__}", "a config validator of the extension failed; check "
                "the arguments of the mount factory call", line=line,
            )]
        problems = [e for e in exc.errors()
                    if not any(tuple(e["loc"][: len(p)]) == p for p in deferred)]
        if problems:
            lines = [_describe_problem(e["loc"], e["msg"], e["type"], config, secrets or {},
                                       secret_field=bool(e["loc"]) and is_secret_field(
                                           model, str(e["loc"][0])))
                     for e in problems]
            return None, [error(
                "mount/config-invalid", shown,
                f"`{shown}`: the config of `{package}` is invalid:\n" + "\n".join(lines),
                f"fix the arguments of the mount factory call in `{shown}`; the options are "
                f"described by `{package}`'s config model", line=line,
            ), *_unknown_fields(model, config, shown, package, line)]  # kept beside errors
    found.extend(_unknown_fields(model, config, shown, package, line))
    if instance is not None:
        unset = {name for name in factories if name not in instance.model_fields_set}
        data = instance.model_dump(mode="json", by_alias=True, exclude=unset)
        value: Any = instance.model_copy(update={k: v for k, v in config.items()
                                                 if (k,) in deferred})
    else:
        data = {**_defaults(model), **to_jsonable_python(stripped)}
        value = checked.model_construct(**config)
    data.update({k: v for k, v in serialize_deferred(config).items() if _has_env(config[k])})
    order = [info.alias or name for name, info in model.model_fields.items()]
    data = {k: data[k] for k in sorted(data, key=lambda k: (k not in order, order.index(k)
                                                             if k in order else 0, k))}
    return BoundConfig(data=data, value=value), found


def find_env_paths(value: Any, prefix: Loc = ()) -> list[Loc]:
    """Where the deferred `env(...)` values are (a list holding one counts as a whole)."""
    if isinstance(value, Env):
        return [prefix]
    if isinstance(value, Mapping):
        return [p for k, v in value.items() for p in find_env_paths(v, (*prefix, str(k)))]
    if isinstance(value, list | tuple) and any(_has_env(v) for v in value):
        return [prefix]
    return []


def strip_paths(config: dict[str, Any], paths: list[Loc]) -> dict[str, Any]:
    """A copy of `config` without the values at `paths`."""
    def strip(value: Any, prefix: Loc) -> Any:
        if isinstance(value, Mapping):
            return {k: strip(v, (*prefix, str(k))) for k, v in value.items()
                    if (*prefix, str(k)) not in paths}
        return value

    result = strip(config, ())
    assert isinstance(result, dict)
    return result


def _has_env(value: Any) -> bool:
    return bool(find_env_paths(value))


def _unknown_fields(model: type[BaseModel], config: dict[str, Any], shown: str, package: str,
                    line: int | None) -> list[Diagnostic]:
    """Options the model silently ignores (`extra="ignore"`, pydantic's default): a typo?"""
    if model.model_config.get("extra") in ("allow", "forbid"):
        return []
    known = set(model.model_fields) | {
        info.alias for info in model.model_fields.values() if info.alias}
    unknown = sorted(k for k in config if k not in known)
    return [warning(
        "mount/config-unknown-field", shown,
        f"`{shown}`: `{package}` has no config option `{name}`; it is ignored",
        f"remove `{name}`, or check the spelling against {_names(dict.fromkeys(known))}",
        line=line,
    ) for name in unknown]


def _defaults(model: type[BaseModel]) -> dict[str, Any]:
    """The plain `default` values (a `default_factory` is never called here)."""
    return {
        (info.alias or name): to_jsonable_python(info.default)
        for name, info in model.model_fields.items()
        if not info.is_required() and info.default_factory is None
    }


def _factory_fields(model: type[BaseModel]) -> dict[str, FieldInfo]:
    return {name: info for name, info in model.model_fields.items()
            if info.default_factory is not None}


def _without_factories(model: type[BaseModel], factories: Mapping[str, FieldInfo]
                       ) -> type[BaseModel]:
    """A subclass of `model` whose factory fields default to None (not validated)."""
    if not factories:
        return model
    fields: dict[str, Any] = {
        name: (info.annotation, FieldInfo.merge_field_infos(
            info, default=None, default_factory=None, validate_default=False))
        for name, info in factories.items()
    }
    derived: type[BaseModel] = create_model(
        model.__name__, __base__=model, __module__=model.__module__, **fields)
    return derived


def _dotted(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc) or "(config)"


def _names(config: Mapping[str, Any]) -> str:
    return ", ".join(f"`{k}`" for k in sorted(config))


def _describe_problem(loc: tuple[Any, ...], message: str, kind: str, config: Mapping[str, Any],
                      secrets: Mapping[Loc, str], *, secret_field: bool = False) -> str:
    """One line of a config error. Where the value came from env(...), or the error is
    about the whole config while env values are in it, no text derived from any value is
    shown: not the message (a validator may format, lower-case or split the value, and
    pydantic quotes characters of a bad UUID), only the field, variable and error type."""
    where = tuple(str(part) for part in loc)
    names = sorted({name for path, name in secrets.items()
                    if where[: len(path)] == path or not where})
    if names:
        variables = ", ".join(f"`{name}`" for name in names)
        return (f"  - `{_dotted(loc)}` (from env {variables}): the value is invalid ({kind}); "
                "its message is not shown because it may repeat the secret")
    if secret_field and kind != "missing":  # a validator's message may echo the value
        return (f"  - `{_dotted(loc)}`: the value is invalid ({kind}); its message is not "
                "shown because the field holds a secret")
    return f"  - `{_dotted(loc)}`: {_redact(message, config)} ({kind})"


def find_env_names(value: Any, prefix: Loc = ()) -> dict[Loc, str]:
    """Where each env(...) value is, with its variable's name (lists: the names joined)."""
    if isinstance(value, Env):
        return {prefix: value.name}
    if is_env_json(value):
        return {prefix: str(value[ENV_MARKER])}
    if isinstance(value, Mapping):
        return {p: n for k, v in value.items()
                for p, n in find_env_names(v, (*prefix, str(k))).items()}
    if isinstance(value, list | tuple) and (_has_env(value) or any(map(is_env_json, value))):
        inner = [n for item in value for n in find_env_names(item).values()]
        return {prefix: ", ".join(sorted(set(inner)))}
    return {}


def _redact(message: str, config: Mapping[str, Any]) -> str:
    """pydantic messages never carry the input, but a custom validator's might."""
    for value in _leaves(config):
        text = str(value)
        if len(text) >= _REDACT_MIN and text in message:
            message = message.replace(text, "***")
    return message


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, Mapping):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list | tuple):
        return [leaf for v in value for leaf in _leaves(v)]
    return [] if value is None or isinstance(value, bool | Env) else [value]
