"""The wire is declared once, in agui_widget/_wire.py, and everything else follows from it.

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
from pydantic import TypeAdapter, ValidationError

from agui_widget import AgentChat, DemoAgent, _wire, _wire_schema
from agui_widget._tools import ask_tool, confirm_tool
from agui_widget._widget import _ROUTES
from agui_widget.adapters._demo import ACCENT_TOOL

from .genui_support import Captured
from .support import until

ROOT = Path(__file__).resolve().parent.parent
KERNEL_MESSAGE: TypeAdapter[Any] = TypeAdapter(_wire.KernelMessage)
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
    assert set(synced_traits(chat)) == set(_wire.Traits.model_fields), "a synced trait without a declaration, or the reverse"
    _wire.Traits.model_validate(synced_traits(chat))
    run = chat.send("make it gold")
    await until(lambda: chat.status == "waiting")
    chat.send("and then this")  # queued behind the waiting run
    traits = synced_traits(chat)
    assert traits["pending"] and traits["queued"]
    _wire.Traits.model_validate(traits)
    assert traits["predict_state"] == [
        {"stateKey": "doc", "tool": "write", "toolArgument": "text"},
        {"stateKey": "all", "tool": "t", "toolArgument": None},
    ], "payloads are camelCase on the wire"
    assert chat.predict_state[0] == {"state_key": "doc", "tool": "write", "tool_argument": "text"}, "and Python's own"
    chat.stop()
    await asyncio.wait_for(run, 5)


# -- every request has one handler ----------------------------------------------------------------


def test_every_request_kind_has_exactly_one_handler() -> None:
    declared = set(typing.get_args(typing.get_args(_wire.Request)[0]))
    assert set(_ROUTES) == declared
    assert {model.model_fields["kind"].annotation.__args__[0] for model in declared} == _wire.REQUEST_KINDS


# -- the generated files are current ----------------------------------------------------------------


def test_the_schema_and_docs_tables_are_current() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "agui_widget._wire_schema", "--check"], cwd=ROOT, capture_output=True, text=True
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
