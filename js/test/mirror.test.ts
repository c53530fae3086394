import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fingerprint } from "../src/mirror/fingerprint";
import { Mirror, toolCallsOf } from "../src/mirror/mirror";
import type { Message } from "../src/kernel/wire";
import { captureWarnings, deepFreeze, ev, events, readyMirror, recordChanges, snapshot } from "./helpers";

const user = (id: string, content: string): Message => ({ id, role: "user", content });
const assistant = (id: string, content: string): Message => ({ id, role: "assistant", content });
const ids = (mirror: Mirror) => mirror.messages().map((m) => m.id);

describe("snapshot gating", () => {
  it("ignores events, splices, patches and checks before its first snapshot", () => {
    const mirror = new Mirror("me");
    const changes = recordChanges(mirror);
    mirror.handle(events(ev.runStarted(), ev.textStart("a"), ev.text("a", "lost")));
    mirror.handle({ kind: "messages", start: 0, messages: [user("u", "lost")] });
    mirror.handle({ kind: "state_patch", patch: [{ op: "add", path: "/x", value: 1 }] });
    mirror.handle({ kind: "check", count: 5, start: 0, tail: [] });
    assert.equal(mirror.ready, false);
    assert.deepEqual(ids(mirror), []);
    assert.deepEqual(mirror.state, {});
    assert.deepEqual(changes, []);
    assert.equal(mirror.events().length, 0);
  });

  it("applies a snapshot addressed to it or to everyone, and ignores one for another view", () => {
    const mirror = new Mirror("me");
    mirror.handle(snapshot([user("u1", "for someone else")], { other: true }, [], "someone-else"));
    assert.equal(mirror.ready, false);

    mirror.handle(snapshot([user("u1", "hi")], { mine: 1 }, [], "me"));
    assert.equal(mirror.ready, true);
    assert.deepEqual(ids(mirror), ["u1"]);
    assert.deepEqual(mirror.state, { mine: 1 });

    mirror.handle(snapshot([user("x", "not mine")], {}, [], "someone-else"));
    assert.deepEqual(ids(mirror), ["u1"]);

    mirror.handle(snapshot([user("u1", "hi"), assistant("a1", "hello")], { all: 1 }, [], null));
    assert.deepEqual(ids(mirror), ["u1", "a1"]);
    assert.deepEqual(mirror.state, { all: 1 });
  });

  it("says ready once, and a later snapshot replaces everything", () => {
    const mirror = new Mirror("me");
    const changes = recordChanges(mirror);
    mirror.handle(snapshot([user("u1", "a")], { v: 1 }));
    mirror.handle(snapshot([user("u2", "b")], { v: 2 }));
    assert.ok(changes[0]?.topics.includes("ready"));
    assert.ok(!changes[1]?.topics.includes("ready"));
    assert.deepEqual(changes[1]?.messages, ["u1", "u2"]);
    assert.deepEqual(ids(mirror), ["u2"]);
  });

  it("derives streaming flags and the run from the snapshot's event tail (a view joining mid-run)", () => {
    const mirror = new Mirror("me");
    const tail = [
      ev.runStarted("r7"),
      ev.textStart("a1"),
      ev.text("a1", "Hel"),
      ev.toolStart("c1", "search", "a1"),
    ];
    mirror.handle(
      snapshot(
        [user("u1", "q"), { id: "a1", role: "assistant", content: "Hel", toolCalls: [{ id: "c1", type: "function", function: { name: "search", arguments: "" } }] }],
        {},
        tail,
        "me",
      ),
    );
    assert.equal(mirror.run.active, true);
    assert.equal(mirror.run.runId, "r7");
    assert.equal(mirror.run.sawOutput, true);
    assert.equal(mirror.isStreaming("a1"), true);
    assert.equal(mirror.isCallStreaming("c1"), true);
    assert.equal(mirror.events().length, 4);

    mirror.handle(events(ev.text("a1", "lo"), ev.textEnd("a1")));
    assert.equal(mirror.message("a1")?.role === "assistant" && mirror.message("a1")?.content, "Hello");
    assert.equal(mirror.isStreaming("a1"), false);
  });

  it("sees a run in progress when the event tail begins after its RUN_STARTED", () => {
    const mirror = new Mirror("me");
    mirror.handle(snapshot([assistant("a1", "partial")], {}, [ev.text("a1", "tial")]));
    assert.equal(mirror.run.active, true);
    assert.equal(mirror.run.sawOutput, true);
    assert.equal(mirror.isStreaming("a1"), true, "content without an END in the tail: still streaming");
  });

  it("takes the last run's error from the event tail", () => {
    const mirror = new Mirror("me");
    mirror.handle(snapshot([], {}, [ev.runStarted(), ev.runError("quota exceeded")]));
    assert.equal(mirror.run.active, false);
    assert.equal(mirror.run.error, "quota exceeded");
  });
});

describe("text messages", () => {
  it("streams a START/CONTENT/END triad, telling only that message", () => {
    const mirror = readyMirror([user("u1", "hi")]);
    const changes = recordChanges(mirror);
    let otherRow = 0;
    mirror.subscribeMessage("u1", () => otherRow++);
    let row = 0;
    mirror.subscribeMessage("a1", () => row++);
    let list = 0;
    mirror.subscribe("list", () => list++);

    mirror.handle(events(ev.runStarted(), ev.textStart("a1")));
    assert.deepEqual(ids(mirror), ["u1", "a1"]);
    assert.equal(mirror.isStreaming("a1"), true);
    assert.equal(list, 1);

    const listBefore = mirror.messages();
    mirror.handle(events(ev.text("a1", "Hel")));
    mirror.handle(events(ev.text("a1", "lo")));
    assert.equal(mirror.message("a1")?.role === "assistant" && mirror.message("a1")?.content, "Hello");
    assert.equal(list, 1, "content does not re-render the list");
    assert.equal(mirror.messages(), listBefore, "the list keeps its identity while a message streams");
    assert.deepEqual(changes[1], { topics: ["events"], messages: ["a1"] });
    assert.deepEqual(changes[2], { topics: ["events"], messages: ["a1"] });

    mirror.handle(events(ev.textEnd("a1"), ev.runFinished()));
    assert.equal(mirror.isStreaming("a1"), false);
    assert.equal(otherRow, 0, "other messages are never told");
    assert.equal(row, 4);
  });

  it("marks the run as having output from the first token (the view stops saying Thinking…)", () => {
    const mirror = readyMirror();
    mirror.handle(events(ev.runStarted()));
    assert.equal(mirror.run.active, true);
    assert.equal(mirror.run.sawOutput, false);
    mirror.handle(events(ev.textStart("a1")));
    assert.equal(mirror.run.sawOutput, true);
  });

  it("replaces non-text content with the streamed text, as the AG-UI client does", () => {
    const parts: Message = { id: "u1", role: "user", content: [{ type: "text", text: "look at this" }] } as Message;
    const mirror = readyMirror([parts]);
    mirror.handle(events(ev.runStarted(), ev.textStart("u1"), ev.text("u1", "more"), ev.textEnd("u1")));
    assert.equal(mirror.message("u1")?.content, "more");
  });

  it("appends to a re-opened message instead of starting a new one", () => {
    const mirror = readyMirror();
    mirror.handle(events(ev.runStarted(), ev.textStart("m"), ev.text("m", "First half."), ev.textEnd("m")));
    mirror.handle(events(ev.textStart("m"), ev.text("m", " Second half."), ev.textEnd("m"), ev.runFinished()));
    assert.deepEqual(mirror.messages(), [{ id: "m", role: "assistant", content: "First half. Second half." }]);
  });

  it("drops content for an unknown message, like the kernel's reducer", () => {
    const mirror = readyMirror();
    const warnings = captureWarnings(() => mirror.handle(events(ev.runStarted(), ev.text("ghost", "boo"))));
    assert.deepEqual(ids(mirror), []);
    assert.equal(warnings.length, 1);
  });

  it("merges event metadata into the message it builds (a stopped message is marked)", () => {
    const mirror = readyMirror();
    mirror.handle(
      events(ev.runStarted(), ev.textStart("a"), ev.text("a", "cut"), {
        type: "TEXT_MESSAGE_END",
        messageId: "a",
        metadata: { agui_widget: { stopped: true } },
      }),
    );
    assert.deepEqual((mirror.message("a") as { metadata?: unknown }).metadata, { agui_widget: { stopped: true } });
  });

  it("closes every open message when the run errors, and keeps the error text", () => {
    const mirror = readyMirror();
    mirror.handle(events(ev.runStarted(), ev.textStart("a"), ev.text("a", "partial"), ev.runError("model exploded")));
    assert.equal(mirror.isStreaming("a"), false);
    assert.equal(mirror.run.active, false);
    assert.equal(mirror.run.error, "model exploded");
    mirror.handle(events(ev.runStarted("r2")));
    assert.equal(mirror.run.error, "", "a new run clears the error");
    assert.equal(mirror.run.runId, "r2");
  });
});

describe("tool calls", () => {
  it("attaches a call to its parent message, streams its arguments, and places its result right after it", () => {
    const mirror = readyMirror([user("u1", "weather?")]);
    mirror.handle(events(ev.runStarted(), ev.textStart("a1"), ev.text("a1", "Let me look."), ev.textEnd("a1")));
    mirror.handle(events(ev.toolStart("c1", "get_weather", "a1"), ev.toolArgs("c1", '{"city":')));
    assert.equal(mirror.isCallStreaming("c1"), true);
    assert.equal(mirror.callOwnerOf("c1"), "a1");
    assert.equal(mirror.toolCall("c1")?.function.arguments, '{"city":');

    let ownerTold = 0;
    mirror.subscribeMessage("a1", () => ownerTold++);
    mirror.handle(events(ev.toolArgs("c1", '"Paris"}')));
    assert.equal(ownerTold, 1, "argument deltas re-render the message holding the call");
    assert.equal(mirror.toolCall("c1")?.function.arguments, '{"city":"Paris"}');

    mirror.handle(events(ev.toolEnd("c1")));
    assert.equal(mirror.isCallStreaming("c1"), false);

    // Text streamed after the call, then the result: the result still sits after the call.
    mirror.handle(events(ev.textStart("a2"), ev.text("a2", "Checking…"), ev.textEnd("a2")));
    mirror.handle(events(ev.toolResult("t1", "c1", "18°C")));
    assert.deepEqual(ids(mirror), ["u1", "a1", "t1", "a2"]);
    assert.equal(mirror.toolResult("c1")?.content, "18°C");
    assert.equal(ownerTold, 3, "the result re-renders the message holding the call");
    const calls = toolCallsOf(mirror.message("a1"));
    assert.deepEqual(calls, [{ id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }]);
  });

  it("creates an assistant message for a call without a known parent", () => {
    const mirror = readyMirror();
    mirror.handle(events(ev.runStarted(), ev.toolStart("c1", "f"), ev.toolStart("c2", "g", "p9")));
    assert.deepEqual(ids(mirror), ["c1", "p9"]);
    assert.equal(mirror.callOwnerOf("c2"), "p9");
    mirror.handle(events(ev.toolStart("c3", "h", "p9")));
    assert.equal(toolCallsOf(mirror.message("p9")).length, 2, "a second call joins the created parent");
  });

  it("treats a replayed TOOL_CALL_START as the same call", () => {
    const mirror = readyMirror();
    mirror.handle(events(ev.runStarted(), ev.toolStart("c1", "f", "a"), ev.toolArgs("c1", "{}"), ev.toolEnd("c1")));
    mirror.handle(events(ev.toolStart("c1", "f", "a")));
    const calls = toolCallsOf(mirror.message("a"));
    assert.equal(calls.length, 1);
    assert.equal(calls[0]?.function.arguments, "{}");
  });

  it("keeps parallel results in order after their assistant message", () => {
    const mirror = readyMirror();
    mirror.handle(
      events(
        ev.runStarted(),
        ev.toolStart("c1", "f", "a"),
        ev.toolEnd("c1"),
        ev.toolStart("c2", "g", "a"),
        ev.toolEnd("c2"),
        ev.textStart("b"),
        ev.textEnd("b"),
        ev.toolResult("t1", "c1", "one"),
        ev.toolResult("t2", "c2", "two"),
      ),
    );
    assert.deepEqual(ids(mirror), ["a", "t1", "t2", "b"]);
  });

  it("mints a result's message even when its id is taken, and the first message keeps the id", () => {
    const mirror = readyMirror([assistant("a0", "said before")]);
    mirror.handle(events(ev.runStarted(), ev.toolStart("c1", "f", "a1"), ev.toolEnd("c1"), ev.toolResult("a0", "c1", "done")));
    assert.deepEqual(ids(mirror), ["a0", "a1", "a0"]);
    assert.equal(mirror.message("a0")?.role, "assistant", "the assistant's text is not replaced");
    assert.equal(toolCallsOf(mirror.message("a1")).length, 1, "nor is the call");
    assert.equal(mirror.messages()[2]?.role, "tool");
  });

  it("gives a call without a parent its own message even when an assistant message has the call's id", () => {
    const mirror = readyMirror([assistant("c1", "text")]);
    mirror.handle(events(ev.runStarted(), ev.toolStart("c1", "f")));
    assert.deepEqual(ids(mirror), ["c1", "c1"]);
    assert.equal(toolCallsOf(mirror.message("c1")).length, 0, "lookups find the first message with the id");
    assert.equal(toolCallsOf(mirror.messages()[1]).length, 1);
  });

  it("ignores arguments for an unknown call", () => {
    const mirror = readyMirror();
    const warnings = captureWarnings(() => mirror.handle(events(ev.runStarted(), ev.toolArgs("nope", "{}"))));
    assert.equal(warnings.length, 1);
    assert.deepEqual(ids(mirror), []);
  });
});

describe("messages splices", () => {
  const base = () => readyMirror([user("u1", "a"), assistant("a1", "b"), user("u2", "c")]);

  it("appends when start is the length", () => {
    const mirror = base();
    mirror.handle({ kind: "messages", start: 3, messages: [assistant("a2", "d")] });
    assert.deepEqual(ids(mirror), ["u1", "a1", "u2", "a2"]);
  });

  it("replaces the tail from start", () => {
    const mirror = base();
    const changes = recordChanges(mirror);
    mirror.handle({ kind: "messages", start: 1, messages: [assistant("a1", "b"), assistant("a9", "z")] });
    assert.deepEqual(ids(mirror), ["u1", "a1", "a9"]);
    assert.deepEqual(changes[0]?.topics, ["list"]);
    // a1 is unchanged (same JSON), so it keeps its object and is not re-rendered.
    assert.deepEqual(changes[0]?.messages, ["a9", "u2"]);
  });

  it("clears with start 0 and no messages", () => {
    const mirror = base();
    mirror.handle({ kind: "messages", start: 0, messages: [] });
    assert.deepEqual(ids(mirror), []);
  });

  it("asks for a snapshot when a splice starts past its end", () => {
    const mirror = base();
    let resync = 0;
    mirror.subscribe("resync", () => resync++);
    captureWarnings(() => mirror.handle({ kind: "messages", start: 9, messages: [user("x", "y")] }));
    assert.equal(resync, 1);
    assert.deepEqual(ids(mirror), ["u1", "a1", "u2"]);
  });

  it("tells the message holding a call when a splice brings or removes its result", () => {
    const call = { id: "c1", type: "function" as const, function: { name: "paint", arguments: "{}" } };
    const mirror = readyMirror([user("u1", "paint it"), { id: "a1", role: "assistant", toolCalls: [call] }]);
    const changes = recordChanges(mirror);
    // chat.respond(...) from Python or a view: the kernel appends the tool message.
    mirror.handle({ kind: "messages", start: 2, messages: [{ id: "t1", role: "tool", toolCallId: "c1", content: "ok" }] });
    assert.deepEqual(changes[0]?.messages, ["a1", "t1"]);
    assert.equal(mirror.toolResult("c1")?.content, "ok");
    mirror.handle({ kind: "messages", start: 2, messages: [{ id: "t1", role: "tool", toolCallId: "c1", content: "changed" }] });
    assert.deepEqual(changes[1]?.messages, ["a1", "t1"]);
    mirror.handle({ kind: "messages", start: 2, messages: [] });
    assert.deepEqual(changes[2]?.messages, ["a1", "t1"]);
    assert.equal(mirror.toolResult("c1"), undefined);
  });

  it("rebuilds tool-call lookups after a splice", () => {
    const mirror = base();
    mirror.handle({
      kind: "messages",
      start: 3,
      messages: [
        { id: "a2", role: "assistant", toolCalls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
        { id: "t1", role: "tool", toolCallId: "c1", content: "ok" },
      ],
    });
    assert.equal(mirror.callOwnerOf("c1"), "a2");
    assert.equal(mirror.toolResult("c1")?.content, "ok");
    mirror.handle({ kind: "messages", start: 3, messages: [] });
    assert.equal(mirror.callOwnerOf("c1"), undefined);
  });
});

describe("appending to a long transcript", () => {
  /** A message that counts how often anything reads its fields. */
  const watched = (id: string, reads: { n: number }): Message =>
    new Proxy(user(id, `question ${id}`), {
      get(target, key, receiver) {
        reads.n++;
        return Reflect.get(target, key, receiver);
      },
    });

  it("does not go through the messages already there", () => {
    const reads = { n: 0 };
    const long = Array.from({ length: 2000 }, (_, i) => watched(`m${i}`, reads));
    const mirror = new Mirror("me");
    mirror.apply({ kind: "snapshot", viewId: null, messages: long, state: {}, events: [] });
    const changes = recordChanges(mirror);
    reads.n = 0;
    mirror.handle({ kind: "messages", start: 2000, messages: [assistant("new", "the answer")] });
    assert.equal(mirror.messages().length, 2001);
    assert.equal(mirror.message("new")?.content, "the answer");
    assert.equal(mirror.message("m1999")?.id, "m1999");
    assert.deepEqual(changes, [{ topics: ["list"], messages: ["new"] }]);
    assert.ok(reads.n <= 3, `appending one message read the messages already there ${reads.n} times`);
  });

  it("keeps the lookups a rebuild would make: calls, results, and the message holding a call", () => {
    const call = { id: "c1", type: "function" as const, function: { name: "f", arguments: "{}" } };
    const mirror = readyMirror([user("u1", "a"), { id: "a1", role: "assistant", toolCalls: [call] }, { id: "t0", role: "tool", toolCallId: "c1", content: "first" }]);
    const changes = recordChanges(mirror);
    // A second assistant repeating the call's id does not take it over; a later result does.
    mirror.handle({
      kind: "messages",
      start: 3,
      messages: [
        { id: "a2", role: "assistant", toolCalls: [call] },
        { id: "t1", role: "tool", toolCallId: "c1", content: "second" },
      ],
    });
    assert.equal(mirror.callOwnerOf("c1"), "a1");
    assert.equal(mirror.toolResult("c1")?.content, "second");
    assert.deepEqual(changes[0]?.messages, ["a1", "a2", "t1"]);
    const before = mirror.messages();
    mirror.handle({ kind: "messages", start: 5, messages: [user("u2", "b")] });
    assert.notEqual(mirror.messages(), before, "the transcript is a new array when a message is added");
    assert.deepEqual(before.map((m) => m.id), ["u1", "a1", "t0", "a2", "t1"], "the array handed out before is not changed");
  });

  it("falls back to rebuilding when an appended id is already taken", () => {
    const mirror = readyMirror([user("u1", "a"), assistant("a1", "b")]);
    captureWarnings(() => mirror.handle({ kind: "messages", start: 2, messages: [assistant("a1", "again"), user("u2", "c")] }));
    assert.deepEqual(ids(mirror), ["u1", "a1", "a1", "u2"]);
    assert.equal(mirror.message("a1")?.content, "b", "the first message with an id wins lookups");
    assert.equal(mirror.message("u2")?.content, "c");
  });
});

describe("check", () => {
  it("stays quiet when the copy matches the kernel's, and asks for a snapshot when it does not", () => {
    const mirror = readyMirror([user("u1", "hi")]);
    mirror.handle(events(ev.runStarted(), ev.textStart("a1"), ev.text("a1", "héllo 👋"), ev.textEnd("a1"), ev.runFinished()));
    let resync = 0;
    mirror.subscribe("resync", () => resync++);
    // "héllo 👋" is 8 UTF-16 code units (the emoji is a surrogate pair).
    mirror.handle({ kind: "check", count: 2, start: 1, tail: [["a1", "assistant", 8]] });
    assert.equal(resync, 0);

    const warnings = captureWarnings(() => {
      mirror.handle({ kind: "check", count: 2, start: 1, tail: [["a1", "assistant", 9]] });
      mirror.handle({ kind: "check", count: 3, start: 2, tail: [] });
      mirror.handle({ kind: "check", count: 2, start: 1, tail: [["zz", "assistant", 8]] });
    });
    assert.equal(resync, 3);
    assert.equal(warnings.length, 3);
  });

  it("compares the shared state by fingerprint when the kernel sends one", () => {
    const mirror = readyMirror([], { a: 1, b: [true, null] });
    let resync = 0;
    mirror.subscribe("resync", () => resync++);
    mirror.handle({ kind: "check", count: 0, start: 0, tail: [], state: fingerprint({ b: [true, null], a: 1 }) });
    assert.equal(resync, 0, "key order does not matter");
    const warnings = captureWarnings(() => mirror.handle({ kind: "check", count: 0, start: 0, tail: [], state: fingerprint({ a: 1, b: [true] }) }));
    assert.equal(resync, 1);
    assert.match(warnings[0] ?? "", /shared state differs/);
  });

  it("counts non-string content as -1", () => {
    const mirror = readyMirror();
    mirror.handle(events(ev.runStarted(), ev.toolStart("c1", "f"), ev.toolEnd("c1"), ev.runFinished()));
    let resync = 0;
    mirror.subscribe("resync", () => resync++);
    mirror.handle({ kind: "check", count: 1, start: 0, tail: [["c1", "assistant", -1]] });
    assert.equal(resync, 0);
  });
});

describe("state", () => {
  it("applies STATE_SNAPSHOT and STATE_DELTA", () => {
    const mirror = readyMirror([], { plan: { steps: ["a"] } });
    let told = 0;
    mirror.subscribe("state", () => told++);
    mirror.handle(events(ev.runStarted(), { type: "STATE_DELTA", delta: [{ op: "add", path: "/plan/steps/-", value: "b" }] }));
    assert.deepEqual(mirror.state, { plan: { steps: ["a", "b"] } });
    mirror.handle(events({ type: "STATE_SNAPSHOT", snapshot: { fresh: true } }));
    assert.deepEqual(mirror.state, { fresh: true });
    assert.equal(told, 2);
  });

  it("leaves the state as it was when a delta does not apply (all or nothing)", () => {
    const mirror = readyMirror([], { plan: { status: "open" } });
    const warnings = captureWarnings(() =>
      mirror.handle(
        events(ev.runStarted(), {
          type: "STATE_DELTA",
          delta: [
            { op: "replace", path: "/plan/status", value: "closed" },
            { op: "replace", path: "/absent/deeper", value: 1 },
          ],
        }),
      ),
    );
    assert.deepEqual(mirror.state, { plan: { status: "open" } });
    assert.ok(warnings.some((w) => w.includes("Failed to apply state patch")));
  });

  it("applies state_patch, and asks for a snapshot when one does not apply", () => {
    const mirror = readyMirror([], { a: 1 });
    let resync = 0;
    mirror.subscribe("resync", () => resync++);
    mirror.handle({ kind: "state_patch", patch: [{ op: "replace", path: "/a", value: 2 }] });
    assert.deepEqual(mirror.state, { a: 2 });
    captureWarnings(() => mirror.handle({ kind: "state_patch", patch: [{ op: "remove", path: "/missing" }] }));
    assert.deepEqual(mirror.state, { a: 2 });
    assert.equal(resync, 1);
  });

  it("never mutates the state or patch objects it was given (two views share them)", () => {
    const shared = deepFreeze({ big: { keep: [1, 2, 3] }, list: [{ n: 1 }] });
    const one = readyMirror([], shared);
    const two = readyMirror([], shared);
    const patch = deepFreeze({ kind: "state_patch", patch: [{ op: "add", path: "/list/-", value: { n: 2 } }] });
    one.handle(patch);
    two.handle(patch);
    one.handle({ kind: "state_patch", patch: [{ op: "replace", path: "/list/1/n", value: 3 }] });
    assert.deepEqual(one.state, { big: { keep: [1, 2, 3] }, list: [{ n: 1 }, { n: 3 }] });
    assert.deepEqual(two.state, { big: { keep: [1, 2, 3] }, list: [{ n: 1 }, { n: 2 }] });
    assert.equal((one.state as typeof shared).big, shared.big, "untouched subtrees keep their identity");
  });
});

describe("MESSAGES_SNAPSHOT", () => {
  it("reconciles by id: a carried message replaces ours, an omitted one is dropped", () => {
    const mirror = readyMirror();
    mirror.handle(
      events(
        ev.runStarted(),
        ev.textStart("a"),
        ev.text("a", "first draft"),
        ev.textEnd("a"),
        ev.textStart("b"),
        ev.text("b", "retracted"),
        ev.textEnd("b"),
        { type: "MESSAGES_SNAPSHOT", messages: [{ id: "a", role: "assistant", content: "first draft, corrected" }] },
        ev.runFinished(),
      ),
    );
    assert.deepEqual(mirror.messages(), [{ id: "a", role: "assistant", content: "first draft, corrected" }]);
  });

  it("keeps local reasoning and activity messages unless the snapshot carries that kind", () => {
    const mirror = readyMirror();
    mirror.handle(
      events(
        ev.runStarted(),
        { type: "REASONING_MESSAGE_START", messageId: "r1", role: "reasoning" },
        { type: "REASONING_MESSAGE_CONTENT", messageId: "r1", delta: "hmm" },
        { type: "REASONING_MESSAGE_END", messageId: "r1" },
        { type: "ACTIVITY_SNAPSHOT", messageId: "act", activityType: "search", content: { q: "x" } },
        { type: "MESSAGES_SNAPSHOT", messages: [{ id: "a", role: "assistant", content: "answer" }] },
      ),
    );
    assert.deepEqual(ids(mirror), ["r1", "act", "a"]);
    mirror.handle(events({ type: "MESSAGES_SNAPSHOT", messages: [{ id: "r2", role: "reasoning", content: "other" }] }));
    assert.deepEqual(ids(mirror), ["act", "r2"]);
  });
});

describe("reasoning and activities", () => {
  it("streams reasoning into a reasoning message", () => {
    const mirror = readyMirror();
    mirror.handle(
      events(
        ev.runStarted(),
        { type: "REASONING_START", messageId: "span" },
        { type: "REASONING_MESSAGE_START", messageId: "r1", role: "reasoning" },
        { type: "REASONING_MESSAGE_CONTENT", messageId: "r1", delta: "weighing " },
      ),
    );
    assert.equal(mirror.isStreaming("r1"), true);
    assert.equal(mirror.run.sawOutput, true);
    mirror.handle(
      events(
        { type: "REASONING_MESSAGE_CONTENT", messageId: "r1", delta: "the options" },
        { type: "REASONING_MESSAGE_END", messageId: "r1" },
        { type: "REASONING_END", messageId: "span" },
      ),
    );
    assert.deepEqual(mirror.messages(), [{ id: "r1", role: "reasoning", content: "weighing the options" }]);
    assert.equal(mirror.isStreaming("r1"), false);
  });

  it("applies ACTIVITY_SNAPSHOT (replace and keep) and ACTIVITY_DELTA", () => {
    const mirror = readyMirror();
    mirror.handle(
      events(
        ev.runStarted(),
        { type: "ACTIVITY_SNAPSHOT", messageId: "act", activityType: "search", content: { q: "ag-ui", found: 1 } },
        { type: "ACTIVITY_SNAPSHOT", messageId: "act", activityType: "other", content: { q: "no" }, replace: false },
        { type: "ACTIVITY_DELTA", messageId: "act", activityType: "search", patch: [{ op: "replace", path: "/found", value: 2 }] },
      ),
    );
    assert.deepEqual(mirror.messages(), [{ id: "act", role: "activity", activityType: "search", content: { q: "ag-ui", found: 2 } }]);
  });
});

describe("steps, custom and unknown events", () => {
  it("tracks open steps", () => {
    const mirror = readyMirror();
    mirror.handle(events(ev.runStarted(), { type: "STEP_STARTED", stepName: "plan" }, { type: "STEP_STARTED", stepName: "act" }));
    assert.deepEqual(mirror.run.steps, ["plan", "act"]);
    mirror.handle(events({ type: "STEP_FINISHED", stepName: "act" }));
    assert.deepEqual(mirror.run.steps, ["plan"]);
  });

  it("leaves steps the agent marks as internal out of the progress, and keeps them in the log", () => {
    const mirror = readyMirror();
    const internal = { agui_widget: { internal: true } };
    mirror.handle(events(ev.runStarted(), { type: "STEP_STARTED", stepName: "model", metadata: internal }, { type: "STEP_STARTED", stepName: "research" }));
    assert.deepEqual(mirror.run.steps, ["research"]);
    mirror.handle(events({ type: "STEP_FINISHED", stepName: "model", metadata: internal }, { type: "STEP_FINISHED", stepName: "research" }));
    assert.deepEqual(mirror.run.finishedSteps, ["research"]);
    assert.equal(mirror.events().filter((e) => e.type.startsWith("STEP_")).length, 4);
  });

  it("keeps CUSTOM, RAW and unknown events in the log without touching the transcript", () => {
    const mirror = readyMirror([user("u", "x")]);
    const before = mirror.messages();
    mirror.handle(events({ type: "CUSTOM", name: "n", value: 1 }, { type: "RAW", event: {} }, { type: "FROM_THE_FUTURE", x: 1 }));
    assert.equal(mirror.messages(), before);
    assert.deepEqual(
      mirror.events().map((e) => e.type),
      ["CUSTOM", "RAW", "FROM_THE_FUTURE"],
    );
  });
});

describe("robustness", () => {
  it("skips a malformed event and applies the rest of its batch", () => {
    const mirror = readyMirror();
    const warnings = captureWarnings(() =>
      mirror.handle(events(ev.runStarted(), ev.textStart("a"), { type: "TEXT_MESSAGE_CONTENT", messageId: "a" }, ev.text("a", "ok"))),
    );
    assert.equal(warnings.length, 1);
    assert.equal(mirror.message("a")?.role === "assistant" && mirror.message("a")?.content, "ok");
  });

  it("ignores malformed kernel messages without throwing", () => {
    const mirror = readyMirror([user("u", "x")]);
    const junk: unknown[] = [undefined, 42, "events", { kind: "events" }, { kind: "messages", start: "0", messages: [] }, { kind: "state_patch" }, { kind: "nope" }];
    const warnings = captureWarnings(() => {
      for (const j of junk) mirror.handle(j);
    });
    assert.equal(warnings.length, junk.length);
    assert.deepEqual(ids(mirror), ["u"]);
  });

  it("never mutates the message objects it receives", () => {
    const shared = deepFreeze([user("u", "q"), { id: "a", role: "assistant", content: "x", toolCalls: [{ id: "c", type: "function", function: { name: "f", arguments: "" } }] }]) as Message[];
    const one = new Mirror("one");
    const two = new Mirror("two");
    for (const m of [one, two]) {
      m.handle(snapshot(shared));
      m.handle(events(ev.runStarted(), ev.textStart("a"), ev.text("a", "y"), ev.toolArgs("c", "{}"), ev.toolResult("t", "c", "r")));
    }
    assert.equal(one.message("a")?.role === "assistant" && one.message("a")?.content, "xy");
    assert.equal(two.toolCall("c")?.function.arguments, "{}");
    assert.equal(shared[1]?.role === "assistant" && shared[1].content, "x");
  });

  it("a listener that throws does not stop the others", () => {
    const mirror = readyMirror();
    let reached = false;
    mirror.subscribe("list", () => {
      throw new Error("bad listener");
    });
    mirror.subscribe("list", () => {
      reached = true;
    });
    captureWarnings(() => mirror.handle(events(ev.runStarted(), ev.textStart("a"))));
    assert.equal(reached, true);
  });
});
