/** The transcript, the status line, the message box and the link to the kernel: a kernel that
 * goes away, notices that repeat, what runs leave behind, long messages, keys, the empty chat,
 * author labels and times. */
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it, mock } from "node:test";
import type { ModelCallback } from "../src/anywidget";
import { RunHistory, runTraces } from "../src/mirror/history";
import { MessageClock, eventTimes } from "../src/mirror/clock";
import { NoticeStore } from "../src/kernel/notices";
import { Follower } from "../src/view/context";
import { asksTheUser, isThinking } from "../src/view/StatusLine";
import { isLongText } from "../src/view/Text";
import { NO_RUN, type RunInfo } from "../src/mirror/mirror";
import { NO_ANSWER_MS } from "../src/kernel/connection";
import type { Message, ToolSpec } from "../src/kernel/wire";
import { doc, FakeModel, idle, until, untilText } from "./dom";
import { ev } from "./helpers";
import { button, connected, maybeButton, mount, press, textbox, type } from "./mount";

/** A model whose comm can be closed under the view, as a kernel restart does. */
class KernelModel extends FakeModel {
  commClosed = false;

  override send(content: unknown): void {
    if (this.commClosed) throw new Error("Cannot send on a closed comm");
    super.send(content);
  }

  /** ipywidgets' disconnect: `comm_live` turns false and `comm_live_update` fires, with the view
   * (which holds the model) as the listeners' `this`. */
  restartKernel(commLive = false): void {
    this.commClosed = !commLive;
    const listeners = (this as unknown as { listeners: Map<string, Set<ModelCallback>> }).listeners;
    for (const cb of [...(listeners.get("comm_live_update") ?? [])]) cb.call({ model: { comm_live: commLive } });
  }
}

const statusLine = (el: HTMLElement) => el.querySelector(".agui-status") as HTMLElement;
const banners = (el: HTMLElement) => [...el.querySelectorAll(".agui-kernel-banner")];
const messageBox = (el: HTMLElement) => textbox(el, "Message") as HTMLTextAreaElement;

describe("the link to the kernel", () => {
  it("says no kernel answered when no snapshot comes (a saved page, an export), and recovers if one does", async () => {
    const model = new FakeModel();
    mock.timers.enable({ apis: ["setTimeout", "setInterval"] });
    let view: ReturnType<typeof mount>;
    try {
      view = mount(model);
      mock.timers.tick(NO_ANSWER_MS - 1);
      assert.equal(model.sentOf("hello").length, 1);
      mock.timers.tick(1);
      mock.timers.tick(5_000);
      assert.equal(model.sentOf("hello").length, 2, "it keeps asking");
    } finally {
      mock.timers.reset();
    }
    const { el } = view;
    await until(() => banners(el).length > 0, "the banner");
    assert.equal(banners(el).length, 1);
    assert.match(banners(el)[0]?.textContent ?? "", /No kernel answered/);
    assert.equal(messageBox(el).readOnly, true);
    model.kernel({ kind: "snapshot", viewId: view.viewId, messages: [{ id: "u1", role: "user", content: "hi" }], state: {}, events: [] });
    await until(() => banners(el).length === 0, "a late snapshot brings the chat to life");
    assert.equal(messageBox(el).readOnly, false);
  });

  it("after a restart while idle: one banner, the typed text kept, the box read-only, nothing sent", async () => {
    const model = new KernelModel();
    const { el } = await connected([{ id: "u1", role: "user", content: "hi" }], model);
    type(messageBox(el), "typed before the restart");
    model.restartKernel();
    await until(() => banners(el).length > 0, "the banner");
    assert.equal(banners(el).length, 1);
    assert.equal(banners(el)[0]?.getAttribute("role"), "alert");
    assert.match(banners(el)[0]?.textContent ?? "", /kernel restarted/i);
    assert.match(banners(el)[0]?.textContent ?? "", /[Rr]un its cell again/);
    const box = messageBox(el);
    assert.equal(box.value, "typed before the restart");
    assert.equal(box.readOnly, true);
    assert.equal(box.getAttribute("aria-describedby"), banners(el)[0]?.id);
    assert.equal(button(el, "Send").disabled, true);

    press(box, "Enter");
    button(el, "Send").click();
    await idle(); // the attempts handled
    assert.equal(box.value, "typed before the restart", "Enter keeps the text");
    assert.equal(model.sentOf("send").length, 0);
    assert.equal(el.querySelectorAll(".agui-notice").length, 0, "no notice per attempt");
    assert.equal(banners(el).length, 1);
    assert.equal(statusLine(el).getAttribute("data-status"), "disconnected");
    assert.equal(maybeButton(el, "Edit message"), null, "nothing offers to start a run");
  });

  it("after a restart mid-run: no longer running, no Stop, no caret, the banner", async () => {
    const model = new KernelModel({ status: "running", run_id: "r1" });
    const { el } = await connected([{ id: "u1", role: "user", content: "hi" }], model);
    model.kernel({ kind: "events", events: [ev.runStarted("r1"), ev.textStart("a1"), ev.text("a1", "half an")] });
    await until(() => el.querySelector(".agui-row-assistant .agui-text")?.getAttribute("data-streaming") === "true", "the answer streaming");
    assert.ok(maybeButton(el, "Stop"));

    model.restartKernel();
    await until(() => banners(el).length > 0, "the banner");
    assert.equal(banners(el).length, 1);
    assert.equal(maybeButton(el, "Stop"), null, "Stop would only fail");
    assert.equal(button(el, "Send").disabled, true);
    assert.equal(statusLine(el).getAttribute("data-status"), "disconnected");
    assert.doesNotMatch(statusLine(el).textContent ?? "", /Thinking/);
    assert.equal(el.querySelector(".agui-row-thinking"), null);
    assert.equal(el.querySelector(".agui-row-assistant .agui-text")?.getAttribute("data-streaming"), null, "the caret stops");
    assert.match(el.querySelector(".agui-row-assistant")?.textContent ?? "", /half an/, "what came stays");
  });

  it("notices a send that fails (a front end that never says the comm closed), and keeps the text", async () => {
    const model = new KernelModel();
    const { el } = await connected([], model);
    model.commClosed = true;
    type(messageBox(el), "are you there?");
    press(messageBox(el), "Enter");
    await until(() => banners(el).length > 0, "the banner");
    assert.equal(messageBox(el).value, "are you there?");
    assert.equal(banners(el).length, 1);
    assert.match(banners(el)[0]?.textContent ?? "", /no longer reachable/);
    assert.equal(el.querySelectorAll(".agui-notice").length, 0);
  });

  it("takes a model that says it is live for no loss", async () => {
    const model = new KernelModel();
    const { el } = await connected([], model);
    model.restartKernel(true);
    await idle(); // the signal handled
    assert.equal(banners(el).length, 0);
    assert.equal(button(el, "Send").disabled, false);
  });
});

describe("notices", () => {
  it("show a repeated text once, with how many times it came, as the latest", () => {
    const store = new NoticeStore();
    store.add("error", "tool_result: not pending");
    store.add("warning", "something else");
    const first = store.list()[0]?.id;
    store.add("error", "tool_result: not pending");
    store.add("error", "tool_result: not pending");
    const list = store.list();
    assert.deepEqual(
      list.map((n) => [n.level, n.text, n.count]),
      [
        ["warning", "something else", 1],
        ["error", "tool_result: not pending", 3],
      ],
    );
    assert.ok((list[1]?.id ?? 0) > (first ?? 0), "a repeat is a new notice (announced again)");
    store.dispose();
  });

  it("render the count", async () => {
    const { model, el } = await connected();
    for (let i = 0; i < 3; i++) model.kernel({ kind: "notice", level: "warning", text: "The agent is busy" });
    await untilText(el, ".agui-notice", "3 times", "the notice with its count");
    const shown = [...el.querySelectorAll(".agui-notice")];
    assert.equal(shown.length, 1);
    assert.match(shown[0]?.textContent ?? "", /The agent is busy.*3 times/);
  });
});

const run = (patch: Partial<RunInfo>): RunInfo => ({ ...NO_RUN, threadId: "t", ...patch });

describe("the status line", () => {
  it("thinks before a run's first output, and not after the run this view saw end", () => {
    assert.equal(isThinking("running", "r2", run({ runId: "r1" })), true, "r2 has not started here yet");
    assert.equal(isThinking("running", "", run({ runId: "r1" })), true);
    assert.equal(isThinking("running", "r1", run({ runId: "r1", active: true })), true);
    assert.equal(isThinking("running", "r1", run({ runId: "r1", active: true, sawOutput: true })), false);
    assert.equal(isThinking("running", "r1", run({ runId: "r1", active: false, sawOutput: true })), false, "r1 ended; the kernel's idle is on its way");
    assert.equal(isThinking("idle", "", run({})), false);
  });

  it("never says Thinking again between a run's end and the kernel's idle", async () => {
    const { model, el } = await connected([{ id: "u1", role: "user", content: "hi" }]);
    model.set("run_id", "r1");
    model.set("status", "running");
    model.kernel({ kind: "events", events: [ev.runStarted("r1")] });
    await until(() => el.querySelector(".agui-row-thinking") !== null, "a Thinking row where the answer will come");
    assert.match(statusLine(el).textContent ?? "", /Thinking/);
    model.kernel({ kind: "events", events: [ev.textStart("a1"), ev.text("a1", "Hello"), ev.textEnd("a1"), ev.runFinished("r1")] });
    await until(() => !/Thinking/.test(statusLine(el).textContent ?? ""), "no longer Thinking");
    assert.equal(el.querySelector(".agui-row-thinking"), null);
  });

  it("waits for the user only when something is asked of them", () => {
    const tools: ToolSpec[] = [
      { name: "flash", description: "", parameters: {}, ui: "handler", handler: "return 1;", approve: false },
      { name: "pick", description: "", parameters: {}, ui: "ask", handler: null, approve: false },
    ];
    const call = (name: string) => ({ kind: "tool" as const, toolCallId: `c-${name}`, name, args: {}, argsText: "{}", claimedBy: null, kernel: null });
    assert.equal(asksTheUser([call("flash")], tools), false);
    assert.equal(asksTheUser([call("flash"), call("pick")], tools), true);
    assert.equal(asksTheUser([call("unknown")], tools), true);
    assert.equal(asksTheUser([], tools), true);
  });

  it("does not ask the user for a handler's call, nor once its answer is in and the next run is due", async () => {
    const flash: ToolSpec = { name: "flash", description: "", parameters: {}, ui: "handler", handler: "return 1;", approve: false };
    const model = new FakeModel({ frontend_tools: [flash] });
    model.grantsClaims = false; // the call stays pending while the test looks
    const { el } = await connected([{ id: "u1", role: "user", content: "flash" }], model);
    model.set("pending", [{ kind: "tool", toolCallId: "c1", name: "flash", args: {}, argsText: "{}", claimedBy: null, kernel: null }]);
    model.set("status", "waiting");
    await until(() => statusLine(el).getAttribute("data-status") === "waiting", "the status line waiting");
    assert.doesNotMatch(statusLine(el).textContent ?? "", /Waiting for you/);
    model.set("pending", []);
    await idle(); // the answer's removal drawn
    assert.doesNotMatch(statusLine(el).textContent ?? "", /Waiting for you/);
  });
});

describe("sub-agents", () => {
  it("fold when their sub-agent finishes, although the browser reported the opening as a toggle", async () => {
    const { model, el } = await connected([{ id: "u1", role: "user", content: "go" }]);
    model.set("status", "running");
    model.kernel({
      kind: "events",
      events: [
        ev.runStarted(),
        { type: "SUBAGENT_STARTED", subagentRunId: "s1", name: "researcher" },
        { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant", subagentRunId: "s1" },
        { type: "TEXT_MESSAGE_END", messageId: "m1", subagentRunId: "s1" },
      ],
    });
    await until(() => el.querySelector(".agui-subagent") !== null, "the sub-agent's block");
    const block = el.querySelector(".agui-subagent") as HTMLDetailsElement;
    assert.equal(block.open, true);
    // What a browser does after `open` is set: a toggle event.
    block.dispatchEvent(new (globalThis as any).Event("toggle"));
    await idle(); // the toggle handled
    model.kernel({ kind: "events", events: [{ type: "SUBAGENT_FINISHED", subagentRunId: "s1" }] });
    await until(() => !block.open, "folded once done");
    assert.match(block.textContent ?? "", /done/);
  });

  it("stay as the user left them", async () => {
    const { model, el } = await connected([{ id: "u1", role: "user", content: "go" }]);
    model.kernel({
      kind: "events",
      events: [ev.runStarted(), { type: "SUBAGENT_STARTED", subagentRunId: "s1", name: "coder" }, { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant", subagentRunId: "s1" }],
    });
    await until(() => el.querySelector(".agui-subagent") !== null, "the sub-agent's block");
    const block = el.querySelector(".agui-subagent") as HTMLDetailsElement;
    block.open = false; // the user closes it while it works
    block.dispatchEvent(new (globalThis as any).Event("toggle"));
    await idle(); // the toggle handled
    model.kernel({ kind: "events", events: [ev.textStart("m2")] });
    await idle(); // the next message drawn
    assert.equal(block.open, false);
  });
});

describe("what past runs leave", () => {
  const user = (id: string, content: string): Message => ({ id, role: "user", content }) as Message;
  const step = (type: "STEP_STARTED" | "STEP_FINISHED", stepName: string) => ({ type, stepName });

  it("keeps a run's steps where they were, after its last message, through the next run", async () => {
    const { model, el } = await connected([user("u1", "plan a trip")]);
    model.set("status", "running");
    model.kernel({
      kind: "events",
      events: [
        ev.runStarted("r1"),
        step("STEP_STARTED", "search"),
        step("STEP_FINISHED", "search"),
        { type: "STEP_STARTED", stepName: "plumbing", metadata: { agui_widget: { internal: true } } },
        { type: "STEP_FINISHED", stepName: "plumbing", metadata: { agui_widget: { internal: true } } },
        step("STEP_STARTED", "book"),
        step("STEP_FINISHED", "book"),
        ev.textStart("a1"),
        ev.text("a1", "Booked."),
        ev.textEnd("a1"),
        ev.runFinished("r1"),
      ],
    });
    model.set("status", "idle");
    const kept = () => [...el.querySelectorAll(".agui-run-steps")] as HTMLElement[];
    await until(() => kept().length > 0, "the run's steps kept");
    assert.equal(kept().length, 1);
    assert.deepEqual([...kept()[0]!.querySelectorAll(".agui-step-done")].map((s) => s.textContent?.replace("✓", "").trim()), ["search", "book"]);
    assert.equal(kept()[0]?.previousElementSibling?.textContent?.includes("Booked."), true, "right after the run's last message");

    model.kernel({ kind: "messages", start: 2, messages: [user("u2", "and back?")] });
    model.set("status", "running");
    model.kernel({ kind: "events", events: [ev.runStarted("r2"), step("STEP_STARTED", "search")] });
    await until(() => el.querySelector(".agui-progress") !== null, "the second run's live progress");
    assert.equal(kept().length, 1, "the first run keeps its steps while the second runs");
  });

  it("keeps a failed turn's error, compact, once the next turn starts; a retried turn shows its last attempt only", async () => {
    const { model, el } = await connected([user("u1", "first")]);
    const marks = () => [...el.querySelectorAll(".agui-past-error")] as HTMLElement[];
    const alerts = () => el.querySelectorAll(".agui-transcript [role=alert]").length;
    model.kernel({ kind: "events", events: [ev.runStarted("r1"), ev.runError("the service is down")] });
    await until(() => alerts() > 0, "the banner");
    assert.equal(alerts(), 1, "the banner");
    assert.equal(marks().length, 0, "the latest error is the banner's");

    // Retry: the same turn again, which fails again; then succeeds.
    model.kernel({ kind: "events", events: [ev.runStarted("r2")] });
    await idle(); // the retry drawn
    assert.equal(marks().length, 0, "a retry replaces the failed attempt");
    model.kernel({ kind: "events", events: [ev.runError("still down")] });
    model.kernel({ kind: "events", events: [ev.runStarted("r3"), ev.textStart("a1"), ev.text("a1", "Recovered."), ev.textEnd("a1"), ev.runFinished("r3")] });
    await until(() => el.querySelector(".agui-transcript")?.textContent?.includes("Recovered.") === true, "the recovered answer");
    assert.equal(marks().length, 0);
    assert.equal(alerts(), 0);

    // A turn that fails after writing, then the next turn.
    model.kernel({ kind: "messages", start: 2, messages: [user("u2", "second")] });
    model.kernel({ kind: "events", events: [ev.runStarted("r4"), ev.textStart("a2"), ev.text("a2", "About to"), ev.textEnd("a2"), ev.runError("it broke")] });
    model.kernel({ kind: "messages", start: 4, messages: [user("u3", "third")] });
    model.kernel({ kind: "events", events: [ev.runStarted("r5")] });
    await until(() => marks().length > 0, "the earlier turn's error kept");
    assert.equal(alerts(), 0, "no banner for an earlier turn");
    assert.equal(marks().length, 1);
    assert.match(marks()[0]?.textContent ?? "", /it broke/);
    assert.equal(marks()[0]?.getAttribute("role"), "note");
    assert.match(marks()[0]?.previousElementSibling?.textContent ?? "", /About to/, "after the failed turn's last message");
    const line = marks()[0]!.querySelector("button") as HTMLButtonElement;
    assert.equal(line.getAttribute("aria-expanded"), "false");
    line.click();
    await until(() => line.getAttribute("aria-expanded") === "true", "the error opened");
  });

  it("rebuilds what it can from a snapshot's events", () => {
    const history = new RunHistory();
    const messages = [user("u1", "a"), { id: "a1", role: "assistant", content: "x" } as Message, user("u2", "b")];
    history.snapshot(
      [
        ev.runStarted("r1"),
        step("STEP_STARTED", "s"),
        step("STEP_FINISHED", "s"),
        ev.textStart("a1"),
        ev.textEnd("a1"),
        ev.runError("bad"),
        ev.runStarted("r2"),
      ] as never,
      messages,
    );
    const traces = runTraces(history, messages).get("a1") ?? [];
    assert.deepEqual(
      traces.map((t) => [t.run.runId, t.showSteps, t.showError]),
      [["r1", true, true]],
    );
    assert.equal(history.activeTurn, "u2");
  });
});

describe("long messages", () => {
  it("fold with Show more, the whole text kept in the element", async () => {
    const pasted = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n");
    assert.equal(isLongText(pasted), true);
    assert.equal(isLongText("short\nmessage"), false);
    const { el } = await connected([{ id: "u1", role: "user", content: pasted }]);
    const text = el.querySelector(".agui-bubble-user .agui-text") as HTMLElement;
    assert.equal(text.getAttribute("data-folded"), "true");
    assert.equal(text.textContent, pasted);
    const more = button(el, "Show more");
    assert.equal(more.getAttribute("aria-expanded"), "false");
    assert.equal(more.getAttribute("aria-controls"), text.id);
    more.click();
    await until(() => text.getAttribute("data-folded") === null, "the message unfolded");
    assert.equal(button(el, "Show less").getAttribute("aria-expanded"), "true");
  });
});

describe("keys", () => {
  it("Escape leaves the message box", async () => {
    const { el } = await connected();
    const box = messageBox(el);
    box.focus();
    assert.equal(doc.activeElement, box);
    type(box, "half-written");
    press(box, "Escape");
    assert.notEqual(doc.activeElement, box);
    assert.equal(box.value, "half-written", "the text stays");
  });

  it("Escape cancels an edit and gives the keyboard back to Edit", async () => {
    const { model, el } = await connected([{ id: "u1", role: "user", content: "question" }]);
    button(el, "Edit message").click();
    await until(() => el.querySelector('textarea[aria-label="Edited message"]') !== null, "the edit box");
    const box = textbox(el, "Edited message");
    type(box, "changed");
    press(box, "Escape");
    await until(() => el.querySelector('textarea[aria-label="Edited message"]') === null, "the edit cancelled");
    assert.equal(model.sentOf("edit").length, 0);
    assert.equal(doc.activeElement, button(el, "Edit message"));
  });
});

describe("the empty chat", () => {
  it("offers the agent's starters", async () => {
    const model = new FakeModel({ suggestions: [{ title: "Weather", message: "weather in Lisbon" }], suggestions_after: "" });
    const { el } = await connected([], model);
    assert.match(el.querySelector(".agui-empty")?.textContent ?? "", /Start with one of these/);
    button(el, "Weather").click();
    assert.deepEqual(model.sentOf("send"), [{ kind: "send", text: "weather in Lisbon" }]);
  });

  it("says what to do when there are none", async () => {
    const { el } = await connected();
    assert.match(el.querySelector(".agui-empty")?.textContent ?? "", /No messages yet\. Type a message below and press Enter/);
    assert.equal(el.querySelector(".agui-suggestions"), null);
  });
});

describe("authors and times", () => {
  it("label the first row of each author's turn", async () => {
    const model = new FakeModel({ agent_name: "planner" });
    const { el } = await connected(
      [
        { id: "u1", role: "user", content: "q" },
        { id: "a1", role: "assistant", content: "one" },
        { id: "a2", role: "assistant", content: "two" },
        { id: "u2", role: "user", content: "q2" },
      ],
      model,
    );
    const labels = [...el.querySelectorAll(".agui-author")].map((a) => a.textContent?.trim());
    assert.deepEqual(labels, ["You", "planner", "You"]);
    assert.equal(el.querySelector(".agui-bubble-user .agui-author"), null, "not inside the bubble");
  });

  it("show when this view saw a message come, and nothing for one that came in a snapshot", async () => {
    const { model, el } = await connected([{ id: "old", role: "assistant", content: "from before" }], new FakeModel(), {}, [
      { type: "RUN_STARTED", threadId: "t", runId: "r0" },
      { type: "TEXT_MESSAGE_START", messageId: "stamped", role: "assistant", timestamp: Date.UTC(2024, 0, 2, 3, 4) },
    ]);
    assert.equal(el.querySelector(".agui-time"), null, "a snapshot's message has no time");
    model.kernel({ kind: "events", events: [ev.runStarted(), ev.textStart("new"), ev.text("new", "now"), ev.textEnd("new"), ev.runFinished()] });
    await until(() => el.querySelector("time.agui-time") !== null, "the new message's time");
    const times = [...el.querySelectorAll("time.agui-time")];
    assert.equal(times.length, 1);
    const at = Date.parse(times[0]?.getAttribute("datetime") ?? "");
    assert.ok(Math.abs(Date.now() - at) < 60_000, "the time it came");
  });

  it("take an event's timestamp when the agent gave one, even in a snapshot", () => {
    const clock = new MessageClock(() => 5);
    const times = eventTimes([
      { type: "TEXT_MESSAGE_START", messageId: "a", role: "assistant", timestamp: 1000 },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "b", delta: "x", timestamp: 2000 },
    ]);
    clock.fromSnapshot(["a", "b"], times);
    clock.fromLive(["a", "c"], new Map());
    assert.deepEqual([clock.at("a"), clock.at("b"), clock.at("c")], [1000, null, 5]);
  });
});

describe("following a new run", () => {
  let follows = 0;
  const original = Follower.prototype.follow;
  beforeEach(() => {
    follows = 0;
    Follower.prototype.follow = function (this: Follower) {
      follows++;
      original.call(this);
    };
  });
  afterEach(() => {
    Follower.prototype.follow = original;
  });

  it("follows after Send, Save and send, Regenerate, Retry and a suggestion", async () => {
    const model = new FakeModel({ suggestions: [{ title: "Next", message: "next" }], suggestions_after: "a1" });
    const { el } = await connected(
      [
        { id: "u1", role: "user", content: "question" },
        { id: "a1", role: "assistant", content: "answer" },
      ],
      model,
    );
    button(el, "Next").click();
    assert.equal(follows, 1, "a suggestion");
    button(el, "Regenerate").click();
    assert.equal(follows, 2, "Regenerate");
    button(el, "Edit message").click();
    await until(() => el.querySelector('textarea[aria-label="Edited message"]') !== null, "the edit box");
    type(textbox(el, "Edited message"), "question, edited");
    button(el, "Save and send").click();
    assert.equal(follows, 3, "Save and send");
    model.set("status", "error");
    model.set("error", "It broke");
    await until(() => maybeButton(el, "Retry") !== null, "Retry offered");
    button(el, "Retry").click();
    assert.equal(follows, 4, "Retry");
    type(messageBox(el), "one more");
    press(messageBox(el), "Enter");
    assert.equal(follows, 5, "Send");
    button(el, "Send").click();
    assert.equal(follows, 5, "an empty box sends nothing and moves nothing");
  });
});
