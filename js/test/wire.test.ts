import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  checkEvent,
  parseKernelMessage,
  parsePending,
  parseQueued,
  parseStatus,
  parseToolSpecs,
  parseTrait,
} from "../src/kernel/wire";
import { captureWarnings } from "./helpers";

describe("parseKernelMessage", () => {
  const valid: unknown[] = [
    { kind: "snapshot", viewId: "v1", messages: [{ id: "m1", role: "user", content: "hi" }], state: {}, events: [] },
    { kind: "snapshot", viewId: null, messages: [], state: null, events: [{ type: "RUN_STARTED", threadId: "t", runId: "r" }] },
    { kind: "events", events: [{ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "x" }] },
    { kind: "events", events: [] },
    { kind: "messages", start: 0, messages: [] },
    { kind: "messages", start: 3, messages: [{ id: "a", role: "assistant", toolCalls: [{ id: "c", type: "function", function: { name: "f", arguments: "" } }] }] },
    { kind: "state_patch", patch: [{ op: "add", path: "/a", value: 1 }] },
    { kind: "check", count: 2, start: 1, tail: [["m2", "assistant", 5]] },
    { kind: "check", count: 0, start: 0, tail: [] },
    { kind: "notice", level: "warning", text: "refused" },
  ];

  for (const msg of valid) {
    it(`accepts ${JSON.stringify(msg).slice(0, 70)}`, () => {
      const warnings = captureWarnings(() => assert.deepEqual(parseKernelMessage(msg), msg));
      assert.deepEqual(warnings, []);
    });
  }

  const malformed: Array<[string, unknown]> = [
    ["not an object", "snapshot"],
    ["null", null],
    ["a list", [1, 2]],
    ["no kind", { viewId: null }],
    ["an unknown kind", { kind: "explode" }],
    ["a snapshot with a numeric viewId", { kind: "snapshot", viewId: 3, messages: [], state: {}, events: [] }],
    ["a snapshot without state", { kind: "snapshot", viewId: null, messages: [], events: [] }],
    ["a snapshot with a message without id", { kind: "snapshot", viewId: null, messages: [{ role: "user" }], state: {}, events: [] }],
    ["a snapshot whose events is not a list", { kind: "snapshot", viewId: null, messages: [], state: {}, events: {} }],
    ["events that is not a list", { kind: "events", events: "x" }],
    ["an event without a type", { kind: "events", events: [{ messageId: "m" }] }],
    ["a splice with a negative start", { kind: "messages", start: -1, messages: [] }],
    ["a splice with a fractional start", { kind: "messages", start: 1.5, messages: [] }],
    ["a splice with bad tool calls", { kind: "messages", start: 0, messages: [{ id: "a", role: "assistant", toolCalls: "x" }] }],
    ["a state_patch that is not a list", { kind: "state_patch", patch: { op: "add" } }],
    ["a check with a bad tail entry", { kind: "check", count: 1, start: 0, tail: [["m", "user"]] }],
    ["a check without count", { kind: "check", start: 0, tail: [] }],
    ["a notice with an unknown level", { kind: "notice", level: "fatal", text: "x" }],
    ["a notice without text", { kind: "notice", level: "info" }],
  ];

  for (const [what, msg] of malformed) {
    it(`ignores ${what}, with a warning and without throwing`, () => {
      let result: unknown = "unset";
      const warnings = captureWarnings(() => {
        result = parseKernelMessage(msg);
      });
      assert.equal(result, null);
      assert.equal(warnings.length, 1);
      assert.match(warnings[0] as string, /agui-widget/);
    });
  }
});

describe("checkEvent", () => {
  it("accepts well-formed events, with absent or null optional fields", () => {
    const good = [
      { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" },
      { type: "TEXT_MESSAGE_START", messageId: "m", role: null, name: null },
      { type: "TOOL_CALL_START", toolCallId: "c", toolCallName: "f", parentMessageId: null },
      { type: "TOOL_CALL_RESULT", messageId: "t", toolCallId: "c", content: [{ type: "text", text: "x" }] },
      { type: "STATE_SNAPSHOT", snapshot: null },
      { type: "STATE_DELTA", delta: [] },
      { type: "MESSAGES_SNAPSHOT", messages: [{ id: "a", role: "user", content: "x" }] },
      { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "success" } },
      { type: "RUN_ERROR", message: "boom" },
      { type: "CUSTOM", name: "x", value: 1 },
      { type: "RAW", event: {} },
      { type: "SOMETHING_NEW", whatever: true },
    ];
    for (const e of good) assert.equal(checkEvent(e), null, JSON.stringify(e));
  });

  it("names what is wrong with a malformed event", () => {
    assert.match(checkEvent({ type: "TEXT_MESSAGE_CONTENT", messageId: "m" }) ?? "", /delta/);
    assert.match(checkEvent({ type: "TOOL_CALL_START", toolCallId: "c" }) ?? "", /toolCallName/);
    assert.match(checkEvent({ type: "STATE_SNAPSHOT" }) ?? "", /snapshot/);
    assert.match(checkEvent({ type: "STATE_DELTA", delta: {} }) ?? "", /delta/);
    assert.match(checkEvent({ type: "MESSAGES_SNAPSHOT", messages: [{ role: "user" }] }) ?? "", /messages/);
    assert.match(checkEvent({ type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: "success" }) ?? "", /outcome/);
    assert.match(checkEvent({ type: 3 }) ?? "", /type/);
    assert.match(checkEvent("x") ?? "", /object/);
  });
});

describe("trait guards", () => {
  it("parses status, falling back to idle", () => {
    assert.equal(parseStatus("running"), "running");
    assert.equal(parseStatus("waiting"), "waiting");
    const warnings = captureWarnings(() => assert.equal(parseStatus("exploded"), "idle"));
    assert.equal(warnings.length, 1);
    assert.equal(parseStatus(undefined), "idle");
  });

  it("keeps the well-formed pending entries and drops the others", () => {
    let pending: ReturnType<typeof parsePending> = [];
    const warnings = captureWarnings(() => {
      pending = parsePending([
        { kind: "tool", toolCallId: "c1", name: "ask_user", args: { question: "?" }, argsText: '{"question":"?"}' },
        { kind: "interrupt", interruptId: "i1", reason: "approval", message: null, toolCallId: null, name: null, args: null, responseSchema: null },
        { kind: "tool", name: "no id" },
        { kind: "mystery" },
        "x",
      ]);
    });
    assert.equal(pending.length, 2);
    assert.equal(warnings.length, 3);
    assert.deepEqual(pending[0], { kind: "tool", toolCallId: "c1", name: "ask_user", args: { question: "?" }, argsText: '{"question":"?"}', claimedBy: null, kernel: null });
    assert.equal(pending[1]?.kind, "interrupt");
  });

  it("fills in what a pending entry may omit with its declared default", () => {
    const [tool] = parsePending([{ kind: "tool", toolCallId: "c", name: "f", args: { a: 1 } }]);
    assert.deepEqual(tool, { kind: "tool", toolCallId: "c", name: "f", args: { a: 1 }, argsText: "", claimedBy: null, kernel: null });
    const [interrupt] = parsePending([{ kind: "interrupt", interruptId: "i" }]);
    assert.deepEqual(interrupt, {
      kind: "interrupt",
      interruptId: "i",
      reason: "",
      message: null,
      toolCallId: null,
      name: null,
      args: null,
      responseSchema: null,
    });
  });

  it("parses tool specs: what is missing is the declared default, an unknown ui is refused", () => {
    let specs: ReturnType<typeof parseToolSpecs> = [];
    const warnings = captureWarnings(() => {
      specs = parseToolSpecs([
        { name: "paint", description: "d", parameters: {}, ui: "handler", handler: "return 1", approve: false },
        { name: "plain" },
        { name: "odd", ui: "hologram" },
      ]);
    });
    assert.deepEqual(specs, [
      { name: "paint", description: "d", parameters: {}, ui: "handler", handler: "return 1", approve: false, appUri: null },
      { name: "plain", description: "", parameters: {}, ui: "manual", handler: null, approve: false, appUri: null },
    ]);
    assert.equal(warnings.length, 1);
    assert.match(String(warnings[0]), /frontend_tools/);
  });

  it("parses queued messages and text traits", () => {
    assert.deepEqual(parseQueued([{ id: "q", text: "later" }]), [{ id: "q", text: "later" }]);
    captureWarnings(() => assert.deepEqual(parseQueued("nope"), []));
    assert.equal(parseTrait("error", "boom"), "boom");
    assert.equal(parseTrait("run_id", null), "");
    assert.deepEqual(parseTrait("pending", undefined), []);
  });
});
