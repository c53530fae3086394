/** Shared helpers for the unit tests (bundled into each test file by scripts/run-tests.mjs). */
import { Mirror } from "../src/mirror/mirror";
import type { AguiEvent, Message } from "../src/kernel/wire";

/** Freezes a value deeply, so a test fails if the code under test mutates what it was given. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/** Runs `fn` with console.warn captured; returns what was warned. */
export function captureWarnings(fn: () => void): string[] {
  const seen: string[] = [];
  const original = console.warn;
  console.warn = (...args: unknown[]) => {
    seen.push(args.map((a) => (a instanceof Error ? a.message : typeof a === "string" ? a : JSON.stringify(a))).join(" "));
  };
  try {
    fn();
  } finally {
    console.warn = original;
  }
  return seen;
}

export const snapshot = (messages: Message[] = [], state: unknown = {}, events: unknown[] = [], viewId: string | null = null) =>
  deepFreeze({ kind: "snapshot", viewId, messages, state, events });

/** An `events` message as the kernel sends it; `times` is [] (unknown), as from an older kernel. */
export const events = (...list: unknown[]) => deepFreeze({ kind: "events", events: list, times: [] });

/** A mirror that already has an (empty, or given) snapshot. */
export function readyMirror(messages: Message[] = [], state: unknown = {}): Mirror {
  const mirror = new Mirror("view-1");
  mirror.handle(snapshot(messages, state));
  return mirror;
}

export const ev = {
  runStarted: (runId = "r1", threadId = "t1"): AguiEvent => ({ type: "RUN_STARTED", threadId, runId }),
  runFinished: (runId = "r1", threadId = "t1"): AguiEvent => ({ type: "RUN_FINISHED", threadId, runId }),
  runError: (message: string): AguiEvent => ({ type: "RUN_ERROR", message }),
  textStart: (messageId: string, role: "assistant" | "user" = "assistant"): AguiEvent => ({ type: "TEXT_MESSAGE_START", messageId, role }),
  text: (messageId: string, delta: string): AguiEvent => ({ type: "TEXT_MESSAGE_CONTENT", messageId, delta }),
  textEnd: (messageId: string): AguiEvent => ({ type: "TEXT_MESSAGE_END", messageId }),
  toolStart: (toolCallId: string, toolCallName: string, parentMessageId?: string): AguiEvent =>
    parentMessageId === undefined
      ? { type: "TOOL_CALL_START", toolCallId, toolCallName }
      : { type: "TOOL_CALL_START", toolCallId, toolCallName, parentMessageId },
  toolArgs: (toolCallId: string, delta: string): AguiEvent => ({ type: "TOOL_CALL_ARGS", toolCallId, delta }),
  toolEnd: (toolCallId: string): AguiEvent => ({ type: "TOOL_CALL_END", toolCallId }),
  toolResult: (messageId: string, toolCallId: string, content: string): AguiEvent => ({
    type: "TOOL_CALL_RESULT",
    messageId,
    toolCallId,
    content,
  }),
};

/** Records which messages and topics each kernel message touched. */
export function recordChanges(mirror: Mirror): Array<{ topics: string[]; messages: string[] }> {
  const log: Array<{ topics: string[]; messages: string[] }> = [];
  mirror.onChange((c) => log.push({ topics: [...c.topics].sort(), messages: [...c.messages].sort() }));
  return log;
}

/** A run's record as the kernel writes it: header, run, then `[t, event]` pairs. */
export function recordText(runId: string, timed: Array<[number, AguiEvent]>, input: Record<string, unknown> = {}): string {
  const lines = [
    { kind: "recording", version: 1, recorded: "2025-01-01T00:00:00.000+00:00", label: null, agent: "DemoAgent", tools: [] },
    {
      kind: "run",
      started: "2025-01-01T00:00:00.000+00:00",
      input: { threadId: "t1", runId, state: {}, messages: [], tools: [], context: [], forwardedProps: {}, ...input },
    },
    ...timed.map(([t, event]) => ({ kind: "event", t, event })),
  ];
  return lines.map((line) => `${JSON.stringify(line)}\n`).join("");
}
