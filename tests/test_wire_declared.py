"""The wire is declared once (agui_widget/wire/_requests.py, _wire_payloads.py), and everything else follows from it.

What the kernel sends (every custom message, every synced trait) fits its declaration; every
request a view may send has exactly one handler; and the files generated from the declarations
(the JSON Schema, the view's TypeScript types and validators, docs/wire.md's tables) are current:
change a declaration without `make wire` and a test here fails.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from agui_widget import AgentChat, DemoAgent
from agui_widget.adapters._demo import ACCENT_TOOL
from agui_widget.chat._view_link import _ROUTES
from agui_widget.inputs._tools import FrontendTool, ToolUI, ask_tool, confirm_tool
from agui_widget.wire import _codec as _wire
from agui_widget.wire import _payloads as _wire_payloads
from agui_widget.wire import _requests as _wire_requests
from agui_widget.wire import _schema as _wire_schema

from .genui_support import Captured
from .support import until

ROOT = Path(__file__).resolve().parent.parent
KERNEL_MESSAGE: TypeAdapter[Any] = TypeAdapter(_wire_payloads.KernelMessage)
SYNCED_BY_IPYWIDGETS = {"_dom_classes", "layout", "tabbable", "tooltip", "_view_count"}


def synced_traits(chat: AgentChat) -> dict[str, Any]:
    """The chat's own synced traits as a view receives them (after each trait's to_json)."""
    state = chat.get_state()
    return {name: value for name, value in state.items() if not name.startswith("_") and name not in SYNCED_BY_IPYWIDGETS}


# -- what the kernel sends fits its declaration ---------------------------------------------------


async def test_every_message_a_run_sends_fits_its_declaration() -> None:
    chat = Captured(DemoAgent(delay=0), tools=[ACCENT_TOOL])
    chat.view_says({"kind": "hello", "viewId": "v1"})
    await chat.send("weather in Lisbon")
    run = chat.send("make it gold")
    await until(lambda: chat.status == "waiting")
    (call,) = chat.pending_tool_calls
    chat.view_says({"kind": "tool_result", "toolCallId": call["toolCallId"], "result": {"ok": True, "color": "gold"}})
    await asyncio.wait_for(run, 5)
    chat.state = {**chat.state, "note": "from a cell"}
    chat.view_says({"kind": "tool_result", "toolCallId": "never-was", "result": 1})  # a notice
    chat.view_says({"kind": "asset", "name": "vega"})
    sent = chat.__dict__["sent"]
    assert {"snapshot", "events", "messages", "state_patch", "check", "notice", "asset"} <= {m["kind"] for m in sent}
    for message in sent:
        KERNEL_MESSAGE.validate_python(message)


@pytest.mark.parametrize(
    "message",
    [
        _wire.snapshot_message(None, [], None, []),
        _wire.messages_message(0, [{"id": "m1", "role": "user", "content": "hi"}]),
        _wire.check_message([{"id": "m1", "role": "user", "content": "h\U0001f600"}], 0, 7),
        _wire.notice_message("error", "boom"),
        _wire.render_message("tool:c1", {"text/plain": "x"}, None, None),
        _wire.render_message("state:0", None, None, "m1"),
        _wire.asset_message("vega", None, "not built"),
        _wire.state_patch_message([{"op": "remove", "path": "/a"}]),
    ],
)
def test_each_builder_makes_what_is_declared(message: dict[str, Any]) -> None:
    KERNEL_MESSAGE.validate_python(message)


def test_a_declaration_refuses_what_it_does_not_declare() -> None:
    with pytest.raises(ValidationError):
        KERNEL_MESSAGE.validate_python({**_wire.notice_message("info", "x"), "level": "fatal"})
    with pytest.raises(ValidationError):
        KERNEL_MESSAGE.validate_python(_wire.asset_message("vega", None, None))
    with pytest.raises(ValidationError):
        KERNEL_MESSAGE.validate_python({**_wire.check_message([], 0, 1), "tail": [["m", "user"]]})


async def test_every_synced_trait_is_declared_and_fits_its_declaration() -> None:
    chat = Captured(
        DemoAgent(delay=0),
        tools=[ACCENT_TOOL, confirm_tool(), ask_tool()],
        suggestions=["hello", {"title": "Weather", "message": "weather in Oslo"}],
        predict_state=[{"state_key": "doc", "tool": "write", "tool_argument": "text"}, {"state_key": "all", "tool": "t"}],
        height=480,
    )
    assert set(synced_traits(chat)) == set(_wire_payloads.Traits.model_fields), (
        "a synced trait without a declaration, or the reverse"
    )
    _wire_payloads.Traits.model_validate(synced_traits(chat))
    run = chat.send("make it gold")
    await until(lambda: chat.status == "waiting")
    chat.send("and then this")  # queued behind the waiting run
    traits = synced_traits(chat)
    assert traits["pending"] and traits["queued"]
    _wire_payloads.Traits.model_validate(traits)
    assert traits["predict_state"] == [
        {"stateKey": "doc", "tool": "write", "toolArgument": "text"},
        {"stateKey": "all", "tool": "t", "toolArgument": None},
    ], "payloads are camelCase on the wire"
    assert chat.predict_state[0] == {"state_key": "doc", "tool": "write", "tool_argument": "text"}, "and Python's own"
    chat.stop()
    await asyncio.wait_for(run, 5)


# -- the trait entries' builders give what their declarations serialize ----------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)
TEXT = st.text(max_size=12)
NAME = st.text(min_size=1, max_size=12)
SETTINGS = settings(max_examples=150, deadline=None, derandomize=True)


@SETTINGS
@given(NAME, NAME, JSON, TEXT, st.none() | NAME, st.sampled_from([None, "approve", "running"]))
def test_a_pending_tool_call_is_built_as_declared(
    call_id: str, name: str, args: Any, args_text: str, claimed_by: str | None, kernel: Any
) -> None:
    built = _wire.pending_tool(call_id, name, args, args_text, claimed_by, kernel)
    declared = _wire_payloads.PendingTool(
        kind="tool", tool_call_id=call_id, name=name, args=args, args_text=args_text, claimed_by=claimed_by, kernel=kernel
    )
    assert built == declared.model_dump(by_alias=True)


@SETTINGS
@given(
    NAME, TEXT, st.none() | TEXT, st.none() | NAME, st.none() | NAME, JSON, st.none() | st.dictionaries(TEXT, JSON, max_size=3)
)
def test_a_pending_interrupt_is_built_as_declared(
    interrupt_id: str, reason: str, message: str | None, call_id: str | None, name: str | None, args: Any, schema: Any
) -> None:
    built = _wire.pending_interrupt(interrupt_id, reason, message, call_id, name, args, schema)
    declared = _wire_payloads.PendingInterrupt(
        kind="interrupt",
        interrupt_id=interrupt_id,
        reason=reason,
        message=message,
        tool_call_id=call_id,
        name=name,
        args=args,
        response_schema=schema,
    )
    assert built == declared.model_dump(by_alias=True)


@SETTINGS
@given(
    NAME,
    TEXT,
    st.dictionaries(TEXT, JSON, max_size=3),
    st.sampled_from(typing.get_args(ToolUI)),
    st.none() | TEXT,
    st.booleans(),
)
def test_a_tool_spec_is_built_as_declared(
    name: str, description: str, parameters: dict[str, Any], ui: Any, handler: str | None, approve: bool
) -> None:
    built = _wire.tool_spec(name, description, parameters, ui, handler, approve)
    declared = _wire_payloads.ToolSpec(
        name=name, description=description, parameters=parameters, ui=ui, handler=handler, approve=approve
    )
    assert built == declared.model_dump(by_alias=True)


@SETTINGS
@given(st.booleans(), st.lists(TEXT, max_size=3), *[st.integers(min_value=1, max_value=2**40)] * 3)
def test_an_attachment_policy_is_built_as_declared(
    enabled: bool, accept: list[str], max_bytes: int, max_files: int, max_total_bytes: int
) -> None:
    built = _wire.attachment_policy(enabled, accept, max_bytes, max_files, max_total_bytes)
    declared = _wire_payloads.AttachmentPolicy(
        enabled=enabled, accept=accept, max_bytes=max_bytes, max_files=max_files, max_total_bytes=max_total_bytes
    )
    assert built == declared.model_dump(by_alias=True)


@SETTINGS
@given(st.lists(st.fixed_dictionaries({"state_key": NAME, "tool": NAME}, optional={"tool_argument": NAME}), max_size=3))
def test_predict_rules_are_built_as_declared(rules: list[dict[str, Any]]) -> None:
    declared = [
        _wire_payloads.PredictRule(state_key=r["state_key"], tool=r["tool"], tool_argument=r.get("tool_argument")).model_dump(
            by_alias=True
        )
        for r in rules
    ]
    assert _wire.predict_rules_to_wire(rules) == declared


def test_a_chats_trait_entries_are_copies_not_its_own_objects() -> None:
    schema = {"type": "object", "properties": {"color": {"type": "string"}}}
    chat = AgentChat(DemoAgent(delay=0), tools=[FrontendTool("pick", "pick a color", schema)])
    chat.frontend_tools[0]["parameters"]["properties"]["color"]["type"] = "number"
    assert schema["properties"]["color"]["type"] == "string"
    assert chat._session.tools[0].parameters["properties"]["color"]["type"] == "string"


def test_a_frontend_tool_with_an_unknown_ui_is_refused_when_made() -> None:
    with pytest.raises(ValueError, match="ui is one of handler, confirm, ask, form, manual, kernel, not 'popup'"):
        FrontendTool("pick", "pick a color", ui="popup")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="the description is text"):
        FrontendTool("pick", None)  # type: ignore[arg-type]


# -- every request has one handler ----------------------------------------------------------------


def test_every_request_kind_has_exactly_one_handler() -> None:
    declared = {
        model.model_fields["kind"].annotation.__args__[0] for model in typing.get_args(typing.get_args(_wire_requests.Request)[0])
    }
    assert set(_ROUTES) == declared
    assert declared == _wire.REQUEST_KINDS, "the kinds parse_request names in its refusals"


# -- the generated files are current ----------------------------------------------------------------


def test_the_schema_and_docs_tables_are_current() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "agui_widget.wire._schema", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_the_views_types_and_validators_are_current() -> None:
    node = shutil.which("node")
    assert node is not None, "Node.js is needed to check the view's generated files"
    result = subprocess.run([node, "scripts/wire-codegen.mjs", "--check"], cwd=ROOT / "js", capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_a_stale_generated_file_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    schema = tmp_path / "wire.schema.json"
    docs = tmp_path / "wire.md"
    schema.write_text(_wire_schema.schema_text().replace('"kind"', '"kinds"', 1), encoding="utf-8")
    docs.write_text(_wire_schema.DOCS_PATH.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(_wire_schema, "SCHEMA_PATH", schema)
    monkeypatch.setattr(_wire_schema, "DOCS_PATH", docs)
    monkeypatch.setattr(_wire_schema, "ROOT", tmp_path)
    assert _wire_schema.main(["--check"]) == 1
    assert _wire_schema.main([]) == 0
    assert _wire_schema.main(["--check"]) == 0
