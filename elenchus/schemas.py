"""The four JSON document kinds Elenchus reads and writes, and their validation.

This is the only module that imports jsonschema (and xmlschema, for the XML formats Elenchus
writes for other tools). Each kind has a draft 2020-12
schema in the top-level ``schemas/`` directory; a failure names the JSON path
that failed (``$.mutations[0].location.line``) so the fix is obvious.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from jsonschema.validators import validator_for

from elenchus.errors import ElenchusError, InputGuardError, SchemaViolation
from elenchus.resources import data_dir

KINDS: tuple[str, ...] = ("intent-contract", "mutation-result", "mutation-report", "test-handoff")

# Formats of other tools that Elenchus writes, with their official schemas (``schemas/external``).
EXTERNAL: dict[str, str] = {
    "mutation-testing-report": "mutation-testing-report-schema.json",
    "sarif": "sarif-2.1.0.json",
}
# The same for the XML formats, with their official XML Schemas.
EXTERNAL_XML: dict[str, str] = {
    "junit": "junit-10.xsd",
}

_MESSAGE_LIMIT = 240
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise InputGuardError(
            guard="kind",
            detail=f"unknown document kind {kind!r}; expected one of: {', '.join(KINDS)}",
        )


def schema_path(kind: str) -> Path:
    """Where the schema for ``kind`` lives on disk."""
    _check_kind(kind)
    return data_dir("schemas") / f"{kind}.schema.json"


def load_schema(kind: str) -> dict[str, Any]:
    """Return a fresh copy of the schema for ``kind`` (callers may mutate it)."""
    return json.loads(_schema_text(kind))


@lru_cache(maxsize=None)
def _schema_text(kind: str) -> str:
    return schema_path(kind).read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def _validator(kind: str) -> Draft202012Validator:
    # Format checking stays off: every constraint that matters is a pattern, so the
    # verdict does not depend on which optional format libraries are installed.
    return Draft202012Validator(load_schema(kind))


def json_path(parts: Any) -> str:
    """Render a jsonschema path deque as JSONPath: ``$.mutations[0].location.line``."""
    out = "$"
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _IDENTIFIER.match(part):
            out += f".{part}"
        else:
            out += f"[{json.dumps(part)}]"
    return out


def _path_key(error: ValidationError) -> tuple[Any, ...]:
    # Shallowest failure first (it says "more" is wrong), then document order of the
    # path, then schema order: the same document always reports the same error.
    path = tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in error.absolute_path)
    return (len(path), path, tuple(str(p) for p in error.absolute_schema_path))


def _describe(error: ValidationError) -> str:
    """The jsonschema message, reworded where the raw one would puzzle a reader."""
    if "propertyNames" in error.absolute_schema_path and error.validator == "not":
        return (f"key {error.instance!r} is not allowed: Elenchus documents never carry a score, "
                "percentage, kill rate or merge recommendation")
    message = error.message
    if len(message) > _MESSAGE_LIMIT:
        message = message[: _MESSAGE_LIMIT - 3] + "..."
    description = error.schema.get("description") if isinstance(error.schema, dict) else None
    if error.validator == "pattern" and description:
        message += f" ({description})"
    return message


def validate(kind: str, document: Any, *, source: str | None = None) -> None:
    """Raise SchemaViolation naming the failing JSON path unless ``document`` is a valid ``kind``.

    ``source`` (usually the file name) is named at the start of the message.
    """
    _check_kind(kind)
    errors = list(_validator(kind).iter_errors(document))
    if not errors:
        return
    error = min(errors, key=_path_key)
    what = f"{source} is not a valid {kind} document" if source else f"not a valid {kind} document"
    more = len(errors) - 1
    tail = f" ({more} further problem{'s' if more > 1 else ''} not shown)" if more else ""
    raise SchemaViolation(
        f"{what}: at {json_path(error.absolute_path)}: {_describe(error)}{tail}; "
        f"see schemas/{kind}.schema.json"
    )


@lru_cache(maxsize=None)
def _external_validator(name: str) -> Any:
    schema = json.loads((data_dir("schemas") / "external" / EXTERNAL[name]).read_text(encoding="utf-8"))
    return validator_for(schema)(schema)


def external_problem(name: str, document: Any) -> str | None:
    """Where ``document`` breaks the official schema of the format ``name``, or None when it is valid.

    ``document``: the parsed JSON, or the text of an XML format (``EXTERNAL_XML``).
    """
    if name in EXTERNAL_XML:
        return _xml_problem(name, document)
    errors = list(_external_validator(name).iter_errors(document))
    if not errors:
        return None
    error = min(errors, key=_path_key)
    return f"at {json_path(error.absolute_path)}: {_describe(error)}"


@lru_cache(maxsize=None)
def _xml_schema(name: str) -> Any:
    import xmlschema  # builds its meta-schema on import: only when an XML document is checked

    return xmlschema.XMLSchema(str(data_dir("schemas") / "external" / EXTERNAL_XML[name]))


def _xml_problem(name: str, text: str) -> str | None:
    """Where the XML ``text`` breaks its format's schema (the element path and why), or None."""
    try:
        root = ElementTree.fromstring(text.encode("utf-8"))
    except (ElementTree.ParseError, UnicodeEncodeError) as error:
        return f"not well-formed XML: {error}"
    errors = list(_xml_schema(name).iter_errors(root))
    if not errors:
        return None
    error = errors[0]
    more = len(errors) - 1
    tail = f" ({more} further problem{'s' if more > 1 else ''} not shown)" if more else ""
    reason = (error.reason or error.message).splitlines()[0]
    return f"at {error.path or '/'}: {reason[:_MESSAGE_LIMIT]}{tail}"


@lru_cache(maxsize=None)
def _config_validator() -> Draft202012Validator:
    return Draft202012Validator(json.loads((data_dir("schemas") / "tool-elenchus.schema.json").read_text("utf-8")))


def config_problem(table: Any) -> tuple[str, str] | None:
    """The first key of a ``[tool.elenchus]`` table that breaks its schema, and what is wrong, or None."""
    errors = list(_config_validator().iter_errors(table))
    if not errors:
        return None
    error = min(errors, key=_path_key)
    if error.validator == "additionalProperties":
        properties = _config_validator().schema["properties"]
        known = sorted(key for key, rule in properties.items() if "not" not in rule)
        unknown = sorted(set(table) - set(properties))
        return unknown[0], f"unknown key {unknown[0]!r}; the keys are: {', '.join(known)}"
    key = str(error.absolute_path[0]) if error.absolute_path else ""
    description = error.schema.get("description") if isinstance(error.schema, dict) else None
    if error.validator == "not" and description:  # a key that is only accepted on the command line
        return key, description
    where = json_path(list(error.absolute_path)[1:]).replace("$", key, 1)
    wanted = _config_validator().schema["properties"].get(key, {}).get("description")
    return key, f"{where}: {_describe(error)}" + (f" (expected: {wanted})" if wanted else "")


def validate_file(kind: str, path: str | Path) -> Any:
    """Read ``path`` as JSON, validate it as ``kind`` and return the parsed document."""
    _check_kind(kind)
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ElenchusError(f"cannot validate {file}: the file does not exist") from None
    except IsADirectoryError:
        raise ElenchusError(f"cannot validate {file}: it is a directory, expected a JSON file") from None
    except UnicodeDecodeError as exc:
        raise SchemaViolation(f"{file} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise ElenchusError(f"cannot read {file}: {exc.strerror or exc}") from None
    try:
        document = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise SchemaViolation(
            f"{file} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except ValueError as exc:
        raise SchemaViolation(f"{file} is not valid JSON: {exc}") from None
    validate(kind, document, source=str(file))
    return document


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")
