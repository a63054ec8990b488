"""The four JSON document kinds Elenchus reads and writes, and their validation.

This is the only module that imports jsonschema (and lxml, whose libxml2 checks the XML formats
Elenchus writes for other tools in milliseconds, where a pure-Python XML Schema validator took 0.7 s
of every evaluation). Each kind has a draft 2020-12
schema in the top-level ``schemas/`` directory; a failure names the JSON path
that failed (``$.mutations[0].location.line``) so the fix is obvious, and the
schema by its published name (title and ``$id``): where Elenchus is installed is
no business of the user whose document failed.
"""

from __future__ import annotations

import difflib
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

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
#: Problems of one document spelled out in a message; the rest are counted.
_SHOWN_PROBLEMS = 5
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


def published_name(schema: dict[str, Any]) -> str:
    """A schema as a user can look it up: its title and ``$id``, never a file inside Elenchus's install."""
    title = str(schema.get("title") or "Elenchus")
    identifier = schema.get("$id")
    name = title if title.lower().endswith("schema") else f"{title} schema"
    return f"the {name}" + (f" ({identifier})" if identifier else "")


def problems(kind: str, document: Any) -> list[str]:
    """Every place ``document`` breaks the schema of ``kind`` (``at $.path: what``), shallowest first;
    empty when it is valid."""
    _check_kind(kind)
    errors = sorted(_validator(kind).iter_errors(document), key=_path_key)
    return [f"at {json_path(error.absolute_path)}: {_describe(error)}" for error in errors]


def validate(kind: str, document: Any, *, source: str | None = None) -> None:
    """Raise SchemaViolation naming the failing JSON paths unless ``document`` is a valid ``kind``.

    ``source`` (usually the file name) is named at the start of the message.
    """
    found = problems(kind, document)
    if not found:
        return
    what = f"{source} is not a valid {kind} document" if source else f"not a valid {kind} document"
    what += f", as {published_name(_validator(kind).schema)} defines it"
    if len(found) == 1:
        raise SchemaViolation(f"{what}: {found[0]}")
    shown = found[:_SHOWN_PROBLEMS]
    more = len(found) - len(shown)
    tail = f"\n  - and {more} further problem{'s' if more > 1 else ''}" if more else ""
    raise SchemaViolation(f"{what}; {len(found)} problems:" + "".join(f"\n  - {p}" for p in shown) + tail)


@lru_cache(maxsize=None)
def _external_validator(name: str) -> Any:
    schema = json.loads((data_dir("schemas") / "external" / EXTERNAL[name]).read_text(encoding="utf-8"))
    return validator_for(schema)(schema)


@lru_cache(maxsize=None)
def external_schema_digest(name: str) -> str:
    """The digest of the official schema ``name`` is checked against: what a remembered check depends on."""
    import hashlib

    file = EXTERNAL.get(name) or EXTERNAL_XML[name]
    return hashlib.sha256((data_dir("schemas") / "external" / file).read_bytes()).hexdigest()


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
    from lxml import etree  # only when an XML document is checked

    return etree.XMLSchema(etree.parse(str(data_dir("schemas") / "external" / EXTERNAL_XML[name])))


def _xml_problem(name: str, text: str) -> str | None:
    """Where the XML ``text`` breaks its format's schema (the element path and why), or None."""
    from lxml import etree

    try:
        root = etree.fromstring(text.encode("utf-8"), etree.XMLParser(resolve_entities=False, no_network=True))
    except (etree.XMLSyntaxError, UnicodeEncodeError) as error:
        return f"not well-formed XML: {error}"
    schema = _xml_schema(name)
    if schema.validate(root):
        return None
    errors = list(schema.error_log)
    error = errors[0]
    more = len(errors) - 1
    tail = f" ({more} further problem{'s' if more > 1 else ''} not shown)" if more else ""
    reason = error.message.splitlines()[0]
    return f"at {error.path or '/'}: {reason[:_MESSAGE_LIMIT]}{tail}"


@lru_cache(maxsize=None)
def _config_validator() -> Draft202012Validator:
    return Draft202012Validator(json.loads((data_dir("schemas") / "tool-elenchus.schema.json").read_text("utf-8")))


def config_problem(table: Any) -> tuple[str, str] | None:
    """The first key of a ``[tool.elenchus]`` table that breaks its schema, and what is wrong, or None."""
    found = config_problems(table)
    return found[0] if found else None


def config_problems(table: Any) -> list[tuple[str, str]]:
    """Every key of a ``[tool.elenchus]`` table that breaks its schema, each with the value seen and what
    is accepted (a near spelling for an unknown key), in the order of the file's keys; empty when valid."""
    properties = _config_validator().schema["properties"]
    known = sorted(key for key, rule in properties.items() if "not" not in rule)
    order = {key: index for index, key in enumerate(table)} if isinstance(table, dict) else {}
    found: list[tuple[tuple[int, str], str, str]] = []
    for error in sorted(_config_validator().iter_errors(table), key=_path_key):
        if error.validator == "additionalProperties" and not error.absolute_path:
            for key in (key for key in table if key not in properties):
                near = difflib.get_close_matches(key, known, n=2, cutoff=0.6)
                hint = f"did you mean {' or '.join(repr(n) for n in near)}? The" if near else "the"
                found.append(((order.get(key, -1), ""), key, f"unknown key {key!r} (set to {_toml(table[key])}); "
                              f"{hint} keys are: {', '.join(known)}"))
            continue
        path = list(error.absolute_path)
        key = str(path[0]) if path else ""
        where = json_path(path[1:]).replace("$", key, 1)
        rule = properties.get(key, {})
        if error.validator == "not" and rule.get("description"):  # a key accepted only on the command line
            detail = f"{key} = {_toml(error.instance)}: {rule['description']}"
        else:
            wanted = rule.get("description")
            detail = (f"{where} = {_toml(error.instance)}: {_wrong(error)}"
                      + (f"; accepted: {wanted.rstrip('.')}" if wanted else ""))
        found.append(((order.get(key, -1), where), key, detail))
    found.sort(key=lambda item: item[0])
    return [(key, detail) for _, key, detail in found]


def _toml(value: Any) -> str:
    """A value as it reads in pyproject.toml (JSON spells strings, numbers, booleans and arrays alike)."""
    return json.dumps(value, ensure_ascii=False)


def _wrong(error: ValidationError) -> str:
    """What is wrong with a setting's value, in a setting's words (the value itself is shown beside it)."""
    rule = error.validator_value
    if error.validator == "type":
        kinds = rule if isinstance(rule, list) else [rule]
        words = {"integer": "a whole number", "number": "a number", "string": "a string", "boolean":
                 "true or false", "array": "a list, e.g. [\"a\", \"b\"]", "object": "a table"}
        return "must be " + " or ".join(words.get(k, k) for k in kinds)
    if error.validator == "enum":
        near = difflib.get_close_matches(error.instance, [str(v) for v in rule], n=1) \
            if isinstance(error.instance, str) else []
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        return f"must be one of {', '.join(_toml(v) for v in rule)}{hint}"
    bounds = {"minimum": "at least", "maximum": "at most", "exclusiveMinimum": "above", "exclusiveMaximum": "below"}
    if error.validator in bounds:
        return f"must be {bounds[error.validator]} {rule}"
    if error.validator == "minLength":
        return "must not be empty"
    if error.validator == "uniqueItems":
        return "names a value more than once"
    if error.validator == "pattern":
        return "does not have the expected form"
    return _describe(error)


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
