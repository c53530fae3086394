/** Tool call cards: their state through a call's life (never a wrong state in between), the
 * compact layout, approvals inside the card, focus after an answer, a call run in another tab. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeModel, idle, until, untilCount, untilSent } from "./dom";
import { ev } from "./helpers";
import { button, connected, maybeButton } from "./mount";
import { type CallFacts, callStateOf, deniedByResult, failureOf } from "../src/logic/callState";
import { argsSummary, hasLongText } from "../src/logic/format";

const doc = (globalThis as unknown as { document: Document }).document;
const statusLine = (el: HTMLElement) => el.querySelector(".agui-status") as HTMLElement;

const handlerTool = { name: "paint", description: "Paint the chat (for the model).", parameters: {}, ui: "handler", handler: "return { painted: true };", approve: false };
const confirmTool = { name: "confirm", description: "Ask the user to approve or deny an action. Returns {approved: bool}.", parameters: {}, ui: "confirm", handler: null, approve: false };

/** Every text the card's badge showed, in order, from now on. */
function watchBadges(el: HTMLElement, selector = ".agui-tool .agui-badge") {
  const seen: string[] = [];
  const sample = () => {
    const text = el.querySelector(selector)?.textContent ?? null;
    if (text !== null && seen[seen.length - 1] !== text) seen.push(text);
  };
  const observer = new MutationObserver(sample);
  observer.observe(el, { subtree: true, childList: true, characterData: true, attributes: true });
  sample();
  return {
    seen,
    stop() {
      observer.disconnect();
      return seen;
    },
  };
}

/** The first card's badge. */
const badge = (el: HTMLElement) => el.querySelector(".agui-tool .agui-badge")?.textContent ?? null;

const card = (el: HTMLElement, name: string) =>
  [...el.querySelectorAll<HTMLElement>(".agui-tool")].find((c) => c.querySelector(".agui-tool-name")?.textContent === name) as HTMLElement;

const facts = (over: Partial<CallFacts>): CallFacts => ({
  callId: "c1",
  streaming: false,
  result: undefined,
  ui: null,
  pending: null,
  handledElsewhere: false,
  runningHere: false,
  decision: null,
  askedApproval: false,
  latestTurn: true,
  chatBusy: false,
  runActive: false,
  outcome: undefined,
  ...over,
});

describe("a call's state", () => {
  it("reads running for a browser tool from start to result, whatever arrives first", () => {
    const steps: Array<Partial<CallFacts>> = [
      { ui: "handler", streaming: true, runActive: true, chatBusy: true },
      { ui: "handler", runActive: true, chatBusy: true },
      // RUN_FINISHED came, the `pending` trait not yet
      { ui: "handler", chatBusy: true, outcome: { type: "success", pendingToolCallIds: ["c1"] } },
      { ui: "handler", chatBusy: true, outcome: { type: "success" } },
      { ui: "handler", pending: "tool", chatBusy: true },
      { ui: "handler", pending: "tool", runningHere: true, chatBusy: true },
      // answered: the entry left `pending` before the result arrived
      { ui: "handler", chatBusy: true },
    ];
    assert.deepEqual(steps.map((s) => callStateOf(facts(s))), steps.map(() => "running"));
    assert.equal(callStateOf(facts({ ui: "handler", result: { content: '{"painted": true}' } })), "done");
    assert.equal(callStateOf(facts({ ui: "handler", pending: "tool", handledElsewhere: true })), "elsewhere");
  });

  it("reads stopped, denied, failed and waiting from what the kernel and the user said", () => {
    assert.equal(callStateOf(facts({ result: { content: "Cancelled", error: "cancelled" } })), "stopped");
    assert.equal(callStateOf(facts({ outcome: { type: "cancelled" } })), "stopped", "Stop seen before the cancelled answer");
    assert.equal(callStateOf(facts({ ui: "confirm", askedApproval: true, result: { content: '{"approved": false}' } })), "denied");
    assert.equal(callStateOf(facts({ ui: "confirm", askedApproval: true, result: { content: '{"approved": true}' } })), "done");
    assert.equal(callStateOf(facts({ askedApproval: true, result: { content: '{"deleted": false, "reason": "denied by the user"}' } })), "denied");
    assert.equal(callStateOf(facts({ decision: "denied", result: { content: '{"booked": false}' } })), "denied");
    assert.equal(callStateOf(facts({ decision: "approved", askedApproval: true, result: { content: "Access denied" } })), "done", "an approval made here is not second-guessed");
    assert.equal(callStateOf(facts({ result: { content: "Access denied" } })), "done", "words count only for calls that asked");
    assert.equal(callStateOf(facts({ result: { content: '{"error": "Error: no canvas"}' } })), "failed");
    assert.equal(callStateOf(facts({ result: { content: "", error: "disk full" } })), "failed");
    assert.equal(callStateOf(facts({ outcome: { type: "interrupt", interrupts: [{ id: "i", reason: "approval", toolCallId: "c1" }] } })), "waiting");
    assert.equal(callStateOf(facts({ pending: "interrupt" })), "waiting");
    assert.equal(callStateOf(facts({ ui: "confirm", pending: "tool" })), "waiting");
    assert.equal(callStateOf(facts({ latestTurn: false, chatBusy: true })), "called", "an old call without a result");
    assert.equal(callStateOf(facts({ streaming: true, runActive: true })), "streaming");
    assert.equal(deniedByResult("The user denied this action."), true);
    assert.equal(failureOf('{"ok": true, "error": "none"}'), "");
  });
});

describe("the compact card", () => {
  it("sums the arguments up on one line, opens them on click, and shows long strings as text", async () => {
    const document = "Tea\n\nTea is a fine subject, with \"quotes\" and lines.";
    const args = JSON.stringify({ document, words: 9 });
    const { model, el } = await connected();
    model.kernel({ kind: "events", events: [ev.runStarted(), ev.toolStart("c1", "write_document", "a1"), ev.toolArgs("c1", args), ev.toolEnd("c1"), ev.toolResult("t1", "c1", '{"written": true}'), ev.runFinished()] });
    await until(() => card(el, "write_document")?.querySelectorAll("details.agui-tool-section").length === 2, "the card with its arguments and result");
    const tool = card(el, "write_document");
    assert.equal(tool.querySelector(".agui-tool-summary")?.textContent, 'document: Tea Tea is a fine subject, with "quotes" and lines., words: 9');
    const sections = [...tool.querySelectorAll<HTMLDetailsElement>("details.agui-tool-section")];
    assert.deepEqual(sections.map((d) => [d.querySelector("summary")?.textContent, d.open]), [["Arguments", false], ["Result", false]], "closed by default");
    const texts = [...(sections[0] as HTMLElement).querySelectorAll("pre")].map((p) => p.textContent);
    assert.ok(texts.includes(document), `the document is shown as text: ${JSON.stringify(texts)}`);
    assert.ok(!texts.some((t) => t?.includes("\\n")), "no literal \\n");
    assert.equal((sections[0] as HTMLElement).querySelector("dt")?.textContent, "document");
    assert.equal(hasLongText({ a: ["short"] }), false);
  });

  it("shows a failed call's display (a cell's output and traceback) open, under Error", async () => {
    const { model, el } = await connected([{ id: "u1", role: "user", content: "run it" }]);
    const cell = '<div class="agui-cell"><pre class="agui-cell-stdout">before</pre><pre class="agui-cell-error">ZeroDivisionError: division by zero</pre></div>';
    model.kernel({ kind: "events", events: [ev.runStarted(), ev.toolStart("c1", "run_python", "a1"), ev.toolArgs("c1", '{"code": "1 / 0"}'), ev.toolEnd("c1"), ev.runFinished()] });
    model.kernel({
      kind: "messages",
      start: 2,
      messages: [{ id: "t1", role: "tool", toolCallId: "c1", content: "In [3] failed with ZeroDivisionError", error: "ZeroDivisionError: division by zero", metadata: { agui_widget: { display: { "text/html": cell, "text/plain": "failed" } } } }],
    });
    await until(() => card(el, "run_python")?.querySelector(".agui-tool-result .agui-cell-error") != null, "the traceback in the card");
    const result = card(el, "run_python").querySelector<HTMLDetailsElement>("details.agui-tool-result")!;
    assert.equal(result.querySelector("summary")?.textContent, "Error");
    assert.equal(result.open, true, "open: the traceback is what the user needs");
    assert.equal(result.querySelector(".agui-cell-stdout")?.textContent, "before");
  });

  it("shows the arguments a Stop cut short as partial, and reads stopped before the kernel's answer", async () => {
    const { model, el } = await connected([{ id: "u1", role: "user", content: "write" }]);
    const badges = watchBadges(el);
    model.set("status", "running");
    model.kernel({ kind: "events", events: [ev.runStarted(), ev.toolStart("c1", "write_document", "a1"), ev.toolArgs("c1", '{"document": "Tea\\n\\nTea is a fi')] });
    await until(() => badge(el) === "streaming", "the card streaming");
    model.kernel({ kind: "events", events: [ev.toolEnd("c1"), { type: "RUN_FINISHED", threadId: "t1", runId: "r1", outcome: { type: "cancelled" } }] });
    await until(() => badge(el) === "stopped", "the card stopped");
    model.kernel({ kind: "messages", start: 2, messages: [{ id: "t1", role: "tool", toolCallId: "c1", content: "Cancelled: the run was stopped before this tool call was answered.", error: "cancelled" }] });
    model.set("status", "idle");
    await idle(); // the kernel's answer rendered: any badge it brought is seen
    assert.deepEqual(badges.stop(), ["streaming", "stopped"]);
    const tool = card(el, "write_document");
    assert.match(tool.querySelector(".agui-tool-args summary")?.textContent ?? "", /Arguments\s*partial/);
    const shown = [...tool.querySelectorAll(".agui-tool-args pre")].map((p) => p.textContent);
    assert.deepEqual(shown, ["Tea\n\nTea is a fi"], "the partial value, not the broken JSON text");
    assert.equal(tool.querySelector(".agui-tool-result"), null, "the kernel's cancellation text is not shown as a result");
  });
});

describe("a browser tool's card", () => {
  it("reads running from its first event to its result, never 'no result'", async () => {
    const model = new FakeModel({ frontend_tools: [handlerTool] });
    const { el } = await connected([{ id: "u1", role: "user", content: "paint" }], model);
    const badges = watchBadges(el);
    model.set("status", "running");
    model.kernel({ kind: "events", events: [ev.runStarted(), ev.toolStart("c1", "paint", "a1"), ev.toolArgs("c1", '{"color": "te')] });
    await until(() => badge(el) === "running", "the card running");
    model.kernel({ kind: "events", events: [ev.toolArgs("c1", 'al"}'), ev.toolEnd("c1"), { type: "RUN_FINISHED", threadId: "t1", runId: "r1", outcome: { type: "success", pendingToolCallIds: ["c1"] } }] });
    await idle(); // the run's end rendered, whatever badge it brought
    model.set("status", "waiting");
    model.set("pending", [{ kind: "tool", toolCallId: "c1", name: "paint", args: { color: "teal" }, argsText: '{"color": "teal"}', claimedBy: null, kernel: null }]);
    await untilSent(model, "tool_result");
    assert.deepEqual(model.sentOf("tool_result").map((m) => m.result), [{ painted: true }]);
    model.kernel({ kind: "messages", start: 2, messages: [{ id: "t1", role: "tool", toolCallId: "c1", content: '{"painted": true}' }] });
    model.set("pending", []);
    await until(() => badge(el) === "done", "the card done");
    assert.deepEqual(badges.stop(), ["running", "done"]);
    assert.equal(el.querySelector(".agui-pending"), null, "nothing for the user in the panel");
  });

  it("says when another tab runs it, and runs it here on request", async () => {
    const model = new FakeModel({ frontend_tools: [handlerTool] });
    model.grantsClaims = false;
    const view = await connected([{ id: "u1", role: "user", content: "paint" }], model);
    model.kernel({ kind: "events", events: [ev.runStarted(), ev.toolStart("c1", "paint", "a1"), ev.toolArgs("c1", "{}"), ev.toolEnd("c1"), ev.runFinished()] });
    model.set("pending", [{ kind: "tool", toolCallId: "c1", name: "paint", args: {}, argsText: "{}", claimedBy: "a-view-in-another-tab" }]);
    await until(() => badge(view.el) === "in another tab", "the card handled in another tab");
    const tool = card(view.el, "paint");
    assert.equal(tool.querySelector(".agui-badge")?.textContent, "in another tab");
    assert.match(tool.querySelector('[role="note"]')?.textContent ?? "", /Handled in another tab/);
    assert.doesNotMatch(view.el.textContent ?? "", /nothing pending|error/i);
    button(tool, "Run it here instead").click();
    assert.deepEqual(model.sentOf("claim").at(-1), { kind: "claim", toolCallId: "c1", viewId: view.viewId, takeOver: true });
    model.grant(model.sentOf("claim").at(-1) as Record<string, unknown>);
    await untilSent(model, "tool_result");
    await until(() => maybeButton(tool, "Run it here instead") === null, "the card's offer gone");
    assert.deepEqual(model.sentOf("tool_result").map((m) => m.toolCallId), ["c1"]);
    assert.equal(maybeButton(tool, "Run it here instead"), null);
  });
});

describe("approvals in the card", () => {
  const turn = (calls: Array<[string, Record<string, unknown>]>) => [
    { id: "u1", role: "user", content: "clean up" },
    { id: "a1", role: "assistant", content: "", toolCalls: calls.map(([id, args]) => ({ id, type: "function", function: { name: "confirm", arguments: JSON.stringify(args) } })) },
  ];
  const pendingConfirm = (id: string, args: Record<string, unknown>) => ({ kind: "tool", toolCallId: id, name: "confirm", args, argsText: JSON.stringify(args), claimedBy: null, kernel: null });

  it("asks the question once, in the card, and moves focus on to the next card, then to the message box", async () => {
    const model = new FakeModel({ frontend_tools: [confirmTool] });
    const a = { message: "Delete a.txt?" };
    const b = { message: "Delete b.txt?", path: "/tmp/b.txt" };
    const { el } = await connected(turn([["c1", a], ["c2", b]]), model);
    model.set("status", "waiting");
    model.set("pending", [pendingConfirm("c1", a), pendingConfirm("c2", b)]);
    await untilCount(el, ".agui-tool section[aria-label='Waiting for you: confirm']", 2, "both cards asking");
    assert.equal(el.querySelector(".agui-pending"), null, "no panel under the transcript: both calls have a card");
    const [first, second] = [...el.querySelectorAll<HTMLElement>(".agui-tool")];
    assert.ok(first && second);
    assert.equal(first.querySelector('section[aria-label="Waiting for you: confirm"] .agui-card-title')?.textContent, "Delete a.txt?");
    assert.equal((el.textContent ?? "").split("Delete a.txt?").length, 2, "the question is asked once");
    assert.doesNotMatch(el.textContent ?? "", /Ask the user to approve/, "not the tool's description for the model");
    assert.equal(first.querySelector(".agui-tool-summary"), null, "the arguments are not summed up next to the question");
    assert.equal(second.querySelector(".agui-card-args pre")?.textContent, '{\n  "path": "/tmp/b.txt"\n}', "the other arguments, once");

    button(first, "Approve").click();
    assert.equal(doc.activeElement, maybeButton(second, "Approve"), "the next card's first control");
    button(second, "Deny").click();
    assert.equal(doc.activeElement?.getAttribute("aria-label"), "Message", "then the message box");
    assert.deepEqual(model.sentOf("tool_result").map((m) => m.result), [{ approved: true }, { approved: false }]);

    model.kernel({ kind: "messages", start: 2, messages: [
      { id: "t1", role: "tool", toolCallId: "c1", content: '{"approved": true}' },
      { id: "t2", role: "tool", toolCallId: "c2", content: '{"approved": false}' },
    ] });
    model.set("pending", []);
    model.set("status", "idle");
    await until(
      () => [...el.querySelectorAll(".agui-tool .agui-badge")].map((b) => b.textContent).join(" ") === "done denied",
      "the cards read done and denied",
    );
  });

  it("puts an interrupt about a call in its card, and an interrupt about none in the panel", async () => {
    const model = new FakeModel();
    const messages = [
      { id: "u1", role: "user", content: "delete my list" },
      { id: "a1", role: "assistant", content: "", toolCalls: [{ id: "c9", type: "function", function: { name: "delete_todos", arguments: '{"count": 1}' } }] },
    ];
    const { el } = await connected(messages, model);
    model.set("pending", [
      { kind: "interrupt", interruptId: "i1", reason: "approval", message: "Delete all 1 items?", toolCallId: "c9", name: "delete_todos", args: { count: 1 }, responseSchema: null },
      { kind: "interrupt", interruptId: "i2", reason: "input", message: "Carry on?", toolCallId: null, name: null, args: null, responseSchema: null },
    ]);
    await until(() => /Carry on\?/.test(el.querySelector(".agui-pending")?.textContent ?? "") && /Delete all 1 items\?/.test(card(el, "delete_todos")?.textContent ?? ""), "both interrupts asked");
    const tool = card(el, "delete_todos");
    assert.match(tool.textContent ?? "", /Delete all 1 items\?/);
    assert.match(el.querySelector(".agui-pending")?.textContent ?? "", /Carry on\?/);
    assert.doesNotMatch(el.querySelector(".agui-pending")?.textContent ?? "", /Delete all/);
    const deny = [...tool.querySelectorAll("button")].find((b) => b.textContent === "Deny") as HTMLButtonElement;
    deny.click();
    assert.deepEqual(model.sentOf("resume")[0], { kind: "resume", interruptId: "i1", status: "resolved", payload: { approved: false } });
    const panelApprove = el.querySelector(".agui-pending button.agui-btn-primary");
    assert.equal(doc.activeElement, panelApprove, "the panel's card is next");
    model.set("pending", [model.traits.pending && (model.traits.pending as unknown[])[1]]);
    model.kernel({ kind: "messages", start: 2, messages: [{ id: "t1", role: "tool", toolCallId: "c9", content: '{"deleted": false}' }] });
    await until(() => tool.querySelector(".agui-badge")?.textContent === "denied", "denied here, whatever words the agent chose");
  });
});

describe("a Python tool's card", () => {
  const kernelTool = (approve: boolean) => ({ name: "add", description: "Add two numbers.", parameters: {}, ui: "kernel", handler: null, approve });
  const turn = [
    { id: "u1", role: "user", content: "call add a=2 b=3" },
    { id: "a1", role: "assistant", content: "", toolCalls: [{ id: "c1", type: "function", function: { name: "add", arguments: '{"a": 2, "text": "hi"}' } }] },
  ];
  const pendingAdd = (kernel: "approve" | "running") => ({ kind: "tool", toolCallId: "c1", name: "add", args: { a: 2, text: "hi" }, argsText: '{"a": 2, "text": "hi"}', claimedBy: null, kernel });

  it("reads running in the kernel, never waiting for you, from the call to its result", () => {
    const steps: Array<Partial<CallFacts>> = [
      { ui: "kernel", runActive: true, chatBusy: true },
      { ui: "kernel", chatBusy: true, outcome: { type: "success", pendingToolCallIds: ["c1"] } },
      { ui: "kernel", pending: "tool", kernel: "running", chatBusy: true },
      { ui: "kernel", chatBusy: true },
    ];
    assert.deepEqual(steps.map((s) => callStateOf(facts(s))), steps.map(() => "kernel"));
    assert.equal(callStateOf(facts({ ui: "kernel", result: { content: "5" } })), "done");
    assert.equal(callStateOf(facts({ ui: "kernel", result: { content: "Error: ZeroDivisionError", error: "ZeroDivisionError: division by zero" } })), "failed");
  });

  it("waits for the user only while a call that asks for approval is not approved", () => {
    assert.equal(callStateOf(facts({ ui: "kernel", approve: true, runActive: true, chatBusy: true })), "waiting");
    assert.equal(callStateOf(facts({ ui: "kernel", approve: true, chatBusy: true, outcome: { type: "success", pendingToolCallIds: ["c1"] } })), "waiting");
    assert.equal(callStateOf(facts({ ui: "kernel", approve: true, pending: "tool", kernel: "approve", chatBusy: true })), "waiting");
    assert.equal(callStateOf(facts({ ui: "kernel", approve: true, decision: "approved", chatBusy: true })), "kernel");
    assert.equal(callStateOf(facts({ ui: "kernel", approve: true, pending: "tool", kernel: "running", chatBusy: true })), "kernel");
    assert.equal(callStateOf(facts({ ui: "kernel", askedApproval: true, result: { content: '{"approved": false, "reason": "The user denied this call."}' } })), "denied");
  });

  it("asks Approve / Deny in the card with every argument shown, then reads running in the kernel", async () => {
    const model = new FakeModel({ frontend_tools: [kernelTool(true)] });
    const { el } = await connected(turn, model);
    model.set("status", "waiting");
    model.set("pending", [pendingAdd("approve")]);
    await until(() => card(el, "add")?.querySelector(".agui-card-title") != null, "the card asking");
    const tool = card(el, "add");
    assert.equal(tool.querySelector(".agui-card-title")?.textContent, "Run add in the kernel?", "an argument named text is not taken for a question");
    assert.match(tool.querySelector(".agui-card-args pre")?.textContent ?? "", /"text": "hi"/);
    assert.match(statusLine(el).textContent ?? "", /Waiting for you/);
    button(tool, "Approve").click();
    assert.deepEqual(model.sentOf("tool_result").map((m) => m.result), [{ approved: true }]);
    model.set("pending", [pendingAdd("running")]);
    await until(() => tool.querySelector(".agui-badge")?.textContent === "running in the kernel", "the card running in the kernel");
    assert.equal(tool.querySelector("button.agui-btn-primary"), null, "nothing left to answer");
    assert.doesNotMatch(statusLine(el).textContent ?? "", /Waiting for you/);
  });

  it("shows a call without approval as running in the kernel, and its failure in the card", async () => {
    const model = new FakeModel({ frontend_tools: [kernelTool(false)] });
    const { el } = await connected(turn, model);
    model.set("status", "waiting");
    model.set("pending", [pendingAdd("running")]);
    await until(() => badge(el) === "running in the kernel", "the card running in the kernel");
    const badges = watchBadges(el);
    assert.doesNotMatch(statusLine(el).textContent ?? "", /Waiting for you/);
    model.kernel({ kind: "messages", start: 2, messages: [{ id: "t1", role: "tool", toolCallId: "c1", content: "Error: ZeroDivisionError: division by zero", error: "ZeroDivisionError: division by zero" }] });
    model.set("pending", []);
    model.set("status", "idle");
    await until(() => badge(el) === "failed", "the card failed");
    assert.deepEqual(badges.stop(), ["running in the kernel", "failed"]);
    assert.equal(card(el, "add").querySelector(".agui-tool-error")?.textContent, "ZeroDivisionError: division by zero");
  });
});

describe("argument summaries", () => {
  it("read JSON, partial JSON and plain text on one line", () => {
    assert.equal(argsSummary('{"city": "Paris", "days": 3, "tags": ["a", "b"]}'), 'city: Paris, days: 3, tags: ["a","b"]');
    assert.equal(argsSummary('{"rows": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]}'), "rows: [20 items]");
    assert.equal(argsSummary("not json\nat all"), "not json at all");
    assert.equal(argsSummary('{"q": "pa', { q: "pa" }), "q: pa");
    assert.ok(argsSummary(JSON.stringify({ text: "x".repeat(500) })).length <= 160);
  });
});
