import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { doc, FakeModel, idle, until, untilSent } from "./dom";
import widget from "../src/index";
import { ev } from "./helpers";

type Mounted = { model: FakeModel; el: HTMLElement; cleanup: () => void; viewId: string };
const mounted: Array<() => void> = [];

function mount(model = new FakeModel()): Mounted {
  const el = doc.createElement("div");
  doc.body.appendChild(el);
  const cleanup = widget.render({ model, el });
  mounted.push(cleanup);
  const hello = model.sentOf("hello").at(-1);
  return { model, el, cleanup, viewId: String(hello?.viewId) };
}

async function connected(messages: unknown[] = [], model = new FakeModel()): Promise<Mounted> {
  const view = mount(model);
  model.kernel({ kind: "snapshot", viewId: view.viewId, messages, state: {}, events: [] });
  await until(() => !(view.el.textContent ?? "").includes("Connecting to the kernel"), "the view shows the snapshot");
  return view;
}

const buttons = (el: HTMLElement) => [...el.querySelectorAll("button")] as HTMLButtonElement[];
const button = (el: HTMLElement, name: string) => {
  const found = buttons(el).find((b) => (b.getAttribute("aria-label") ?? b.textContent?.trim()) === name);
  assert.ok(found, `no button named ${name}; have ${buttons(el).map((b) => b.textContent?.trim()).join(", ")}`);
  return found;
};
const textarea = (el: HTMLElement, label = "Message") => {
  const found = el.querySelector(`textarea[aria-label="${label}"]`) as HTMLTextAreaElement | null;
  assert.ok(found, `no textarea ${label}`);
  return found;
};
function type(box: HTMLTextAreaElement | HTMLInputElement, text: string) {
  box.value = text;
  box.dispatchEvent(new (globalThis as any).InputEvent("input", { bubbles: true }));
}
function press(box: HTMLElement, key: string, shiftKey = false) {
  const event = new (globalThis as any).KeyboardEvent("keydown", { key, shiftKey, bubbles: true, cancelable: true });
  box.dispatchEvent(event);
  return event as KeyboardEvent;
}

afterEach(() => {
  while (mounted.length) mounted.pop()?.();
  doc.body.innerHTML = "";
});

describe("the view", () => {
  it("says hello with its viewId, then renders the snapshot addressed to it", async () => {
    const model = new FakeModel();
    const view = mount(model);
    assert.equal(model.sentOf("hello").length, 1);
    assert.ok(view.viewId.length >= 16);
    await idle(); // the first render's effects run
    assert.match(view.el.textContent ?? "", /Connecting/);

    model.kernel({ kind: "snapshot", viewId: "another-view", messages: [{ id: "x", role: "user", content: "not mine" }], state: {}, events: [] });
    model.kernel({ kind: "snapshot", viewId: view.viewId, messages: [{ id: "u1", role: "user", content: "Hello there" }], state: {}, events: [] });
    await until(() => /Hello there/.test(view.el.textContent ?? ""), "its snapshot shown");
    assert.doesNotMatch(view.el.textContent ?? "", /not mine/);
  });

  it("shows message text as text, never as HTML", async () => {
    const { el } = await connected([{ id: "a1", role: "assistant", content: '<img src=x onerror="alert(1)"><b>bold</b>' }]);
    assert.equal(el.querySelector("img"), null);
    assert.equal(el.querySelector(".agui-transcript b"), null);
    assert.match(el.textContent ?? "", /<b>bold<\/b>/);
  });

  it("streams an answer into its row", async () => {
    const { model, el } = await connected([{ id: "u1", role: "user", content: "hi" }]);
    model.set("status", "running");
    model.kernel({ kind: "events", events: [ev.runStarted()] });
    await until(() => /Thinking/.test(el.querySelector(".agui-status")?.textContent ?? ""), "Thinking…");

    model.kernel({ kind: "events", events: [ev.textStart("a1"), ev.text("a1", "Hel")] });
    await until(() => /Hel/.test(el.querySelector(".agui-row-assistant")?.textContent ?? ""), "the first token in its row");
    const row = el.querySelector(".agui-row-assistant") as HTMLElement;
    assert.equal(row.querySelector(".agui-text")?.getAttribute("data-streaming"), "true", "a streaming message shows a caret");
    assert.equal(el.querySelector(".agui-status")?.textContent, "", "no Thinking… after the first token");

    model.kernel({ kind: "events", events: [ev.text("a1", "lo!"), ev.textEnd("a1"), ev.runFinished()] });
    model.set("status", "idle");
    const last = () => el.querySelector(".agui-row-assistant");
    await until(() => /Hello!/.test(last()?.textContent ?? "") && last()?.querySelector(".agui-text")?.getAttribute("data-streaming") === null, "the whole answer, no caret");
    assert.equal(el.querySelector(".agui-row-assistant"), row, "the row is updated in place");
  });

  it("says Thinking… as soon as the run is reported, before its RUN_STARTED arrives", async () => {
    const { model, el } = await connected([{ id: "a0", role: "assistant", content: "earlier answer" }]);
    model.kernel({ kind: "events", events: [ev.runStarted("r0"), ev.textStart("a0"), ev.textEnd("a0"), ev.runFinished("r0")] });
    model.set("status", "running");
    await until(() => /Thinking/.test(el.querySelector(".agui-status")?.textContent ?? ""), "Thinking…");
  });

  it("marks a message a Stop cut short", async () => {
    const { el } = await connected([{ id: "a1", role: "assistant", content: "half an ans", metadata: { agui_widget: { stopped: true } } }]);
    assert.match(el.querySelector(".agui-row-assistant")?.textContent ?? "", /stopped/);
  });

  it("shows a tool call with its streamed arguments and its result", async () => {
    const { model, el } = await connected();
    model.kernel({ kind: "events", events: [ev.runStarted(), ev.toolStart("c1", "get_weather", "a1"), ev.toolArgs("c1", '{"city":"Pa')] });
    await until(() => el.querySelector(".agui-tool") !== null, "the call's card");
    const card = el.querySelector(".agui-tool") as HTMLElement;
    assert.match(card.textContent ?? "", /get_weather/);
    assert.match(card.textContent ?? "", /\{"city":"Pa/);
    assert.equal(card.getAttribute("data-state"), "streaming");

    model.kernel({ kind: "events", events: [ev.toolArgs("c1", 'ris"}'), ev.toolEnd("c1"), ev.toolResult("t1", "c1", "18 degrees")] });
    await until(() => card.getAttribute("data-state") === "done", "the card done");
    assert.match(card.textContent ?? "", /"city": "Paris"/);
    assert.match(card.textContent ?? "", /18 degrees/);
    assert.equal(el.querySelectorAll(".agui-tool").length, 1, "the result is shown in the call's card, not on its own");
  });

  it("shows reasoning dimmed, the run's error, queued messages and notices", async () => {
    const { model, el } = await connected();
    model.kernel({
      kind: "events",
      events: [
        ev.runStarted(),
        { type: "REASONING_MESSAGE_START", messageId: "r1", role: "reasoning" },
        { type: "REASONING_MESSAGE_CONTENT", messageId: "r1", delta: "pondering" },
        { type: "REASONING_MESSAGE_END", messageId: "r1" },
        ev.runError("The model is not reachable"),
      ],
    });
    model.set("queued", [{ id: "q1", text: "and then?" }]);
    model.kernel({ kind: "notice", level: "warning", text: "That request was refused" });
    await until(() => el.querySelector(".agui-notice") !== null && el.querySelector(".agui-row-queued") !== null, "the notice and the queued message");
    assert.match(el.querySelector(".agui-reasoning")?.textContent ?? "", /pondering/);
    assert.match(el.querySelector('[role="alert"].agui-error')?.textContent ?? "", /The model is not reachable/);
    assert.match(el.querySelector(".agui-row-queued")?.textContent ?? "", /and then\?.*queued/);
    assert.match(el.querySelector(".agui-notice")?.textContent ?? "", /refused/);
    button(el, "Dismiss notice").click();
    await until(() => el.querySelector(".agui-notice") === null, "the notice dismissed");
  });
});

describe("the input", () => {
  it("sends on Enter, keeps Shift+Enter for a new line, and has one Send button", async () => {
    const { model, el } = await connected();
    const box = textarea(el);
    type(box, "first line");
    box.setSelectionRange(box.value.length, box.value.length);
    press(box, "Enter", true);
    assert.equal(box.value, "first line\n", "Shift+Enter inserts the line break itself (JupyterLab cancels the browser's)");
    assert.equal(model.sentOf("send").length, 0);
    type(box, "first line");

    const enter = press(box, "Enter");
    assert.equal(enter.defaultPrevented, true);
    assert.deepEqual(model.sentOf("send"), [{ kind: "send", text: "first line" }]);
    await until(() => textarea(el).value === "", "the box emptied");

    type(textarea(el), "by button");
    await idle(); // the typed text drawn
    button(el, "Send").click();
    assert.deepEqual(model.sentOf("send").at(-1), { kind: "send", text: "by button" });
    press(textarea(el), "Enter");
    assert.equal(model.sentOf("send").length, 2, "an empty box sends nothing");
  });

  it("turns the button into Stop while a run is active, and still queues what is typed", async () => {
    const { model, el } = await connected();
    model.set("status", "running");
    const named = (name: string) => buttons(el).some((b) => (b.getAttribute("aria-label") ?? b.textContent?.trim()) === name);
    await until(() => named("Stop"), "Stop offered");
    assert.ok(!buttons(el).some((b) => b.textContent === "Send"));
    button(el, "Stop").click();
    assert.equal(model.sentOf("stop").length, 1);

    type(textarea(el), "one more thing");
    press(textarea(el), "Enter");
    assert.deepEqual(model.sentOf("send"), [{ kind: "send", text: "one more thing" }]);

    model.set("status", "waiting");
    await until(() => /Waiting for you/.test(el.querySelector(".agui-status")?.textContent ?? ""), "Waiting for you");
    button(el, "Stop");

    model.set("status", "idle");
    await until(() => named("Send"), "Send offered again");
  });
});

describe("pending requests", () => {
  const confirmTool = { name: "delete_file", description: "Deletes a file", parameters: {}, ui: "confirm", handler: null, approve: false };

  it("asks for approval with the arguments shown, and the card goes when the entry goes", async () => {
    const model = new FakeModel({ frontend_tools: [confirmTool] });
    const { el } = await connected([], model);
    model.set("pending", [{ kind: "tool", toolCallId: "c1", name: "delete_file", args: { path: "/tmp/x" }, argsText: '{"path":"/tmp/x"}' }]);
    model.set("status", "waiting");
    await until(() => el.querySelector(".agui-pending") !== null, "the request shown");
    assert.match(el.querySelector(".agui-pending")?.textContent ?? "", /\/tmp\/x/);
    button(el, "Approve").click();
    assert.deepEqual(model.sentOf("tool_result"), [{ kind: "tool_result", toolCallId: "c1", result: { approved: true } }]);
    await until(() => button(el, "Approve").disabled, "answered once");

    model.set("pending", []);
    await until(() => el.querySelector(".agui-pending") === null, "the card gone with its entry");
  });

  it("sends Deny as approved: false", async () => {
    const model = new FakeModel({ frontend_tools: [confirmTool] });
    const { el } = await connected([], model);
    model.set("pending", [{ kind: "tool", toolCallId: "c2", name: "delete_file", args: {}, argsText: "{}" }]);
    await until(() => el.querySelector(".agui-pending") !== null, "the request shown");
    button(el, "Deny").click();
    assert.deepEqual(model.sentOf("tool_result")[0]?.result, { approved: false });
  });

  it("asks a question, with choice buttons or a text box", async () => {
    const model = new FakeModel({ frontend_tools: [{ name: "ask_user", description: "", parameters: {}, ui: "ask", handler: null, approve: false }] });
    const { el } = await connected([], model);
    model.set("pending", [{ kind: "tool", toolCallId: "c1", name: "ask_user", args: { question: "Which colour?", choices: ["red", "blue"] }, argsText: "" }]);
    await until(() => /Which colour\?/.test(el.textContent ?? ""), "the question asked");
    button(el, "blue").click();
    assert.deepEqual(model.sentOf("tool_result")[0], { kind: "tool_result", toolCallId: "c1", result: { answer: "blue" } });

    model.set("pending", [{ kind: "tool", toolCallId: "c2", name: "ask_user", args: { question: "Your name?" }, argsText: "" }]);
    await until(() => el.querySelector('input[aria-label="Your answer"]') !== null, "the text box");
    const input = el.querySelector('input[aria-label="Your answer"]') as HTMLInputElement;
    type(input, "Ada");
    await idle(); // the typed answer drawn
    button(el, "Answer").click();
    assert.deepEqual(model.sentOf("tool_result")[1], { kind: "tool_result", toolCallId: "c2", result: { answer: "Ada" } });
  });

  it("takes a JSON or text answer for a manual tool", async () => {
    const model = new FakeModel({ frontend_tools: [{ name: "lookup", description: "", parameters: {}, ui: "manual", handler: null, approve: false }] });
    const { el } = await connected([], model);
    model.set("pending", [
      { kind: "tool", toolCallId: "c1", name: "lookup", args: { q: 1 }, argsText: '{"q":1}' },
      { kind: "tool", toolCallId: "c2", name: "unknown_tool", args: {}, argsText: "{}" },
    ]);
    await until(() => el.querySelector('textarea[aria-label="Answer for unknown_tool"]') !== null, "both answer boxes");
    type(textarea(el, "Answer for lookup"), '{"rows": 3}');
    const second = textarea(el, "Answer for unknown_tool");
    type(second, "just");
    second.setSelectionRange(4, 4);
    press(second, "Enter");
    assert.equal(second.value, "just\n", "Enter is a new line in an answer box");
    type(second, "just text");
    await idle(); // the typed answers drawn
    buttons(el).find((b) => b.textContent === "Submit")?.click();
    second.dispatchEvent(new (globalThis as any).KeyboardEvent("keydown", { key: "Enter", ctrlKey: true, bubbles: true, cancelable: true }));
    assert.deepEqual(
      model.sentOf("tool_result").map((m) => m.result),
      [{ rows: 3 }, "just text"],
    );
  });

  it("resumes an interrupt with approved true or false", async () => {
    const model = new FakeModel();
    const { el } = await connected([], model);
    const interrupt = { kind: "interrupt", interruptId: "i1", reason: "approval", message: "Send the email?", toolCallId: "c9", name: "send_email", args: { to: "a@b.c" }, responseSchema: null };
    model.set("pending", [interrupt]);
    await until(() => /Send the email\?/.test(el.textContent ?? ""), "the interrupt asked");
    assert.match(el.textContent ?? "", /send_email/);
    assert.match(el.textContent ?? "", /a@b\.c/);
    button(el, "Approve").click();
    assert.deepEqual(model.sentOf("resume"), [{ kind: "resume", interruptId: "i1", status: "resolved", payload: { approved: true } }]);

    model.set("pending", [{ ...interrupt, interruptId: "i2" }]);
    await until(() => !button(el, "Deny").disabled, "the next interrupt asked");
    button(el, "Deny").click();
    assert.deepEqual(model.sentOf("resume")[1], { kind: "resume", interruptId: "i2", status: "resolved", payload: { approved: false } });
  });
});

describe("frontend tool handlers", () => {
  const handlerTool = (body: string) => ({ name: "paint", description: "", parameters: {}, ui: "handler", handler: body, approve: false });
  const pendingPaint = (id: string, args: unknown = { color: "tomato" }) => ({ kind: "tool", toolCallId: id, name: "paint", args, argsText: JSON.stringify(args), claimedBy: null, kernel: null });

  it("runs once per tool call across the views of one chat, and sends its result", async () => {
    (globalThis as Record<string, unknown>).__paintRuns = 0;
    const model = new FakeModel({
      frontend_tools: [handlerTool("globalThis.__paintRuns++; ctx.setAccent(args.color); ctx.el.textContent = 'painted'; return { painted: args.color };")],
      saved_output_id: "agui-transcript-paint",
    });
    // anywidget gives each view a wrapper of its own around the model, as here.
    const one = await connected([], new Proxy(model, {}));
    const two = mount(new Proxy(model, {}));
    model.kernel({ kind: "snapshot", viewId: two.viewId, messages: [], state: {}, events: [] });
    model.kernel({ kind: "events", events: [ev.runStarted(), ev.toolStart("c1", "paint", "a1"), ev.toolEnd("c1"), ev.runFinished()] });
    model.set("pending", [pendingPaint("c1")]);
    await untilSent(model, "tool_result");
    model.set("pending", [pendingPaint("c1")]); // the same entry again must not run it again
    await idle(); // the entry handled again, if it were

    assert.equal((globalThis as Record<string, unknown>).__paintRuns, 1);
    assert.deepEqual(model.sentOf("tool_result"), [{ kind: "tool_result", toolCallId: "c1", result: { painted: "tomato" } }]);
    for (const view of [one, two]) {
      const root = view.el.querySelector(".agui-widget") as HTMLElement;
      assert.equal(root.style.getPropertyValue("--agui-accent"), "tomato", "setAccent reaches every view");
    }
    assert.match(one.el.querySelector(".agui-tool-output")?.textContent ?? "", /painted/, "ctx.el is shown with the call");
    for (const view of [one, two]) assert.doesNotMatch(view.el.textContent ?? "", /another tab/, "one chat's views are one page");
  });

  it("answers {error} when the handler throws", async () => {
    const model = new FakeModel({ frontend_tools: [handlerTool("throw new Error('no canvas');")] });
    await connected([], model);
    model.set("pending", [pendingPaint("c1")]);
    await untilSent(model, "tool_result");
    assert.deepEqual(model.sentOf("tool_result"), [{ kind: "tool_result", toolCallId: "c1", result: { error: "Error: no canvas" } }]);
  });

  it("leaves a call another page claimed to that page, and runs it here on a take-over", async () => {
    (globalThis as Record<string, unknown>).__paintRuns = 0;
    const model = new FakeModel({ frontend_tools: [handlerTool("globalThis.__paintRuns++; return 'ok';")] });
    model.grantsClaims = false;
    const view = await connected([], model);
    model.set("pending", [{ ...pendingPaint("c9"), claimedBy: "a-view-in-another-tab" }]);
    await idle(); // the entry handled
    assert.equal((globalThis as Record<string, unknown>).__paintRuns, 0, "the other tab runs it");
    assert.deepEqual(model.sentOf("claim"), []);
    assert.deepEqual(model.sentOf("tool_result"), []);
    model.grantsClaims = true;
    model.send({ kind: "claim", toolCallId: "c9", viewId: view.viewId, takeOver: true });
    await untilSent(model, "tool_result");
    assert.equal((globalThis as Record<string, unknown>).__paintRuns, 1);
    assert.deepEqual(model.sentOf("tool_result").map((m) => m.toolCallId), ["c9"]);
  });

  it("claims a call before running it, and runs it only once the kernel says so", async () => {
    (globalThis as Record<string, unknown>).__paintRuns = 0;
    const model = new FakeModel({ frontend_tools: [handlerTool("globalThis.__paintRuns++; return 'ok';")] });
    model.grantsClaims = false;
    const view = await connected([], model);
    model.set("pending", [pendingPaint("c3")]);
    await untilSent(model, "claim");
    assert.deepEqual(model.sentOf("claim"), [{ kind: "claim", toolCallId: "c3", viewId: view.viewId }]);
    assert.equal((globalThis as Record<string, unknown>).__paintRuns, 0, "not before the claim is granted");
    model.grant(model.sentOf("claim")[0] as Record<string, unknown>);
    await untilSent(model, "tool_result");
    assert.equal((globalThis as Record<string, unknown>).__paintRuns, 1);
  });

  it("passes the handover to the next view when the first one closes", async () => {
    (globalThis as Record<string, unknown>).__paintRuns = 0;
    const model = new FakeModel({ frontend_tools: [handlerTool("globalThis.__paintRuns++; return 'ok';")] });
    const first = await connected([], model);
    await connected([], model);
    first.cleanup();
    model.set("pending", [pendingPaint("c7")]);
    await untilSent(model, "tool_result");
    assert.equal((globalThis as Record<string, unknown>).__paintRuns, 1);
    assert.deepEqual(model.sentOf("tool_result").map((m) => m.toolCallId), ["c7"]);
  });
});

describe("cleanup", () => {
  it("removes the view and every listener it put on the model", async () => {
    const model = new FakeModel();
    const view = await connected([{ id: "u", role: "user", content: "x" }], model);
    assert.ok(model.listenerCount() > 0);
    view.cleanup();
    mounted.pop();
    assert.equal(model.listenerCount(), 0);
    assert.equal(view.el.querySelector(".agui-widget"), null);
  });
});
