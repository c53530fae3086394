"""The wire's declarations (agui_widget/wire/_requests.py, _payloads.py) as one JSON Schema, and docs/wire.md's tables.

The view's TypeScript types and validators are generated from the schema
(js/scripts/wire-codegen.mjs), so a message is declared once, here in Python:

    python -m agui_widget.wire._schema            # write js/src/kernel/generated/wire.schema.json and the tables
    python -m agui_widget.wire._schema --check    # fail when either is stale (tests/test_wire_declared.py)

`make wire` runs this and then the TypeScript generator.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import typing
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from . import _payloads, _requests

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_PATH = ROOT / "js" / "src" / "kernel" / "generated" / "wire.schema.json"
DOCS_PATH = ROOT / "docs" / "wire.md"

REQUESTS: tuple[type[_requests._Request], ...] = typing.get_args(typing.get_args(_requests.Request)[0])
KERNEL_MESSAGES: tuple[type[_payloads._Payload], ...] = typing.get_args(typing.get_args(_payloads.KernelMessage)[0])
TRAIT_ENTRIES: dict[str, Any] = {
    "Pending": _payloads.Pending,
    "QueuedMessage": _payloads.QueuedMessage,
    "ToolSpec": _payloads.ToolSpec,
    "Suggestion": _payloads.Suggestion,
    "PredictRule": _payloads.PredictRule,
}


class _Requests(BaseModel):
    """Holds what a view sends (as the kernel validates it: a field with a default may be absent)."""

    view_request: _requests.Request


class _Sent(BaseModel):
    """Holds what the kernel sends (as it serializes it: every field present)."""

    kernel_message: _payloads.KernelMessage
    traits: _payloads.Traits
    marks: _payloads.Marks


_AGUI_DEFS = ("WireMessage", "WireToolCall", "WireEvent", "JsonPatchOp")
"""AG-UI's own shapes: checked, never filled in with defaults (a message stays as it came)."""


def type_name(model: type[BaseModel]) -> str:
    """The TypeScript name of a declaration: requests end in Request (`Hello` -> `HelloRequest`)."""
    name = model.__name__
    return f"{name}Request" if issubclass(model, _requests._Request) else name


def wire_schema() -> dict[str, Any]:
    """One JSON Schema (draft 2020-12) whose $defs are every declaration, named as the view names them."""
    requests = _Requests.model_json_schema(ref_template="#/$defs/{model}")
    sent = _Sent.model_json_schema(ref_template="#/$defs/{model}", mode="serialization")
    defs: dict[str, Any] = {**requests.pop("$defs"), **sent.pop("$defs")}
    renames = {model.__name__: type_name(model) for model in REQUESTS}
    properties = {**requests["properties"], **sent["properties"]}
    for name in _AGUI_DEFS:
        defs[name]["properties"] = {
            key: {k: v for k, v in field.items() if k != "default"} for key, field in defs[name]["properties"].items()
        }
    defs["ViewRequest"] = properties["view_request"]
    defs["KernelMessage"] = properties["kernel_message"]
    defs["Pending"] = {
        "oneOf": [{"$ref": "#/$defs/PendingTool"}, {"$ref": "#/$defs/PendingInterrupt"}],
        "discriminator": {"propertyName": "kind"},
    }
    defs["ViewRequest"]["description"] = "Everything a view may ask of the kernel."
    defs["KernelMessage"]["description"] = "Every custom message the kernel sends a view."
    defs["Pending"]["description"] = "One entry of the `pending` trait: what the chat waits for."
    schema = _rename_refs({"$defs": defs}, renames)
    defs = schema["$defs"]
    for old, new in renames.items():
        defs[new] = defs.pop(old)
    for name, definition in list(defs.items()):
        defs[name] = {**_untitled(definition), "title": name}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "agui-widget-wire",
        "title": "Wire",
        "description": "The widget wire: generated from agui_widget/wire/_requests.py and _payloads.py; do not edit.",
        "$defs": dict(sorted(defs.items())),
    }


def _rename_refs(node: Any, renames: dict[str, str]) -> Any:
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith("#/$defs/"):
                name = value.removeprefix("#/$defs/")
                value = f"#/$defs/{renames.get(name, name)}"
            elif key == "mapping" and isinstance(value, dict):
                continue
            out[key] = _rename_refs(value, renames)
        return out
    if isinstance(node, list):
        return [_rename_refs(item, renames) for item in node]
    return node


def _untitled(node: Any) -> Any:
    """Without pydantic's per-field titles (a generator would make each a named type)."""
    if isinstance(node, dict):
        out = {key: _untitled(value) for key, value in node.items() if not (key == "title" and isinstance(value, str))}
        if "properties" in out:  # an `Any` field: any JSON value (a generator would guess from its default)
            for name, field in out["properties"].items():
                if not set(field) - {"default", "description"}:
                    out["properties"][name] = {**field, "tsType": "unknown"}
        if "prefixItems" in out:  # a tuple: the TypeScript generator reads only the older spelling
            parts = {"string": "string", "integer": "number", "number": "number", "boolean": "boolean"}
            out["tsType"] = "[" + ", ".join(parts.get(part.get("type"), "unknown") for part in out["prefixItems"]) + "]"
        if "discriminator" in out:
            out["type"] = "object"  # the members are objects; a validator checks it once, up front
        return out
    if isinstance(node, list):
        return [_untitled(item) for item in node]
    return node


def schema_text() -> str:
    return json.dumps(wire_schema(), indent=2, ensure_ascii=False, sort_keys=False) + "\n"


# -- docs/wire.md's tables -------------------------------------------------------------------


def _type_text(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    """A field's type, as docs/wire.md writes it (`str`, `int`, `X[]`, `X | null`, `any`)."""
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return {"WireMessage": "Message", "WireEvent": "Event", "JsonPatchOp": "JsonPatchOperation"}.get(name, name)
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return " | ".join(json.dumps(value) for value in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " | ".join(_type_text(option, defs) for option in schema[key])
    kind = schema.get("type")
    if not isinstance(kind, str):
        return "any"
    if kind == "array":
        item = _type_text(schema.get("items", {}), defs)
        if "prefixItems" in schema:
            return "[" + ", ".join(_type_text(part, defs) for part in schema["prefixItems"]) + "]"
        return f"({item})[]" if " | " in item else f"{item}[]"
    return {"string": "str", "integer": "int", "boolean": "bool", "null": "null", "object": "object"}.get(kind, "any")


def _fields(definition: dict[str, Any], defs: dict[str, Any], skip: tuple[str, ...] = ("kind",)) -> str:
    required = set(definition.get("required", ()))
    parts = []
    for name, schema in definition.get("properties", {}).items():
        if name in skip:
            continue
        optional = "" if name in required else "?"
        parts.append(f"`{name}{optional}: {_type_text(schema, defs)}`")
    return ", ".join(parts)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def tables() -> dict[str, str]:
    """docs/wire.md's generated tables, by the name of their marker."""
    defs = wire_schema()["$defs"]
    requests = ["| kind | fields | effect |", "|---|---|---|"]
    for model in REQUESTS:
        definition = defs[type_name(model)]
        kind = definition["properties"]["kind"]["const"]
        requests.append(f"| `{kind}` | {_cell(_fields(definition, defs))} | {_cell(model.__doc__ or '')} |")
    messages = ["| kind | fields | meaning |", "|---|---|---|"]
    for message in KERNEL_MESSAGES:
        definition = defs[message.__name__]
        kind = definition["properties"]["kind"]["const"]
        messages.append(f"| `{kind}` | {_cell(_fields(definition, defs))} | {_cell(message.__doc__ or '')} |")
    traits = ["| name | type | meaning |", "|---|---|---|"]
    for name, schema in defs["Traits"]["properties"].items():
        traits.append(f"| `{name}` | {_cell(_type_text(schema, defs))} | {_cell(schema.get('description', ''))} |")
    payloads = ["| payload | fields | what it is |", "|---|---|---|"]
    for name in (
        "PendingTool",
        "PendingInterrupt",
        "QueuedMessage",
        "ToolSpec",
        "Suggestion",
        "PredictRule",
        "VariableEntry",
        "Marks",
    ):
        definition = defs[name]
        payloads.append(f"| {name} | {_cell(_fields(definition, defs, skip=()))} | {_cell(definition.get('description', ''))} |")
    return {
        "requests": "\n".join(requests),
        "kernel-messages": "\n".join(messages),
        "traits": "\n".join(traits),
        "payloads": "\n".join(payloads),
    }


_BLOCK = re.compile(r"(<!-- generated: (?P<name>[a-z-]+) -->\n)(?P<body>.*?)(<!-- end generated -->)", re.S)


def docs_with_tables(text: str) -> str:
    """docs/wire.md with each generated block replaced by its table."""
    made = tables()
    found = set()

    def replace(match: re.Match[str]) -> str:
        name = match.group("name")
        found.add(name)
        return match.group(1) + made[name] + "\n" + match.group(4)

    updated = _BLOCK.sub(replace, text)
    missing = set(made) - found
    if missing:
        raise SystemExit(f"docs/wire.md has no generated block for {', '.join(sorted(missing))}")
    return updated


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agui_widget.wire._schema", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when a generated file is stale; write nothing")
    args = parser.parse_args(argv)
    wanted = {SCHEMA_PATH: schema_text(), DOCS_PATH: docs_with_tables(DOCS_PATH.read_text(encoding="utf-8"))}
    stale = [path for path, text in wanted.items() if not path.exists() or path.read_text(encoding="utf-8") != text]
    if args.check:
        for path in stale:
            print(f"stale: {path.relative_to(ROOT)} (run `make wire`)", file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(wanted[path], encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
