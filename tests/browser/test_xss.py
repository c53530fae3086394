"""Script-injection payloads through every way content reaches the chat, in a real JupyterLab page.

The payloads are ``js/test/xss-payloads.json`` (the list the front end's jsdom tests use); each
would call the global ``__xss(n)``. An AG-UI agent defined in the notebook puts every payload in
agent text (streamed in two pieces), a tool call's name, arguments and result, the shared state's
keys and values (STATE_SNAPSHOT) and a run's error; a cell then assigns a state made of them.
With the state panel and the event inspector open and every node and event row expanded, the
page must show all of them as text and nothing may run: no dialog, no call of ``__xss``, no
inline handler, no script-like element, no ``javascript:`` / ``data:text/html`` URL in the chat.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ChatView, NotebookPage
from tests.browser.helpers_ui import show_panel

pytestmark = pytest.mark.browser

PAYLOADS: list[str] = json.loads(
    (Path(__file__).resolve().parents[2] / "js" / "test" / "xss-payloads.json").read_text(encoding="utf-8")
)

AGENT = '''\
import itertools, json
from ag_ui.core import (
    RunErrorEvent, RunFinishedEvent, RunFinishedSuccessOutcome, RunStartedEvent, StateSnapshotEvent,
    TextMessageContentEvent, TextMessageEndEvent, TextMessageStartEvent, ToolCallArgsEvent,
    ToolCallEndEvent, ToolCallResultEvent, ToolCallStartEvent,
)
from agui_widget import AgentChat

PAYLOADS = {payloads!r}
LAST_WORDS = "All payloads sent."
_ids = itertools.count(1)


def _text(mid, text, pieces=2):
    cut = max(1, -(-len(text) // pieces))
    return [
        TextMessageStartEvent(message_id=mid, role="assistant"),
        *(TextMessageContentEvent(message_id=mid, delta=text[at:at + cut]) for at in range(0, len(text), cut)),
        TextMessageEndEvent(message_id=mid),
    ]


def _call(parent, name, args, result):
    call = f"c{{next(_ids)}}"
    return [
        ToolCallStartEvent(tool_call_id=call, tool_call_name=name, parent_message_id=parent),
        ToolCallArgsEvent(tool_call_id=call, delta=args),
        ToolCallEndEvent(tool_call_id=call),
        ToolCallResultEvent(message_id=f"r{{next(_ids)}}", tool_call_id=call, content=result, role="tool"),
    ]


class PayloadAgent:
    """Every payload as agent text, tool name, tool arguments, tool result and state; "fail"
    ends the run with a RUN_ERROR whose message is made of them."""

    async def run(self, input):
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        if input.messages[-1].content == "fail":
            yield RunErrorEvent(message=" | ".join(PAYLOADS), code="xss")
            return
        yield StateSnapshotEvent(snapshot={{
            **{{p: p for p in PAYLOADS}},
            "nested": {{"list": PAYLOADS, "deeper": {{p: {{"value": p}} for p in PAYLOADS}}}},
        }})
        for number, payload in enumerate(PAYLOADS, 1):
            parent = f"m{{next(_ids)}}"
            events = [
                *_text(parent, payload),
                # the payload as a tool's name with raw (non-JSON) arguments and a JSON result,
                # then as JSON arguments (a key and a value) with a raw result
                *_call(parent, payload, payload, json.dumps({{"payload": payload}})),
                *_call(parent, f"echo_{{number}}", json.dumps({{"payload": payload, payload: number}}), payload),
            ]
            for event in events:
                yield event
        for event in _text(f"m{{next(_ids)}}", LAST_WORDS, 1):
            yield event
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id, outcome=RunFinishedSuccessOutcome())


chat = AgentChat(PayloadAgent())
chat'''

# Records what a payload would do if it ran: a call of __xss (its argument), a dialog.
INSTALL_TRAPS = """() => {
  window.__xssCalls = [];
  window.__xss = (n) => { window.__xssCalls.push(String(n)); };
}"""

# Everything that could make rendered content run script, inside the chat views.
FORBIDDEN_TAGS = [
    "script",
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "base",
    "meta",
    "link",
    "style",
    "form",
    "noscript",
    "template",
]
URL_ATTRIBUTES = [
    "href",
    "src",
    "action",
    "formaction",
    "xlink:href",
    "srcdoc",
    "data",
    "background",
    "poster",
    "srcset",
    "codebase",
    "dynsrc",
    "lowsrc",
]
SCAN = """([selector, forbidden, urlAttrs]) => {
  const roots = document.querySelectorAll(selector);
  const bad = [];
  const unsafeUrl = (value) => {
    const v = value.replace(/[\\u0000-\\u0020\\u007f-\\u00a0]+/g, "").toLowerCase();
    return /^(javascript|vbscript|livescript):/.test(v) || v.startsWith("data:text/html") || v.startsWith("data:image/svg");
  };
  let elements = 0;
  for (const root of roots) {
    for (const el of [root, ...root.querySelectorAll("*")]) {
      elements++;
      const tag = el.localName.toLowerCase();
      const where = `<${tag}${el.className && typeof el.className === "string" ? " class=" + el.className : ""}>`;
      if (forbidden.includes(tag)) bad.push(`${where} element`);
      for (const attr of Array.from(el.attributes)) {
        const name = attr.name.toLowerCase();
        if (name.startsWith("on")) bad.push(`${where} has the handler attribute ${name}=${JSON.stringify(attr.value)}`);
        if ((urlAttrs.includes(name) || attr.localName.toLowerCase() === "href") && unsafeUrl(attr.value))
          bad.push(`${where} has ${name}=${JSON.stringify(attr.value)}`);
        if (name === "style" && /javascript:|expression\\s*\\(|url\\s*\\(/i.test(attr.value))
          bad.push(`${where} has style=${JSON.stringify(attr.value)}`);
      }
    }
  }
  return { bad, elements };
}"""

# Fires, on every element of the chat views, the events the payloads' handlers hook: a handler
# that survived anywhere would call __xss now (clicks are left out: they would work the chat).
FIRE_EVENTS = """(selector) => {
  const roots = document.querySelectorAll(selector);
  const types = ["error", "load", "mouseover", "mouseenter", "pointerover", "focus", "focusin", "toggle", "start",
                 "begin", "animationstart", "transitionend", "input", "change", "scroll"];
  let fired = 0;
  for (const root of roots)
    for (const el of [root, ...root.querySelectorAll("*")])
      for (const type of types) { el.dispatchEvent(new Event(type)); fired++; }
  return fired;
}"""

# Opens everything: earlier event rows, every event row's payload, every state node, every cut
# string and folded text.
EXPAND_ALL = """async (selector) => {
  const roots = document.querySelectorAll(selector);
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  for (let round = 0; round < 200; round++) {
    let acted = 0;
    for (const root of roots) {
      for (const b of root.querySelectorAll(".agui-events .agui-panel-body > button")) { b.click(); acted++; }
      for (const d of root.querySelectorAll("details:not([open])")) { d.open = true; acted++; }
      for (const b of root.querySelectorAll(".agui-state button[aria-expanded=false]")) { b.click(); acted++; }
      for (const b of root.querySelectorAll("button.agui-fold[aria-expanded=false]")) { b.click(); acted++; }
    }
    if (!acted) return round;
    await frame();
  }
  return -1;
}"""


def _roots(notebook: NotebookPage) -> str:
    """A selector for the notebook's chat views (each script below looks them up itself)."""
    return f'[id="{notebook.panel_id}"] .jp-OutputArea-output .agui-widget'


def _scan_and_probe(notebook: NotebookPage, chat: ChatView, dialogs: list[str], phase: str) -> int:
    """Expands every part of the chat, fires the hooked events, and checks that nothing ran and
    nothing dangerous is in the DOM. Returns how many elements were checked."""
    page = notebook.page
    rounds = page.evaluate(EXPAND_ALL, _roots(notebook))
    assert rounds >= 0, f"{phase}: the chat kept offering things to expand"
    # Every opened event row shows its payload.
    events = chat.root.locator(".agui-events li.agui-event")
    expect(chat.root.locator(".agui-events li.agui-event details:not([open])"), f"{phase}: closed event rows").to_have_count(0)
    expect(events.locator("pre.agui-code"), f"{phase}: not every event row shows its payload").to_have_count(events.count())
    fired = page.evaluate(FIRE_EVENTS, _roots(notebook))
    assert fired > 0
    # Handlers run synchronously on dispatch; timers a payload might set get a few frames.
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 50))))")
    result = page.evaluate(SCAN, [_roots(notebook), FORBIDDEN_TAGS, URL_ATTRIBUTES])
    calls = page.evaluate("() => window.__xssCalls")
    assert calls == [], f"{phase}: payloads ran: __xss was called with {calls}"
    assert dialogs == [], f"{phase}: payloads opened dialogs: {dialogs}"
    assert result["bad"] == [], f"{phase}: unsafe markup in the chat:\n" + "\n".join(result["bad"][:40])
    return int(result["elements"])


def test_payloads_in_text_tools_state_events_and_errors_stay_inert(lab):
    assert len(PAYLOADS) >= 30, "js/test/xss-payloads.json should hold the payload list"
    nb = lab.open([AGENT.format(payloads=PAYLOADS)], run=False)
    page = nb.page
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: dialogs.append(f"{dialog.type}: {dialog.message}"))
    page.evaluate(INSTALL_TRAPS)
    # The traps work in this page: an inline handler outside the chat does call __xss.
    page.evaluate("""() => { const probe = document.createElement("div"); probe.id = "xss-probe";
        probe.innerHTML = '<img src="data:," onerror="__xss(\\'probe\\')">'; document.body.appendChild(probe); }""")
    page.wait_for_function("() => window.__xssCalls.includes('probe')", timeout=10_000)
    page.evaluate("() => { document.getElementById('xss-probe').remove(); window.__xssCalls.length = 0; }")

    nb.run_all()
    chat = nb.chat()
    state_panel = show_panel(chat, "state")
    show_panel(chat, "events")

    # 1. One run: every payload as streamed agent text, tool names, arguments, results, state.
    chat.send("go")
    chat.wait_answer("All payloads sent.", timeout=60_000)
    expect(chat.assistant_texts, "one text message per payload, and the last words").to_have_count(len(PAYLOADS) + 1)
    expect(chat.root.locator(".agui-tool"), "two tool cards per payload").to_have_count(2 * len(PAYLOADS))
    expect(state_panel.get_by_role("button", name="Collapse nested/deeper {")).to_be_visible()
    checked = _scan_and_probe(nb, chat, dialogs, "after the agent's run")
    # Every payload reached the page as text: in a card's raw arguments, exactly as sent.
    shown = chat.root.evaluate("el => Array.from(el.querySelectorAll('.agui-tool pre'), (p) => p.textContent)")
    missing = [p for p in PAYLOADS if p not in shown]
    assert not missing, f"payloads not shown as text in the tool cards: {missing[:5]}"
    state_text = state_panel.inner_text()
    assert all(json.dumps(p)[1:-1][:40] in state_text or p[:40] in state_text for p in PAYLOADS[:10]), state_text[:500]

    # 2. A cell assigns a state made of the payloads (keys and values) while the panel is open.
    nb.run_cell(
        "chat.state = {'from_cell': {p: [p, {'again': p}] for p in PAYLOADS}, 'values': PAYLOADS, **{p: i for i, p in enumerate(PAYLOADS)}}"
    )
    expect(state_panel.get_by_role("button", name="Collapse from_cell {"), "the cell's state did not show").to_be_visible()
    _scan_and_probe(nb, chat, dialogs, "after chat.state was assigned from a cell")
    values = state_panel.locator(".agui-leaf-value").evaluate_all("els => els.map((e) => e.textContent)")
    assert sum(1 for v in values if v.startswith('"') and "__xss(" in v) >= len(PAYLOADS), (
        f"the state panel shows too few payload values: {len(values)} leaves"
    )

    # 3. A run that fails with the payloads as its error message.
    chat.send("fail")
    expect(chat.error_line, "the run's error should show").to_contain_text("__xss(1)")
    chat.wait_idle()
    assert PAYLOADS[0] in chat.error_line.inner_text(), "the error shows the payloads as text"
    checked += _scan_and_probe(nb, chat, dialogs, "after a run failed with the payloads")

    # The kernel holds what the agent sent, untouched.
    out = nb.run_cell(
        "import json\n"
        "texts = [m['content'] for m in chat.messages if m['role'] == 'assistant' and m.get('content')]\n"
        "print(json.dumps(texts[:len(PAYLOADS)] == PAYLOADS))"
    ).text
    assert out.strip() == "true", "the kernel's transcript should hold every payload as sent"
    assert checked > 1000, f"only {checked} elements were checked: the chat did not render the payloads"

    # The scan sees what it looks for: planted in the chat, a handler, a URL and a frame are reported.
    page.evaluate(
        """(selector) => { const plant = document.createElement("div"); plant.id = "xss-plant";
        plant.innerHTML = '<b onmouseover="1">x</b><a href=" JaVa&#x09;script:1">y</a><iframe></iframe>';
        document.querySelector(selector).appendChild(plant); }""",
        _roots(nb),
    )
    planted = page.evaluate(SCAN, [_roots(nb), FORBIDDEN_TAGS, URL_ATTRIBUTES])["bad"]
    page.evaluate("() => document.getElementById('xss-plant').remove()")
    assert len(planted) == 3 and any("onmouseover" in b for b in planted) and any("href" in b for b in planted), planted
