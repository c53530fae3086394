/**
 * What a tool call card says about its call: one state, read from everything the view knows (the
 * call's result, what the chat waits for, who runs a frontend handler, the latest run's outcome),
 * so the badge never passes through a wrong state while the kernel's messages arrive one by one.
 */
import { isObject, type ToolSpec } from "../kernel/wire";

export type CallState =
  /** the arguments are still arriving */
  | "streaming"
  /** a backend tool or a browser handler is at work */
  | "running"
  /** the user is asked to answer or approve */
  | "waiting"
  /** a browser handler of this call runs in another tab */
  | "elsewhere"
  /** a Python tool: the kernel runs the function */
  | "kernel"
  | "done"
  | "failed"
  /** a Stop (or a failed run) cut the call short: the kernel answered it `error: "cancelled"` */
  | "stopped"
  /** the user said no to it */
  | "denied"
  /** history: no result, nothing pending, nothing running */
  | "called";

export const STATE_LABEL: Record<CallState, string> = {
  streaming: "streaming",
  running: "running",
  waiting: "waiting for you",
  elsewhere: "in another tab",
  kernel: "running in the kernel",
  done: "done",
  failed: "failed",
  stopped: "stopped",
  denied: "denied",
  called: "no result",
};

export type Decision = "approved" | "denied";

export type CallFacts = {
  callId: string;
  streaming: boolean;
  /** the tool message answering the call */
  result?: { content?: unknown; error?: unknown } | undefined;
  /** the frontend tool's kind, null for a backend tool */
  ui: ToolSpec["ui"] | null;
  /** what `pending` holds for this call */
  pending: "tool" | "interrupt" | null;
  /** a Python tool's call, as `pending` says: waiting for approval, or running in the kernel */
  kernel?: "approve" | "running" | null;
  /** the Python tool asks for approval before each call */
  approve?: boolean;
  handledElsewhere: boolean;
  runningHere: boolean;
  /** what a view of this page answered, when one did */
  decision: Decision | null;
  /** the call asked for approval (a confirm tool, or an interrupt about it) */
  askedApproval: boolean;
  /** the call belongs to the latest turn (after the last user message) */
  latestTurn: boolean;
  /** the `status` trait is running or waiting */
  chatBusy: boolean;
  runActive: boolean;
  /** the latest RUN_FINISHED outcome */
  outcome: unknown;
  /** the user's "Run in kernel" runs the call's code now (its message's `code_run` mark) */
  codeRunning?: boolean;
};

export function callStateOf(f: CallFacts): CallState {
  if (f.result) {
    const error = typeof f.result.error === "string" ? f.result.error : "";
    if (error === "cancelled") return "stopped";
    if (f.decision === "denied") return "denied";
    if (f.decision !== "approved" && f.askedApproval && deniedByResult(f.result.content)) return "denied";
    if (error !== "" || failureOf(f.result.content) !== "") return "failed";
    return "done";
  }
  if (f.codeRunning) return "kernel";
  const byHandler = f.ui === "handler";
  const inKernel = f.ui === "kernel";
  if (f.pending === "interrupt") return "waiting";
  if (f.pending === "tool" && inKernel) return f.kernel === "approve" ? "waiting" : "kernel";
  if (f.pending === "tool") return byHandler ? (f.handledElsewhere ? "elsewhere" : "running") : "waiting";
  if (f.runningHere) return "running";
  // A browser tool reads "running" from its first event: nothing is asked of the user.
  if (f.streaming) return byHandler ? "running" : "streaming";
  if (f.decision === "denied") return "denied"; // answered here; the result is on its way
  if (f.latestTurn) {
    // Between RUN_FINISHED and the `pending` trait (or the cancelled answers of a Stop) the
    // outcome already says what comes next.
    if (!f.runActive) {
      const outcome = isObject(f.outcome) ? f.outcome : {};
      if (outcome.type === "cancelled") return "stopped";
      if (outcome.type === "interrupt" && Array.isArray(outcome.interrupts)) {
        if (outcome.interrupts.some((i) => isObject(i) && i.toolCallId === f.callId)) return "waiting";
      }
      if (outcome.type === "success" && Array.isArray(outcome.pendingToolCallIds) && outcome.pendingToolCallIds.includes(f.callId)) {
        if (inKernel) return f.approve ? "waiting" : "kernel";
        return byHandler ? "running" : "waiting";
      }
    }
    // A Python tool runs in the kernel once approved (or at once); an approved call runs next; a
    // frontend tool nobody answered yet waits for the user.
    if (inKernel && (f.runActive || f.chatBusy)) return f.approve && f.decision === null ? "waiting" : "kernel";
    if (f.runActive || f.chatBusy) return f.ui !== null && !byHandler && f.decision === null ? "waiting" : "running";
  }
  return "called";
}

/** Words an agent or a framework uses to report that the user said no. */
const DENIAL = /\b(den(?:y|ied|ial)|reject(?:ed|ion)?|declin(?:e|ed)|refused|not approved)\b/i;

function parsed(content: unknown): unknown {
  if (typeof content !== "string") return content;
  const trimmed = content.trim();
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[") && !trimmed.startsWith('"')) return content;
  try {
    return JSON.parse(trimmed);
  } catch {
    return content;
  }
}

/**
 * Does the result of a call that asked for approval say it was denied? A confirm tool answers
 * `{approved: false}`; after an interrupt the agent writes the result itself (the demo's
 * `{deleted: false, reason: "denied by the user"}`, LangChain's reject message), so its words count.
 */
export function deniedByResult(content: unknown): boolean {
  const value = parsed(content);
  if (typeof value === "string") return DENIAL.test(value);
  if (!isObject(value)) return false;
  if (value.approved === false || value.cancelled === true) return true;
  return ["reason", "message", "status", "error", "result"].some((key) => typeof value[key] === "string" && DENIAL.test(value[key] as string));
}

/** The error a result reports as `{error: "..."}` (what a browser handler that threw answers). */
export function failureOf(content: unknown): string {
  const value = parsed(content);
  if (!isObject(value) || value.ok === true) return "";
  return typeof value.error === "string" ? value.error : "";
}
