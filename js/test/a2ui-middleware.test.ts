// The A2UI convention, from @ag-ui/a2ui-middleware itself: the middleware runs here over a fake
// agent, and what it does is held to a2ui-middleware.json, which tests/test_a2ui.py holds the
// kernel (a user's action as a turn) and the demo agent (its form) to. So the kernel reports an
// action to any agent exactly as the middleware would, and the demo's surface is one the
// middleware would make of a tool's `{"a2ui_operations": [...]}` result. Its `toolResults` record what
// the middleware draws after each TOOL_CALL_RESULT of a stream (the results and the snapshots, in
// order), which tests/test_a2ui_tool_results.py holds the kernel's own step to.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, it } from "node:test";
import { AbstractAgent, EventType, type BaseEvent, type RunAgentInput } from "@ag-ui/client";
import { A2UIMiddleware } from "@ag-ui/a2ui-middleware";
import { Observable } from "rxjs";

const root = process.env.AGUI_JS_ROOT ?? process.cwd();
const fixture = JSON.parse(readFileSync(resolve(root, "test", "a2ui-middleware.json"), "utf8")) as {
  userAction: Record<string, unknown>;
  actionMessages: unknown[];
  demoOperations: unknown[];
  toolResults: { about: string; events: BaseEvent[]; drawn: unknown[] }[];
};

/** An agent that keeps each input it gets and answers with `events` between the run's start and end. */
class FakeAgent extends AbstractAgent {
  seen: RunAgentInput[] = [];
  constructor(private readonly events: BaseEvent[] = []) {
    super();
  }
  run(input: RunAgentInput): Observable<BaseEvent> {
    this.seen.push(input);
    return new Observable<BaseEvent>((sub) => {
      sub.next({ type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId } as BaseEvent);
      for (const e of this.events) sub.next(e);
      sub.next({ type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId } as BaseEvent);
      sub.complete();
    });
  }
}

function runThrough(agent: FakeAgent, input: RunAgentInput): Promise<BaseEvent[]> {
  const out: BaseEvent[] = [];
  return new Promise((done, fail) => {
    new A2UIMiddleware({}).run(input, agent).subscribe({ next: (e) => out.push(e), error: fail, complete: () => done(out) });
  });
}

function input(extra: Partial<RunAgentInput> = {}): RunAgentInput {
  const user = { id: "u1", role: "user", content: "a2ui" };
  return { threadId: "t", runId: "r", messages: [user], tools: [], context: [], state: {}, forwardedProps: {}, ...extra } as RunAgentInput;
}

/** Ids as `<id:n>` in order of first appearance, so two runs compare. */
function withIdsNumbered(messages: unknown): unknown {
  const ids = new Map<string, string>();
  const name = (id: string) => ids.get(id) ?? (ids.set(id, `<id:${ids.size}>`), ids.get(id)!);
  return JSON.parse(JSON.stringify(messages), (key, value) => ((key === "id" || key === "toolCallId") && typeof value === "string" ? name(value) : value));
}

describe("@ag-ui/a2ui-middleware's convention", () => {
  it("reports a user's action as a log_a2ui_event call and its result after the history", async () => {
    const agent = new FakeAgent();
    await runThrough(agent, input({ forwardedProps: { a2uiAction: { userAction: fixture.userAction } } }));
    const received = agent.seen[0]!.messages;
    assert.equal(received[0]!.id, "u1");
    assert.deepEqual(withIdsNumbered(received.slice(1)), fixture.actionMessages);
  });

  it("makes a tool's a2ui_operations result an a2ui-surface activity snapshot, the demo's shape", async () => {
    const call = "call-1";
    const agent = new FakeAgent([
      { type: EventType.TOOL_CALL_START, toolCallId: call, toolCallName: "show_form" } as BaseEvent,
      { type: EventType.TOOL_CALL_END, toolCallId: call } as BaseEvent,
      { type: EventType.TOOL_CALL_RESULT, messageId: "m1", toolCallId: call, content: JSON.stringify({ a2ui_operations: fixture.demoOperations }) } as BaseEvent,
    ]);
    const events = await runThrough(agent, input());
    const snapshots = events.filter((e) => e.type === EventType.ACTIVITY_SNAPSHOT);
    assert.deepEqual(snapshots, [
      { type: EventType.ACTIVITY_SNAPSHOT, messageId: `a2ui-surface-${call}`, activityType: "a2ui-surface", content: { a2ui_operations: fixture.demoOperations }, replace: true },
    ]);
  });

  for (const scenario of fixture.toolResults) {
    it(`draws the surfaces of a tool's result: ${scenario.about}`, async () => {
      const events = await runThrough(new FakeAgent(scenario.events), input());
      const drawn = events
        .filter((e) => e.type === EventType.TOOL_CALL_RESULT || e.type === EventType.ACTIVITY_SNAPSHOT)
        .map((e) => (e.type === EventType.TOOL_CALL_RESULT ? { type: e.type, toolCallId: (e as BaseEvent & { toolCallId: string }).toolCallId } : e));
      assert.deepEqual(drawn, scenario.drawn);
    });
  }
});
