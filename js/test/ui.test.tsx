/** The chat's controls: message actions, clear, the error banner, tool card states, forms,
 * the state panel and the event inspector. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeModel, idle, until, untilCount, untilSent } from "./dom";
import { ev } from "./helpers";
import { button, connected, maybeButton, press, textbox, type } from "./mount";
import { EVENT_LOG_LIMIT } from "../src/mirror/mirror";
import { RENDERED_ROWS } from "../src/view/EventInspector";
import { lastTurn } from "../src/view/MessageList";
import { choiceLabel, fieldsOf, formResult, initialValues } from "../src/logic/schema";
import { editText, parseEdit, pointerToken } from "../src/view/StatePanel";

const win = (globalThis as unknown as { window: Window & { Event: typeof Event } }).window;
const copied: string[] = [];
Object.defineProperty(win.navigator, "clipboard", {
  configurable: true,
  value: { writeText: async (text: string) => void copied.push(text) },
});

const conversation = [
  { id: "u1", role: "user", content: "first question" },
  { id: "a1", role: "assistant", content: "first **answer**" },
  { id: "u2", role: "user", content: "second question" },
  { id: "a2", role: "assistant", content: "Second answer with `code`:\n\n```python\nprint('hi')\n```\n" },
];

const rowOf = (el: HTMLElement, text: string) =>
  [...el.querySelectorAll(".agui-row")].find((r) => r.textContent?.includes(text)) as HTMLElement;

describe("message actions", () => {
  it("finds the last user message and the answer after it", () => {
    assert.deepEqual(lastTurn(conversation as never), { user: "u2", answer: "a2" });
    assert.deepEqual(lastTurn(conversation.slice(0, 3) as never), { user: "u2", answer: null });
    assert.deepEqual(lastTurn([conversation[1]] as never), { user: null, answer: null });
  });

  it("regenerates the last answer, only when the chat is idle", async () => {
    const { model, el } = await connected(conversation);
    assert.equal(maybeButton(rowOf(el, "first **answer**") ?? rowOf(el, "first answer"), "Regenerate"), null, "not on an earlier answer");
    button(el, "Regenerate").click();
    assert.deepEqual(model.sentOf("regenerate"), [{ kind: "regenerate" }]);
    model.set("status", "running");
    await until(() => maybeButton(el, "Regenerate") === null, "not while a run is active");
    model.set("status", "error");
    await until(() => maybeButton(el, "Regenerate") !== null, "Regenerate again once the run failed");
  });

  it("edits the last user message and sends it again; Escape cancels", async () => {
    const { model, el } = await connected(conversation);
    assert.equal(el.querySelectorAll('button[aria-label="Edit message"]').length, 2, "every user message");
    const editLast = () => button(el.querySelector('[data-row="u2"]') as HTMLElement, "Edit message");
    const editBox = () => el.querySelector('textarea[aria-label="Edited message"]');
    editLast().click();
    await until(() => editBox() !== null, "the edit box");
    const box = textbox(el, "Edited message") as HTMLTextAreaElement;
    assert.equal(box.value, "second question");
    press(box, "Escape");
    await until(() => editBox() === null, "the edit cancelled");
    assert.equal(model.sentOf("edit").length, 0);

    editLast().click();
    await until(() => editBox() !== null, "the edit box again");
    const again = textbox(el, "Edited message") as HTMLTextAreaElement;
    again.value = "second question, reworded";
    press(again, "Enter");
    assert.deepEqual(model.sentOf("edit"), [{ kind: "edit", messageId: "u2", text: "second question, reworded" }]);
    await until(() => editBox() === null, "the edit box closed once sent");

    model.set("status", "running");
    await until(() => maybeButton(el, "Edit message") === null, "no editing while a run is active");
  });

  it("copies a message as its Markdown, and a code block as its code", async () => {
    const { el } = await connected(conversation);
    copied.length = 0;
    const row = rowOf(el, "Second answer");
    button(row, "Copy message").click();
    await until(() => /Copied/.test(row.querySelector(".agui-action-note")?.textContent ?? ""), "the message said copied");
    assert.deepEqual(copied, [conversation[3]?.content]);
    (row.querySelector('button[aria-label="Copy code"]') as HTMLButtonElement).click();
    await until(() => copied.length === 2, "the code copied");
    assert.equal(copied[1], "print('hi')\n");
    button(rowOf(el, "second question"), "Copy message").click();
    await until(() => copied.length === 3, "the question copied");
    assert.equal(copied[2], "second question");
  });

  it("keeps the bubbles' text free of the actions' labels", async () => {
    const { el } = await connected(conversation);
    const bubbles = [...el.querySelectorAll(".agui-bubble-user")].map((b) => b.textContent);
    assert.deepEqual(bubbles, ["first question", "second question"]);
    const texts = [...el.querySelectorAll(".agui-bubble-assistant .agui-text")];
    assert.equal(texts[0]?.textContent?.trim(), "first answer");
    assert.equal(texts[0]?.getAttribute("data-source-length"), String("first **answer**".length), "the source's length, for tests");
  });
});

describe("clear", () => {
  it("asks before clearing, and Cancel keeps everything", async () => {
    const { model, el } = await connected(conversation);
    button(el, "Clear conversation").click();
    await until(() => el.querySelector(".agui-confirm") !== null, "the confirmation");
    assert.match(el.querySelector(".agui-confirm")?.textContent ?? "", /Clear the whole conversation\?/);
    button(el, "Cancel").click();
    await until(() => el.querySelector(".agui-confirm") === null, "the confirmation gone");
    assert.equal(model.sentOf("clear").length, 0);
    button(el, "Clear conversation").click();
    await until(() => maybeButton(el, "Yes, clear") !== null, "the confirmation again");
    button(el, "Yes, clear").click();
    assert.deepEqual(model.sentOf("clear"), [{ kind: "clear" }]);
    model.kernel({ kind: "messages", start: 0, messages: [] });
    await until(() => /No messages yet/.test(el.textContent ?? ""), "the empty chat");
    assert.equal(button(el, "Clear conversation").disabled, true, "nothing to clear");
  });
});

describe("the error banner", () => {
  it("shows RUN_ERROR's message with Retry, which regenerates", async () => {
    const { model, el } = await connected([{ id: "u1", role: "user", content: "hi" }]);
    model.set("status", "running");
    model.kernel({ kind: "events", events: [ev.runStarted(), ev.runError("The model is not reachable: set OPENAI_API_KEY")] });
    await until(() => el.querySelector(".agui-transcript [role=alert]") !== null, "the error banner");
    const banner = el.querySelector(".agui-transcript [role=alert]") as HTMLElement;
    assert.match(banner.textContent ?? "", /set OPENAI_API_KEY/);
    assert.equal(el.querySelectorAll(".agui-transcript [role=alert]").length, 1);
    assert.equal(maybeButton(banner, "Retry"), null, "no Retry while the kernel still says running");
    model.set("status", "error");
    model.set("error", "The model is not reachable: set OPENAI_API_KEY");
    await until(() => maybeButton(el, "Retry") !== null, "Retry once the kernel says error");
    button(el, "Retry").click();
    assert.deepEqual(model.sentOf("regenerate"), [{ kind: "regenerate" }]);
  });

  it("stays away when a served app's guard refused the message (the message says Not sent)", async () => {
    const { model, el } = await connected([{ id: "u1", role: "user", content: "my password is 1234" }]);
    model.set("status", "running");
    model.kernel({
      kind: "events",
      events: [ev.runStarted(), { type: "RUN_ERROR", message: "Please don't paste passwords.", code: "input_refused" }],
    });
    await idle(); // the refused run drawn (the kernel marks the message Not sent: not part of this test)
    model.set("status", "idle");
    await idle(); // the idle status drawn
    assert.equal(el.querySelector(".agui-transcript [role=alert]"), null);
    model.kernel({ kind: "events", events: [ev.runStarted("r2"), { type: "RUN_ERROR", message: "The model is down.", code: "network" }] });
    await until(() => /The model is down/.test(el.querySelector(".agui-transcript [role=alert]")?.textContent ?? ""), "the next error's banner");
  });

  it("comes back from the error trait after a reload", async () => {
    const model = new FakeModel({ status: "error", error: "It broke" });
    const { el } = await connected([{ id: "u1", role: "user", content: "hi" }], model);
    assert.match(el.querySelector(".agui-transcript [role=alert]")?.textContent ?? "", /It broke/);
    button(el, "Retry");
  });
});

describe("progress", () => {
  it("shows animated dots before the first token, then the steps of the run", async () => {
    const { model, el } = await connected([{ id: "u1", role: "user", content: "plan a trip" }]);
    model.set("status", "running");
    model.kernel({ kind: "events", events: [ev.runStarted(), { type: "STEP_STARTED", stepName: "search" }] });
    await until(() => el.querySelector(".agui-progress") !== null, "the run's progress");
    assert.ok(el.querySelector(".agui-status .agui-dots"), "dots while waiting for the first token");
    const progress = el.querySelector(".agui-progress") as HTMLElement;
    assert.equal(progress.querySelector(".agui-step-current")?.textContent?.trim(), "search");
    model.kernel({ kind: "events", events: [{ type: "STEP_FINISHED", stepName: "search" }, { type: "STEP_STARTED", stepName: "book" }, ev.textStart("a1"), ev.text("a1", "On it")] });
    await until(() => el.querySelector(".agui-step-current")?.textContent?.trim() === "book", "the next step");
    assert.equal(el.querySelector(".agui-status .agui-dots"), null);
    assert.deepEqual([...el.querySelectorAll(".agui-step-done")].map((s) => s.textContent?.replace("✓", "").trim()), ["search"]);
    assert.equal(el.querySelector(".agui-step-current")?.textContent?.trim(), "book");
    model.kernel({ kind: "events", events: [ev.textEnd("a1"), ev.runFinished()] });
    model.set("status", "idle");
    await until(() => el.querySelector(".agui-progress") === null, "gone when the run ends");
  });
});

describe("tool call cards", () => {
  const badge = (el: HTMLElement) => el.querySelector(".agui-tool .agui-badge")?.textContent;
  const state = (el: HTMLElement) => el.querySelector(".agui-tool")?.getAttribute("data-state");

  it("go streaming, running, done", async () => {
    const { model, el } = await connected();
    model.kernel({ kind: "events", events: [ev.runStarted(), ev.toolStart("c1", "search", "a1"), ev.toolArgs("c1", '{"q": "pa')] });
    await until(() => state(el) === "streaming", "the card streaming");
    assert.match(el.querySelector(".agui-tool pre")?.textContent ?? "", /\{"q": "pa/);
    model.kernel({ kind: "events", events: [ev.toolArgs("c1", 'ris"}'), ev.toolEnd("c1")] });
    await until(() => state(el) === "running", "the card running");
    assert.equal(el.querySelector(".agui-tool pre")?.textContent, '{\n  "q": "paris"\n}', "pretty JSON once complete");
    model.kernel({ kind: "events", events: [ev.toolResult("t1", "c1", '{"hits": 3}')] });
    await until(() => state(el) === "done", "the card done");
    assert.equal(badge(el), "done");
  });

  it("wait for the user while pending, and show errors and cancellations", async () => {
    const model = new FakeModel({ frontend_tools: [{ name: "pick", description: "", parameters: {}, ui: "ask", handler: null, approve: false }] });
    const { el } = await connected([], model);
    model.kernel({ kind: "events", events: [ev.runStarted(), ev.toolStart("c1", "pick", "a1"), ev.toolEnd("c1"), ev.runFinished()] });
    model.set("pending", [{ kind: "tool", toolCallId: "c1", name: "pick", args: {}, argsText: "{}" }]);
    await until(() => state(el) === "waiting", "the card waiting for the user");
    model.set("pending", []);
    model.kernel({ kind: "messages", start: 1, messages: [{ id: "t1", role: "tool", toolCallId: "c1", content: "The tool call was cancelled.", error: "cancelled" }] });
    await until(() => state(el) === "stopped", "the card stopped");
    assert.equal(badge(el), "stopped");
    model.kernel({ kind: "messages", start: 1, messages: [{ id: "t1", role: "tool", toolCallId: "c1", content: "", error: "disk full" }] });
    await until(() => badge(el) === "failed", "the card failed");
    assert.match(el.querySelector(".agui-tool")?.textContent ?? "", /disk full/);
  });

  it("fold a long result, with the whole of it in the element", async () => {
    const { model, el } = await connected();
    const long = JSON.stringify({ rows: Array.from({ length: 60 }, (_, i) => ({ i })) });
    model.kernel({ kind: "events", events: [ev.runStarted(), ev.toolStart("c1", "query", "a1"), ev.toolArgs("c1", "{}"), ev.toolEnd("c1"), ev.toolResult("t1", "c1", long), ev.runFinished()] });
    const resultShown = () => [...el.querySelectorAll(".agui-tool-section summary")].some((s) => s.textContent === "Result");
    await until(resultShown, "the call's result");
    const result = [...el.querySelectorAll(".agui-tool-section")].find((s) => s.querySelector("summary")?.textContent === "Result") as HTMLElement;
    const pre = result.querySelector("pre") as HTMLElement;
    assert.ok(pre.classList.contains("agui-folded"));
    assert.deepEqual(JSON.parse(pre.textContent ?? ""), JSON.parse(long));
    const toggle = result.querySelector(".agui-fold") as HTMLButtonElement;
    assert.equal(toggle.getAttribute("aria-expanded"), "false");
    toggle.click();
    await until(() => !pre.classList.contains("agui-folded"), "the result unfolded");
    assert.equal(toggle.getAttribute("aria-expanded"), "true");
  });
});

describe("the schema form", () => {
  const schema = {
    type: "object",
    required: ["city", "nights", "class"],
    properties: {
      city: { type: "string", title: "City", description: "Where to", minLength: 2 },
      nights: { type: "integer", minimum: 1, maximum: 30, default: 2 },
      budget: { type: "number" },
      class: { enum: ["economy", "business"] },
      breakfast: { type: "boolean", default: true },
      note: { anyOf: [{ type: "string" }, { type: "null" }], default: null },
      email: { type: "string", format: "email" },
      extras: { type: "array", items: { type: "string" } },
    },
  };

  it("reads fields, kinds, required marks and defaults from a schema", () => {
    const fields = fieldsOf(schema);
    assert.deepEqual(
      fields.map((f) => [f.name, f.kind, f.required]),
      [
        ["city", "string", true],
        ["nights", "integer", true],
        ["budget", "number", false],
        ["class", "enum", true],
        ["breakfast", "boolean", false],
        ["note", "string", false],
        ["email", "string", false],
        ["extras", "json", false],
      ],
    );
    assert.equal(fields[0]?.label, "City");
    assert.equal(fields[5]?.nullable, true);
    const values = initialValues(fields, { city: "Paris" });
    assert.deepEqual(values, { city: "Paris", nights: "2", budget: "", class: "", breakfast: true, note: "", email: "", extras: "" });
  });

  it("checks values and builds the result object", () => {
    const fields = fieldsOf(schema);
    const bad = formResult(fields, { ...initialValues(fields), city: "P", nights: "2.5", budget: "lots", email: "nope", extras: "[1," });
    assert.equal(bad.ok, false);
    if (!bad.ok) {
      assert.deepEqual(Object.keys(bad.errors).sort(), ["budget", "city", "class", "email", "extras", "nights"]);
      assert.match(bad.errors.nights ?? "", /whole number/);
      assert.match(bad.errors.class ?? "", /Required/);
    }
    const good = formResult(fields, { ...initialValues(fields), city: "Paris", nights: "3", class: "1", extras: '["wifi"]', budget: "99.5" });
    assert.deepEqual(good, { ok: true, value: { city: "Paris", nights: 3, budget: 99.5, class: "business", breakfast: true, extras: ["wifi"] } });
    assert.equal(choiceLabel({ a: 1 }), '{"a":1}');
  });

  it("renders a form tool, shows errors in place, and sends the form's object", async () => {
    const model = new FakeModel({ frontend_tools: [{ name: "book", description: "Book a trip", parameters: schema, ui: "form", handler: null, approve: false }] });
    const { el } = await connected([], model);
    model.set("pending", [{ kind: "tool", toolCallId: "c1", name: "book", args: { city: "Paris" }, argsText: '{"city":"Paris"}' }]);
    await until(() => el.querySelector('form[aria-label="Form for book"]') !== null, "the form");
    const form = el.querySelector('form[aria-label="Form for book"]') as HTMLFormElement;
    const city = form.querySelector("label[for]") as HTMLLabelElement;
    assert.match(city.textContent ?? "", /City \*/, "a required mark");
    assert.equal((el.querySelector(`#${city.htmlFor}`) as HTMLInputElement).value, "Paris", "the agent's arguments prefill the form");
    button(form, "Submit").click();
    await until(() => /Required\./.test(form.textContent ?? ""), "the errors shown in place");
    assert.equal(model.sentOf("tool_result").length, 0, "an invalid form is not sent");
    const select = form.querySelector("select") as HTMLSelectElement;
    select.value = "0";
    select.dispatchEvent(new win.Event("change", { bubbles: true }));
    await idle(); // the choice drawn
    button(form, "Submit").click();
    await untilSent(model, "tool_result");
    assert.deepEqual(model.sentOf("tool_result"), [{ kind: "tool_result", toolCallId: "c1", result: { city: "Paris", nights: 2, class: "economy", breakfast: true } }]);
  });

  it("takes the schema from args.schema when the agent passes one", async () => {
    const model = new FakeModel({ frontend_tools: [{ name: "ask_form", description: "", parameters: { type: "object", properties: { schema: { type: "object" } } }, ui: "form", handler: null, approve: false }] });
    const { el } = await connected([], model);
    const args = { title: "Your details", schema: { type: "object", properties: { age: { type: "integer" } } } };
    model.set("pending", [{ kind: "tool", toolCallId: "c1", name: "ask_form", args, argsText: JSON.stringify(args) }]);
    await until(() => el.querySelector('input[type="number"]') !== null, "the form");
    assert.match(el.querySelector(".agui-card-title")?.textContent ?? "", /Your details/);
    const input = el.querySelector('input[type="number"]') as HTMLInputElement;
    type(input, "42");
    await idle(); // the typed value drawn
    button(el, "Submit").click();
    assert.deepEqual(model.sentOf("tool_result")[0]?.result, { age: 42 });
  });

  it("asks an interrupt's response schema, answering with approved and the fields", async () => {
    const model = new FakeModel();
    const { el } = await connected([], model);
    const responseSchema = { type: "object", required: ["reason"], properties: { approved: { type: "boolean" }, reason: { type: "string" } } };
    model.set("pending", [{ kind: "interrupt", interruptId: "i1", reason: "approval", message: "Refund $40?", toolCallId: "c9", name: "refund", args: { amount: 40 }, responseSchema }]);
    await until(() => el.querySelector(".agui-field input") !== null, "the interrupt's field");
    assert.match(el.querySelector(".agui-card-args pre")?.textContent ?? "", /"amount": 40/);
    assert.equal(el.querySelectorAll(".agui-field").length, 1, "approved is answered by the buttons, not a field");
    type(el.querySelector(".agui-field input") as HTMLInputElement, "duplicate charge");
    await idle(); // the typed value drawn
    button(el, "Approve").click();
    await untilSent(model, "resume");
    assert.deepEqual(model.sentOf("resume"), [{ kind: "resume", interruptId: "i1", status: "resolved", payload: { reason: "duplicate charge", approved: true } }]);
  });

  it("denies an interrupt with a schema without `approved` by cancelling it", async () => {
    const model = new FakeModel();
    const { el } = await connected([], model);
    const responseSchema = { type: "object", properties: { note: { type: "string" } } };
    model.set("pending", [{ kind: "interrupt", interruptId: "i2", reason: "input", message: "Anything to add?", toolCallId: null, name: null, args: null, responseSchema }]);
    await until(() => maybeButton(el, "Deny") !== null, "the interrupt asked");
    button(el, "Deny").click();
    assert.deepEqual(model.sentOf("resume"), [{ kind: "resume", interruptId: "i2", status: "cancelled" }]);
  });
});

describe("the state panel", () => {
  const state = { city: "Paris", todos: [{ text: "buy milk", done: false }], "a/b~c": 1, long: "x".repeat(300) };

  it("helps: pointer tokens, edit text and parsing", () => {
    assert.equal(pointerToken("a/b~c"), "a~1b~0c");
    assert.equal(editText("plain"), "plain");
    assert.equal(editText(42), "42");
    assert.deepEqual(parseEdit('{"a": 1}'), { a: 1 });
    assert.equal(parseEdit("true"), true);
    assert.equal(parseEdit("hello there"), "hello there");
  });

  it("shows the state as a tree, live, and folds", async () => {
    const { model, el } = await connected([], new FakeModel(), state);
    assert.equal(button(el, "Show state").getAttribute("aria-pressed"), "false");
    button(el, "Show state").click();
    await until(() => el.querySelector('[aria-label="Shared state"]') !== null, "the state panel");
    assert.equal(button(el, "Show state").getAttribute("aria-pressed"), "true");
    const panel = el.querySelector('[aria-label="Shared state"]') as HTMLElement;
    assert.match(panel.textContent ?? "", /city.*"Paris"/);
    assert.match(panel.textContent ?? "", /buy milk/);
    assert.ok(!(panel.textContent ?? "").includes("x".repeat(300)), "a long string is cut");
    button(panel, "all 300 characters").click();
    await until(() => (panel.textContent ?? "").includes("x".repeat(300)), "the long string whole");
    button(panel, "Collapse todos [1 item]").click();
    await until(() => !(panel.textContent ?? "").includes("buy milk"), "todos folded");
    model.kernel({ kind: "events", events: [ev.runStarted(), { type: "STATE_DELTA", delta: [{ op: "replace", path: "/city", value: "Oslo" }] }] });
    await until(() => /"Oslo"/.test(panel.textContent ?? ""), "the state live");
  });

  it("edits a leaf: Enter sends a state_edit replace, JSON when it parses; Escape cancels", async () => {
    const { model, el } = await connected([], new FakeModel(), state);
    const editing = (path: string) => el.querySelector(`input[aria-label="New value for ${path}"], textarea[aria-label="New value for ${path}"]`) !== null;
    const active = () => (globalThis as any).document.activeElement?.getAttribute("aria-label");
    button(el, "Show state").click();
    await until(() => maybeButton(el, 'Edit todos/0/text: "buy milk"') !== null, "the state panel");
    button(el, 'Edit todos/0/text: "buy milk"').click();
    await until(() => editing("todos/0/text"), "the edit box");
    const box = textbox(el, "New value for todos/0/text");
    assert.equal(box.value, "buy milk");
    box.value = "true";
    press(box, "Enter");
    assert.deepEqual(model.sentOf("state_edit"), [{ kind: "state_edit", patch: [{ op: "replace", path: "/todos/0/text", value: true }] }]);
    await until(() => !editing("todos/0/text"), "the edit box closed");
    assert.equal(active(), 'Edit todos/0/text: "buy milk"', "the focus goes back to the value");

    button(el, 'Edit city: "Paris"').click();
    await until(() => editing("city"), "the edit box for city");
    const city = textbox(el, "New value for city");
    city.value = "New York";
    press(city, "Enter");
    assert.deepEqual(model.sentOf("state_edit")[1], { kind: "state_edit", patch: [{ op: "replace", path: "/city", value: "New York" }] });
    await until(() => !editing("city"), "the edit box for city closed");

    button(el, "Edit a/b~c: 1").click();
    await until(() => editing("a/b~c"), "the edit box for a/b~c");
    const odd = textbox(el, "New value for a/b~c");
    odd.value = "2";
    press(odd, "Enter");
    assert.deepEqual(model.sentOf("state_edit")[2], { kind: "state_edit", patch: [{ op: "replace", path: "/a~1b~0c", value: 2 }] });
    await until(() => !editing("a/b~c"), "the edit box for a/b~c closed");

    button(el, 'Edit city: "Paris"').click();
    await until(() => editing("city"), "the edit box for city again");
    const cancelled = textbox(el, "New value for city");
    cancelled.value = "Rome";
    press(cancelled, "Escape");
    await until(() => !editing("city"), "the edit cancelled");
    assert.equal(model.sentOf("state_edit").length, 3, "Escape sends nothing");

    // The kernel's patch comes back; the panel shows it.
    model.kernel({ kind: "state_patch", patch: [{ op: "replace", path: "/city", value: "New York" }] });
    await until(() => /"New York"/.test(el.querySelector('[aria-label="Shared state"]')?.textContent ?? ""), "the kernel's patch shown");
  });

  it("edits a state that is not an object at its root", async () => {
    const { model, el } = await connected([], new FakeModel(), "seven");
    button(el, "Show state").click();
    await until(() => maybeButton(el, 'Edit state: "seven"') !== null, "the state panel");
    button(el, 'Edit state: "seven"').click();
    await until(() => el.querySelector('[aria-label="New value for state"]') !== null, "the edit box");
    const box = textbox(el, "New value for state");
    box.value = "[1, 2]";
    press(box, "Enter");
    assert.deepEqual(model.sentOf("state_edit"), [{ kind: "state_edit", patch: [{ op: "replace", path: "", value: [1, 2] }] }]);
  });
});

describe("the event inspector", () => {
  it("shows the snapshot's events and live ones, with ids, payloads and a filter", async () => {
    const tail = [ev.runStarted("r0"), ev.textStart("m0"), ev.text("m0", "hello"), ev.textEnd("m0"), ev.runFinished("r0")];
    const { model, el } = await connected([{ id: "m0", role: "assistant", content: "hello" }], new FakeModel(), {}, tail);
    button(el, "Show events").click();
    await until(() => el.querySelector('[aria-label="Events"] .agui-event') !== null, "the Events panel with its rows");
    const panel = el.querySelector('[aria-label="Events"]') as HTMLElement;
    assert.equal(panel.querySelectorAll(".agui-event").length, 5);
    model.kernel({ kind: "events", events: [ev.runStarted("r1"), ev.toolStart("c1", "search", "a1"), ev.toolArgs("c1", '{"q":1}')] });
    await untilCount(panel, ".agui-event", 8, "the live events added");
    const rows = [...panel.querySelectorAll(".agui-event")];
    const start = rows[6] as HTMLElement;
    assert.match(start.textContent ?? "", /TOOL_CALL_START/);
    assert.match(start.querySelector(".agui-event-id")?.getAttribute("title") ?? "", /tool call c1/);
    assert.match(start.textContent ?? "", /search/);
    const details = start.querySelector("details") as HTMLDetailsElement;
    details.open = true;
    details.dispatchEvent(new win.Event("toggle"));
    await until(() => start.querySelector("pre") !== null, "the event's payload");
    assert.deepEqual(JSON.parse(start.querySelector("pre")?.textContent ?? ""), { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "search", parentMessageId: "a1" });

    const filter = panel.querySelector('select[aria-label="Filter events by type"]') as HTMLSelectElement;
    filter.value = "RUN_STARTED";
    filter.dispatchEvent(new win.Event("change", { bubbles: true }));
    await untilCount(panel, ".agui-event-type", 2, "the events of the type");
    assert.deepEqual([...panel.querySelectorAll(".agui-event-type")].map((t) => t.textContent), ["RUN_STARTED", "RUN_STARTED"]);
  });

  it("keeps memory bounded: at most the last EVENT_LOG_LIMIT events (amortised), numbered on", async () => {
    const { model, el } = await connected();
    button(el, "Show events").click();
    await until(() => el.querySelector('[aria-label="Events"]') !== null, "the Events panel");
    const total = EVENT_LOG_LIMIT * 2 + 123;
    for (let i = 0; i < total; i += 500) {
      const batch = [];
      for (let j = i; j < Math.min(total, i + 500); j++) batch.push({ type: "CUSTOM", name: `e${j}`, value: j });
      model.kernel({ kind: "events", events: batch });
    }
    await until(() => [...el.querySelectorAll(".agui-event-seq")].at(-1)?.textContent === String(total), "the newest event drawn");
    const rows = el.querySelectorAll(".agui-event");
    assert.equal(rows.length, RENDERED_ROWS, "only the newest rows are drawn");
    const seqs = [...el.querySelectorAll(".agui-event-seq")].map((s) => Number(s.textContent));
    assert.equal(seqs.at(-1), total, "rows keep their number after older events are dropped");
    assert.match(el.querySelector(".agui-events .agui-panel-note")?.textContent ?? "", /last 2,000 kept/);
    const kept = [...el.querySelectorAll(".agui-event-preview")].at(-1)?.textContent;
    assert.equal(kept, `e${total - 1}`);
    assert.ok(el.querySelector(".agui-events")?.textContent?.includes("earlier events"));
  });
});

describe("accessible names", () => {
  it("keeps Message, Send and Stop, and names every control", async () => {
    const { model, el } = await connected(conversation);
    assert.ok(textbox(el, "Message"));
    button(el, "Send");
    for (const name of ["Show state", "Show events", "Clear conversation", "Regenerate"]) button(el, name);
    assert.equal(el.querySelectorAll('button[aria-label="Edit message"]').length, 2, "Edit, on each user message");
    model.set("status", "running");
    await until(() => maybeButton(el, "Stop") !== null, "Stop offered");
    for (const b of el.querySelectorAll("button")) {
      const name = b.getAttribute("aria-label") ?? b.textContent?.trim();
      assert.ok(name, `a button without a name: ${b.outerHTML.slice(0, 120)}`);
    }
  });
});
