/**
 * The widget wire, view side. Every message and trait payload is declared once, in Python
 * (agui_widget/wire/_requests.py, _wire_payloads.py); its TypeScript types and validators are generated from that
 * declaration (./generated/, `make wire`). This module gives them the names the view uses and
 * wraps the validators so that a malformed payload is logged with console.warn and ignored (or,
 * for a trait, replaced by its empty value): a guard never throws.
 *
 * AG-UI's own events are the protocol's vocabulary, not ours: the rules below check, per event
 * type, the fields the view reads, and let types this version does not know pass.
 */
import type { AguiEvent, AguiEventType, JsonPatch, Message } from "./agui";
import type * as generated from "./generated/wire";
import {
  type ValidationError,
  type Validator,
  validateAgentName,
  validateBranchPoint,
  validateCommandSpec,
  validateContextSummary,
  validateKernelMessage,
  validatePending,
  validatePredictRule,
  validateQueuedMessage,
  validateSuggestion,
  validateToolSpec,
  validateTrait_agent_name,
  validateTrait_assistant_name,
  validateTrait_context_window,
  validateTrait_avatars,
  validateTrait_placeholder,
  validateTrait_title,
  validateTrait_welcome,
  validateTrait_error,
  validateTrait_height,
  validateTrait_accent,
  validateTrait_revision,
  validateTrait_run_id,
  validateTrait_attachment_policy,
  validateTrait_saved_output_id,
  validateTrait_settings,
  validateTrait_setting_values,
  validateTrait_status,
  validateTrait_suggestions_after,
  validateTrait_thread_id,
} from "./generated/validators";
import { preview, warn } from "../util/log";

export type {
  AguiEvent,
  AguiEventType,
  ContentPart,
  EventOf,
  JsonPatch,
  JsonPatchOperation,
  Message,
  Role,
  ToolCall,
} from "./agui";

// ---------------------------------------------------------------------------------------------
// View -> kernel (requests) and kernel -> view, as declared in agui_widget/wire/_requests.py and _wire_payloads.py
// ---------------------------------------------------------------------------------------------

export type {
  CommandSpec,
  ContextSummary,
  AssetMessage,
  AssetRequest,
  CheckMessage,
  ClaimRequest,
  ClearRequest,
  EditRequest,
  EventsMessage,
  HelloRequest,
  KernelMessage,
  NoticeMessage,
  PendingInterrupt,
  PendingTool,
  QueuedMessage,
  RegenerateRequest,
  RenderMessage,
  ResumeRequest,
  RunRecordMessage,
  RunRecordRequest,
  SelectAgentRequest,
  SendRequest,
  SnapshotMessage,
  StateEditRequest,
  StatePatchMessage,
  StopRequest,
  Suggestion,
  ToolResultRequest,
  ToolSpec,
  VariableEntry,
  VariableMessage,
  VariablesMessage,
  ViewRequest,
} from "./generated/wire";

export type Pending = generated.Pending;
export type PredictRule = generated.PredictRule;
export type BranchPoint = generated.BranchPoint;
/** One transcript entry as `check` describes it: id, role, content length in UTF-16 code units
 * (-1 when the content is not a string). */
export type CheckEntry = generated.CheckMessage["tail"][number];
export type NoticeLevel = generated.NoticeMessage["level"];
/** A MIME bundle (`{"image/png": base64, "text/plain": ...}`), as Jupyter outputs carry. */
export type MimeBundle = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Synced traitlets
// ---------------------------------------------------------------------------------------------

export type Traits = generated.Traits;
export type AttachmentPolicy = Traits["attachment_policy"];
/** An attachment as a `send` request carries it: an AG-UI 1.0 media content part. */
export type MediaPart = NonNullable<generated.SendRequest["attachments"]>[number];
/** What a chat that says nothing of its attachment policy is taken to allow: nothing, until the
 * kernel's value arrives. */
export const NO_ATTACHMENTS: AttachmentPolicy = { enabled: false, accept: [], maxBytes: 1, maxFiles: 1, maxTotalBytes: 1 };
export type TraitName = keyof Traits;
export type Status = Traits["status"];
export type ToolUi = generated.ToolSpec["ui"];
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
  "title",
  "welcome",
  "placeholder",
  "avatars",
  "assistant_name",
  "context_window",
  "suggestions",
  "suggestions_after",
  "predict_state",
  "saved_output_id",
  "height",
  "accent",
  "agent_context",
  "attachment_policy",
  "settings",
  "setting_values",
  "branch_points",
];

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

type Obj = Record<string, unknown>;

export function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const isStr = (v: unknown): v is string => typeof v === "string";
/** Optional on the wire: absent, or null (pydantic dumps unset optionals as null). */
const isOptStr = (v: unknown): boolean => v === undefined || v === null || typeof v === "string";

/** Why a validator refused a value, in a few words (the first error Ajv found). */
function reason(errors: ValidationError[] | null | undefined): string {
  const first = errors?.[0];
  if (!first) return "it does not fit its declaration";
  const where = first.instancePath ? first.instancePath.slice(1).replaceAll("/", ".") : "the value";
  const params = Object.entries(first.params)
    .map(([key, value]) => `${key} ${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(", ");
  return `${where}: ${first.keyword}${params ? ` (${params})` : ""}`;
}

function validated<T>(validate: Validator, value: unknown): { ok: true; value: T } | { ok: false; why: string } {
  return validate(value) ? { ok: true, value: value as T } : { ok: false, why: reason(validate.errors) };
}

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

/**
 * Validates one custom message from the kernel against its declaration. Returns it typed, or null
 * (after a warning) when it does not fit. The envelope of an `events` batch is checked here; each
 * event is checked on its own when applied, so one bad event does not cost the rest of its batch.
 */
export function parseKernelMessage(raw: unknown): generated.KernelMessage | null {
  if (!isObject(raw)) {
    warn("ignored a kernel message that is not an object:", preview(raw));
    return null;
  }
  const result = validated<generated.KernelMessage>(validateKernelMessage, raw);
  if (!result.ok) {
    warn(`ignored a malformed kernel message (${preview(raw.kind, 40)}: ${result.why}):`, preview(raw));
    return null;
  }
  return result.value;
}

// ---------------------------------------------------------------------------------------------
// Trait parsers: always return a usable value
// ---------------------------------------------------------------------------------------------

function parseList<T>(value: unknown, name: string, validate: Validator): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    warn(`trait ${name} is not a list:`, preview(value));
    return [];
  }
  const out: T[] = [];
  for (const entry of value) {
    const result = validated<T>(validate, entry);
    if (result.ok) out.push(result.value);
    else warn(`ignored a malformed ${name} entry (${result.why}):`, preview(entry));
  }
  return out;
}

function parseScalar<T>(value: unknown, name: string, validate: Validator, empty: T): T {
  if (value === undefined || value === null) return empty;
  const result = validated<T>(validate, value);
  if (result.ok) return result.value;
  warn(`trait ${name} does not fit its declaration (${result.why}):`, preview(value));
  return empty;
}

export function parseStatus(value: unknown): Status {
  return parseScalar<Status>(value, "status", validateTrait_status, "idle");
}

export function parsePending(value: unknown): Pending[] {
  return parseList(value, "pending", validatePending);
}

export function parseQueued(value: unknown): generated.QueuedMessage[] {
  return parseList(value, "queued", validateQueuedMessage);
}

export function parseToolSpecs(value: unknown): generated.ToolSpec[] {
  return parseList(value, "frontend_tools", validateToolSpec);
}

/**
 * One predictive-state rule, or null when `entry` is not one. The trait carries the declared
 * camelCase rule; an agent's `PredictState` event may write snake_case (as AG-UI's examples do),
 * which the kernel accepts too (_predict.py), so both sides accept and refuse the same rules.
 */
export function parsePredictRule(entry: unknown): PredictRule | null {
  if (!isObject(entry)) return null;
  const key = "stateKey" in entry ? entry.stateKey : entry.state_key;
  const argument = "toolArgument" in entry ? entry.toolArgument : entry.tool_argument;
  const tool = entry.tool;
  if (!isStr(key) || key === "" || !isStr(tool) || tool === "" || !isOptStr(argument)) return null;
  const rule = { stateKey: key, tool, toolArgument: isStr(argument) ? argument : null };
  return validatePredictRule(rule) ? rule : null;
}

/** Parses one trait value by name. */
export function parseTrait<K extends TraitName>(name: K, value: unknown): Traits[K] {
  const text = (validate: Validator) => (v: unknown) => parseScalar<string>(v, name, validate, "");
  const parsers: { [N in TraitName]: (v: unknown) => Traits[N] } = {
    status: parseStatus,
    thread_id: text(validateTrait_thread_id),
    run_id: text(validateTrait_run_id),
    pending: parsePending,
    queued: parseQueued,
    frontend_tools: parseToolSpecs,
    error: text(validateTrait_error),
    agent_names: (v) => parseList(v, "agent_names", validateAgentName),
    agent_name: text(validateTrait_agent_name),
    title: text(validateTrait_title),
    welcome: text(validateTrait_welcome),
    placeholder: text(validateTrait_placeholder),
    avatars: (v) => parseScalar<Traits["avatars"]>(v, "avatars", validateTrait_avatars, {}),
    assistant_name: text(validateTrait_assistant_name),
    context_window: (v) => parseScalar<number | null>(v, "context_window", validateTrait_context_window, null),
    suggestions: (v) => parseList(v, "suggestions", validateSuggestion),
    suggestions_after: text(validateTrait_suggestions_after),
    predict_state: (v) => parseList(v, "predict_state", validatePredictRule),
    saved_output_id: text(validateTrait_saved_output_id),
    height: text(validateTrait_height),
    accent: text(validateTrait_accent),
    agent_context: (v) => parseList(v, "agent_context", validateContextSummary),
    commands: (v) => parseList(v, "commands", validateCommandSpec),
    attachment_policy: (v) => parseScalar<AttachmentPolicy>(v, "attachment_policy", validateTrait_attachment_policy, NO_ATTACHMENTS),
    revision: (v) => parseScalar<number>(v, "revision", validateTrait_revision, 0),
    settings: (v) => parseScalar<Traits["settings"]>(v, "settings", validateTrait_settings, {}),
    setting_values: (v) => parseScalar<Traits["setting_values"]>(v, "setting_values", validateTrait_setting_values, {}),
    branch_points: (v) => parseList(v, "branch_points", validateBranchPoint),
  };
  return parsers[name](value);
}
