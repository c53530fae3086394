/**
 * The widget wire, view side: every message of docs/wire.md declared once, plus runtime guards
 * for what the kernel sends (custom messages and synced traitlets).
 *
 * A guard never throws: a malformed payload is logged with console.warn and ignored (or, for a
 * trait, replaced by its empty value). AG-UI types come from `@ag-ui/core` as types only, so
 * nothing of that package ends up in the bundle.
 */
import type * as core from "@ag-ui/core";
import { preview, warn } from "./log";

// ---------------------------------------------------------------------------------------------
// AG-UI vocabulary, as it travels (camelCase JSON, `type` as a plain string)
// ---------------------------------------------------------------------------------------------

export type Message = core.Message;
export type Role = Message["role"];
export type ToolCall = core.ToolCall;
export type ContentPart = core.ContentPart;
export type JsonPatchOperation = core.JsonPatchOperation;
export type JsonPatch = core.JsonPatch;

/** `@ag-ui/core` types `type` as an enum member; on the wire it is that member's string. */
type Plain<E> = E extends { type: infer T extends string } ? Omit<E, "type"> & { type: `${T}` } : never;

/** One AG-UI event as the kernel sends it. */
export type AguiEvent = Plain<core.Event>;
export type AguiEventType = AguiEvent["type"];
export type EventOf<T extends AguiEventType> = Extract<AguiEvent, { type: T }>;

// ---------------------------------------------------------------------------------------------
// View -> kernel (requests)
// ---------------------------------------------------------------------------------------------

export type HelloRequest = { kind: "hello"; viewId: string };
export type SendRequest = { kind: "send"; text: string };
export type StopRequest = { kind: "stop" };
export type ToolResultRequest = { kind: "tool_result"; toolCallId: string; result: unknown };
/** This view will run a frontend tool's handler; the first claim wins (`takeOver` takes it). */
export type ClaimRequest = { kind: "claim"; toolCallId: string; viewId: string; takeOver?: boolean };
export type ResumeRequest = {
  kind: "resume";
  interruptId: string;
  status: "resolved" | "cancelled";
  payload?: unknown;
};
export type StateEditRequest = { kind: "state_edit"; patch: JsonPatch };
export type ClearRequest = { kind: "clear" };
export type RegenerateRequest = { kind: "regenerate" };
export type EditRequest = { kind: "edit"; messageId: string; text: string };
export type SelectAgentRequest = { kind: "select_agent"; name: string };
/** Asks for a file the view loads on demand (the chart renderer); answered by an `asset` message. */
export type AssetRequest = { kind: "asset"; name: "vega" };

export type ViewRequest =
  | HelloRequest
  | SendRequest
  | StopRequest
  | ToolResultRequest
  | ClaimRequest
  | ResumeRequest
  | StateEditRequest
  | ClearRequest
  | RegenerateRequest
  | EditRequest
  | SelectAgentRequest
  | AssetRequest;

// ---------------------------------------------------------------------------------------------
// Kernel -> view
// ---------------------------------------------------------------------------------------------

export type SnapshotMessage = {
  kind: "snapshot";
  viewId: string | null;
  messages: Message[];
  state: unknown;
  /** The tail of the kernel's event log (for the inspector); already reflected in `messages`. */
  events: AguiEvent[];
};
export type EventsMessage = { kind: "events"; events: AguiEvent[] };
export type MessagesSplice = { kind: "messages"; start: number; messages: Message[] };
export type StatePatchMessage = { kind: "state_patch"; patch: JsonPatch };
/** One transcript entry as `check` describes it: id, role, content length in UTF-16 code units
 * (-1 when the content is not a string). */
export type CheckEntry = [id: string, role: string, length: number];
/** `state`: the fingerprint of the kernel's shared state (./fingerprint.ts), to compare with this copy's. */
export type CheckMessage = { kind: "check"; count: number; start: number; tail: CheckEntry[]; state?: number };
export type NoticeLevel = "info" | "warning" | "error";
export type NoticeMessage = { kind: "notice"; level: NoticeLevel; text: string };
/** A MIME bundle (`{"image/png": base64, "text/plain": ...}`), as Jupyter outputs carry. */
export type MimeBundle = Record<string, unknown>;
/** What a Python renderer made of a tool call (`tool:<id>`) or of the state (`state:<n>`);
 * bundle and error both null removes it. `after`: the message a state render follows. */
export type RenderMessage = { kind: "render"; key: string; bundle: MimeBundle | null; error: string | null; after: string | null };
/** The answer to an `asset` request: the file's text, or why there is none. */
export type AssetMessage = { kind: "asset"; name: string; source: string | null; error: string | null };

export type KernelMessage =
  | SnapshotMessage
  | EventsMessage
  | MessagesSplice
  | StatePatchMessage
  | CheckMessage
  | NoticeMessage
  | RenderMessage
  | AssetMessage;

// ---------------------------------------------------------------------------------------------
// Synced traitlets
// ---------------------------------------------------------------------------------------------

export type Status = "idle" | "running" | "waiting" | "error";

export type PendingTool = {
  kind: "tool";
  toolCallId: string;
  name: string;
  args: unknown;
  argsText: string;
  /** the view that runs its handler, once one claimed it */
  claimedBy: string | null;
};
export type PendingInterrupt = {
  kind: "interrupt";
  interruptId: string;
  reason: string;
  message: string | null;
  toolCallId: string | null;
  name: string | null;
  args: unknown;
  responseSchema: Record<string, unknown> | null;
};
export type Pending = PendingTool | PendingInterrupt;

export type QueuedMessage = { id: string; text: string };

export type ToolUi = "handler" | "confirm" | "ask" | "form" | "manual";
export type ToolSpec = {
  name: string;
  description: string;
  parameters: unknown;
  ui: ToolUi;
  /** The body of an async function `(args, ctx)`; JavaScript source, only when ui == "handler". */
  handler: string | null;
};

export type Traits = {
  status: Status;
  thread_id: string;
  run_id: string;
  pending: Pending[];
  queued: QueuedMessage[];
  frontend_tools: ToolSpec[];
  error: string;
  agent_names: string[];
  agent_name: string;
  suggestions: Suggestion[];
  suggestions_after: string;
  predict_state: PredictRule[];
  saved_output_id: string;
  /** the chat's height as a CSS length ("" for the view's default) */
  height: string;
};
export type Suggestion = { title: string; message: string };
export type PredictRule = { state_key: string; tool: string; tool_argument?: string };

/**
 * One predictive-state rule, or null when `entry` is not one. The trait carries snake_case; an
 * agent's `PredictState` event may write camelCase, which the kernel accepts too (_predict.py), so
 * both sides accept and refuse the same rules.
 */
export function parsePredictRule(entry: unknown): PredictRule | null {
  if (!isObject(entry)) return null;
  const key = "state_key" in entry ? entry.state_key : entry.stateKey;
  const argument = "tool_argument" in entry ? entry.tool_argument : entry.toolArgument;
  const tool = entry.tool;
  if (!isStr(key) || key === "" || !isStr(tool) || tool === "" || !isOptStr(argument)) return null;
  return isStr(argument) ? { state_key: key, tool, tool_argument: argument } : { state_key: key, tool };
}
export type TraitName = keyof Traits;
export const TRAIT_NAMES: readonly TraitName[] = [
  "status",
  "thread_id",
  "run_id",
  "pending",
  "queued",
  "frontend_tools",
  "error",
  "agent_names",
  "agent_name",
  "suggestions",
  "suggestions_after",
  "predict_state",
  "saved_output_id",
  "height",
];

// ---------------------------------------------------------------------------------------------
// Guards
// ---------------------------------------------------------------------------------------------

type Obj = Record<string, unknown>;

export function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const isStr = (v: unknown): v is string => typeof v === "string";
/** Optional on the wire: absent, or null (pydantic dumps unset optionals as null). */
const isOptStr = (v: unknown): boolean => v === undefined || v === null || typeof v === "string";

/** A message is usable when it has a string id and a string role; the rest is read defensively. */
export function isMessage(value: unknown): value is Message {
  if (!isObject(value) || !isStr(value.id) || !isStr(value.role)) return false;
  const toolCalls = value.toolCalls;
  if (toolCalls !== undefined && toolCalls !== null) {
    if (!Array.isArray(toolCalls)) return false;
    for (const call of toolCalls) {
      if (!isObject(call) || !isStr(call.id) || !isObject(call.function)) return false;
    }
  }
  return true;
}

function checkMessages(value: unknown): string | null {
  if (!Array.isArray(value)) return "messages is not a list";
  for (let i = 0; i < value.length; i++) {
    if (!isMessage(value[i])) return `messages[${i}] is not a message: ${preview(value[i], 120)}`;
  }
  return null;
}

/**
 * Field rules per event type, for the fields the view reads. `s`: string; `s?`: optional
 * string; `a`: list; `o`: object; `o?`: optional object; `b?`: optional boolean; `*`: present
 * (any JSON value, null included); `c`: text or a list of content parts; `m`: messages.
 */
type Rule = "s" | "s?" | "a" | "o" | "o?" | "b?" | "*" | "c" | "m";
const EVENT_RULES: Record<AguiEventType, Record<string, Rule>> = {
  TEXT_MESSAGE_START: { messageId: "s", role: "s?", name: "s?" },
  TEXT_MESSAGE_CONTENT: { messageId: "s", delta: "s" },
  TEXT_MESSAGE_END: { messageId: "s" },
  TEXT_MESSAGE_CHUNK: { messageId: "s?", role: "s?", delta: "s?", name: "s?" },
  TOOL_CALL_START: { toolCallId: "s", toolCallName: "s", parentMessageId: "s?" },
  TOOL_CALL_ARGS: { toolCallId: "s", delta: "s" },
  TOOL_CALL_END: { toolCallId: "s" },
  TOOL_CALL_CHUNK: { toolCallId: "s?", toolCallName: "s?", parentMessageId: "s?", delta: "s?" },
  TOOL_CALL_RESULT: { messageId: "s", toolCallId: "s", content: "c" },
  STATE_SNAPSHOT: { snapshot: "*" },
  STATE_DELTA: { delta: "a" },
  MESSAGES_SNAPSHOT: { messages: "m" },
  ACTIVITY_SNAPSHOT: { messageId: "s", activityType: "s", content: "o", replace: "b?" },
  ACTIVITY_DELTA: { messageId: "s", activityType: "s", patch: "a" },
  RAW: {},
  CUSTOM: { name: "s" },
  RUN_STARTED: { threadId: "s", runId: "s" },
  RUN_FINISHED: { threadId: "s", runId: "s", outcome: "o?" },
  RUN_ERROR: { message: "s", code: "s?" },
  STEP_STARTED: { stepName: "s" },
  STEP_FINISHED: { stepName: "s" },
  REASONING_START: { messageId: "s" },
  REASONING_MESSAGE_START: { messageId: "s", role: "s?" },
  REASONING_MESSAGE_CONTENT: { messageId: "s", delta: "s" },
  REASONING_MESSAGE_END: { messageId: "s" },
  REASONING_MESSAGE_CHUNK: { messageId: "s?", delta: "s?" },
  REASONING_END: { messageId: "s" },
  REASONING_ENCRYPTED_VALUE: { subtype: "s", entityId: "s", encryptedValue: "s" },
  SUBAGENT_STARTED: { subagentRunId: "s", name: "s" },
  SUBAGENT_FINISHED: { subagentRunId: "s" },
  SUBAGENT_ERROR: { subagentRunId: "s", message: "s" },
};

function checkRule(value: unknown, rule: Rule, present: boolean): boolean {
  switch (rule) {
    case "s":
      return isStr(value);
    case "s?":
      return isOptStr(value);
    case "a":
      return Array.isArray(value);
    case "o":
      return isObject(value);
    case "o?":
      return value === undefined || value === null || isObject(value);
    case "b?":
      return value === undefined || value === null || typeof value === "boolean";
    case "*":
      return present;
    case "c":
      return isStr(value) || Array.isArray(value);
    case "m":
      return checkMessages(value) === null;
  }
}

/** True for the event types this version of the view knows. */
export function isKnownEventType(type: string): type is AguiEventType {
  return Object.prototype.hasOwnProperty.call(EVENT_RULES, type);
}

/**
 * Why `value` is not a usable event, or null when it is. An event of a type this view does not
 * know passes (it is kept for the inspector and otherwise ignored: newer kernels may send more).
 */
export function checkEvent(value: unknown): string | null {
  if (!isObject(value)) return "an event is not an object";
  const type = value.type;
  if (!isStr(type)) return "an event has no string `type`";
  if (!isKnownEventType(type)) return null;
  const rules = EVENT_RULES[type];
  for (const field in rules) {
    const rule = rules[field] as Rule;
    if (!checkRule(value[field], rule, field in value)) {
      return `${type}: bad or missing \`${field}\``;
    }
  }
  return null;
}

export function isEvent(value: unknown): value is AguiEvent {
  return checkEvent(value) === null;
}

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;

function checkKernelMessage(raw: Obj): string | null {
  switch (raw.kind) {
    case "snapshot": {
      if (!(raw.viewId === null || isStr(raw.viewId))) return "viewId must be a string or null";
      const bad = checkMessages(raw.messages);
      if (bad) return bad;
      if (!("state" in raw)) return "state is missing";
      if (!Array.isArray(raw.events)) return "events is not a list";
      return null;
    }
    case "events": {
      if (!Array.isArray(raw.events)) return "events is not a list";
      for (let i = 0; i < raw.events.length; i++) {
        const e = raw.events[i];
        if (!isObject(e) || !isStr(e.type)) return `events[${i}] has no string type`;
      }
      return null;
    }
    case "messages":
      if (!isCount(raw.start)) return "start must be a non-negative integer";
      return checkMessages(raw.messages);
    case "state_patch":
      return Array.isArray(raw.patch) ? null : "patch is not a list";
    case "check": {
      if (!isCount(raw.count)) return "count must be a non-negative integer";
      if (!isCount(raw.start)) return "start must be a non-negative integer";
      if (!Array.isArray(raw.tail)) return "tail is not a list";
      if (raw.state !== undefined && !(Number.isInteger(raw.state) && (raw.state as number) >= 0)) return "state must be a fingerprint (an unsigned integer)";
      for (let i = 0; i < raw.tail.length; i++) {
        const entry = raw.tail[i];
        if (!Array.isArray(entry) || entry.length !== 3 || !isStr(entry[0]) || !isStr(entry[1]) || !Number.isInteger(entry[2])) {
          return `tail[${i}] is not [id, role, length]`;
        }
      }
      return null;
    }
    case "render":
      if (!isStr(raw.key)) return "key is not a string";
      if (!(raw.bundle === null || isObject(raw.bundle))) return "bundle must be an object or null";
      if (!isOptStr(raw.error) || !isOptStr(raw.after)) return "error and after must be strings or null";
      return null;
    case "asset":
      if (!isStr(raw.name)) return "name is not a string";
      if (!isOptStr(raw.source) || !isOptStr(raw.error)) return "source and error must be strings or null";
      if (!isStr(raw.source) && !isStr(raw.error)) return "an asset answer needs a source or an error";
      return null;
    case "notice":
      if (raw.level !== "info" && raw.level !== "warning" && raw.level !== "error") {
        return "level must be info, warning or error";
      }
      return isStr(raw.text) ? null : "text is not a string";
    default:
      return `unknown kind ${preview(raw.kind, 40)}`;
  }
}

/**
 * Validates one custom message from the kernel. Returns it typed, or null (after a warning) when
 * it does not match docs/wire.md. The envelope of an `events` batch is checked here; each event
 * is checked on its own when applied, so one bad event does not cost the rest of its batch.
 */
export function parseKernelMessage(raw: unknown): KernelMessage | null {
  if (!isObject(raw)) {
    warn("ignored a kernel message that is not an object:", preview(raw));
    return null;
  }
  const problem = checkKernelMessage(raw);
  if (problem) {
    warn(`ignored a malformed kernel message (${problem}):`, preview(raw));
    return null;
  }
  return raw as unknown as KernelMessage;
}

// ---------------------------------------------------------------------------------------------
// Trait guards: always return a usable value
// ---------------------------------------------------------------------------------------------

const STATUSES: readonly Status[] = ["idle", "running", "waiting", "error"];
const TOOL_UIS: readonly ToolUi[] = ["handler", "confirm", "ask", "form", "manual"];

export function parseStatus(value: unknown): Status {
  if (STATUSES.includes(value as Status)) return value as Status;
  if (value !== undefined) warn("unknown status, shown as idle:", preview(value));
  return "idle";
}

export function parseText(value: unknown, name: string): string {
  if (typeof value === "string") return value;
  if (value !== undefined && value !== null) warn(`trait ${name} is not a string:`, preview(value));
  return "";
}

function parseList<T>(value: unknown, name: string, one: (entry: unknown) => T | null): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    warn(`trait ${name} is not a list:`, preview(value));
    return [];
  }
  const out: T[] = [];
  for (const entry of value) {
    const parsed = one(entry);
    if (parsed === null) warn(`ignored a malformed ${name} entry:`, preview(entry));
    else out.push(parsed);
  }
  return out;
}

const optStr = (v: unknown): string | null => (isStr(v) ? v : null);

function parsePendingEntry(entry: unknown): Pending | null {
  if (!isObject(entry)) return null;
  if (entry.kind === "tool") {
    if (!isStr(entry.toolCallId) || !isStr(entry.name)) return null;
    return {
      kind: "tool",
      toolCallId: entry.toolCallId,
      name: entry.name,
      args: entry.args ?? null,
      argsText: isStr(entry.argsText) ? entry.argsText : JSON.stringify(entry.args ?? null),
      claimedBy: optStr(entry.claimedBy),
    };
  }
  if (entry.kind === "interrupt") {
    if (!isStr(entry.interruptId)) return null;
    return {
      kind: "interrupt",
      interruptId: entry.interruptId,
      reason: isStr(entry.reason) ? entry.reason : "",
      message: optStr(entry.message),
      toolCallId: optStr(entry.toolCallId),
      name: optStr(entry.name),
      args: entry.args ?? null,
      responseSchema: isObject(entry.responseSchema) ? entry.responseSchema : null,
    };
  }
  return null;
}

export function parsePending(value: unknown): Pending[] {
  return parseList(value, "pending", parsePendingEntry);
}

export function parseQueued(value: unknown): QueuedMessage[] {
  return parseList(value, "queued", (entry) =>
    isObject(entry) && isStr(entry.id) && isStr(entry.text) ? { id: entry.id, text: entry.text } : null,
  );
}

export function parseToolSpecs(value: unknown): ToolSpec[] {
  return parseList(value, "frontend_tools", (entry) => {
    if (!isObject(entry) || !isStr(entry.name)) return null;
    const ui = TOOL_UIS.includes(entry.ui as ToolUi) ? (entry.ui as ToolUi) : "manual";
    return {
      name: entry.name,
      description: isStr(entry.description) ? entry.description : "",
      parameters: entry.parameters ?? {},
      ui,
      handler: optStr(entry.handler),
    };
  });
}

/** Parses one trait value by name. */
export function parseTrait<K extends TraitName>(name: K, value: unknown): Traits[K] {
  const parsers: { [N in TraitName]: (v: unknown) => Traits[N] } = {
    status: parseStatus,
    thread_id: (v) => parseText(v, "thread_id"),
    run_id: (v) => parseText(v, "run_id"),
    pending: parsePending,
    queued: parseQueued,
    frontend_tools: parseToolSpecs,
    error: (v) => parseText(v, "error"),
    agent_names: (v) => parseList(v, "agent_names", (e) => (isStr(e) && e !== "" ? e : null)),
    agent_name: (v) => parseText(v, "agent_name"),
    suggestions: (v) =>
      parseList(v, "suggestions", (e) => (isObject(e) && isStr(e.title) && isStr(e.message) ? { title: e.title, message: e.message } : null)),
    suggestions_after: (v) => parseText(v, "suggestions_after"),
    predict_state: (v) => parseList(v, "predict_state", parsePredictRule),
    saved_output_id: (v) => parseText(v, "saved_output_id"),
    height: (v) => parseText(v, "height"),
  };
  return parsers[name](value);
}
