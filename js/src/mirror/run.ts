/**
 * The run as the mirror knows it: whether one is active, its ids, its open and finished steps, its
 * error or outcome, whether it produced anything yet, and its sub-agents. Followed event by event
 * while the view is connected, and read back from the event log's tail after a snapshot (a view
 * that connects mid-run).
 */
import type { AguiEvent, EventOf } from "../kernel/wire";
import type { Changes } from "./changes";
import { widgetMark } from "./messages";
import { PREDICT_STATE_EVENT, type StatePrediction } from "./predict";
import type { Transcript } from "./transcript";

export type RunInfo = {
  /** between RUN_STARTED and RUN_FINISHED / RUN_ERROR */
  active: boolean;
  threadId: string;
  runId: string;
  /** RUN_ERROR's message for the latest run, "" otherwise */
  error: string;
  errorCode: string;
  /** open STEP_STARTED names, oldest first (steps marked `metadata.agui_widget.internal` are left out) */
  steps: string[];
  /** STEP_FINISHED names of this run, oldest first (the last STEPS_KEPT) */
  finishedSteps: string[];
  /** true once the active run produced a message, a tool call or reasoning */
  sawOutput: boolean;
  /** the RUN_FINISHED outcome of the latest run, when it had one */
  outcome: unknown;
};

/** A sub-agent run, from SUBAGENT_* events (nested events carry its `subagentRunId`). */
export type SubagentInfo = {
  id: string;
  name: string;
  description: string;
  status: "running" | "finished" | "error";
  error: string;
  parentToolCallId: string | null;
};

type SubagentEvent = EventOf<"SUBAGENT_STARTED"> | EventOf<"SUBAGENT_FINISHED"> | EventOf<"SUBAGENT_ERROR">;

/** How many finished steps a run remembers for the progress line. */
const STEPS_KEPT = 50;

/** The run info of a chat before its first run. */
export const NO_RUN: Readonly<RunInfo> = Object.freeze({
  active: false,
  threadId: "",
  runId: "",
  error: "",
  errorCode: "",
  steps: [],
  finishedSteps: [],
  sawOutput: false,
  outcome: undefined,
});

export class RunState {
  info: RunInfo = { ...NO_RUN, steps: [], finishedSteps: [] };
  readonly subagents = new Map<string, SubagentInfo>();

  constructor(private readonly changes: Changes) {}

  set(patch: Partial<RunInfo>): void {
    this.info = { ...this.info, ...patch };
    this.changes.touch("run");
  }

  started(e: EventOf<"RUN_STARTED">): void {
    this.info = { ...NO_RUN, active: true, threadId: e.threadId, runId: e.runId, steps: [], finishedSteps: [] };
    this.changes.touch("run");
  }

  /** The active run produced a message, a tool call or reasoning. */
  sawOutput(): void {
    if (this.info.active && !this.info.sawOutput) this.set({ sawOutput: true });
  }

  stepStarted(e: EventOf<"STEP_STARTED">): void {
    // A step the agent marks as its framework's plumbing stays in the log, not in the progress.
    if (widgetMark(e, "internal")) return;
    this.set({ steps: [...this.info.steps, e.stepName] });
  }

  stepFinished(e: EventOf<"STEP_FINISHED">): void {
    if (widgetMark(e, "internal")) return;
    this.set({
      steps: withoutLast(this.info.steps, e.stepName),
      finishedSteps: [...this.info.finishedSteps, e.stepName].slice(-STEPS_KEPT),
    });
  }

  subagentEvent(e: SubagentEvent): void {
    const known = this.subagents.get(e.subagentRunId);
    const base: SubagentInfo = known ?? { id: e.subagentRunId, name: "sub-agent", description: "", status: "running", error: "", parentToolCallId: null };
    if (e.type === "SUBAGENT_STARTED") {
      this.subagents.set(e.subagentRunId, {
        ...base,
        name: e.name || base.name,
        description: e.description ?? "",
        status: "running",
        parentToolCallId: e.parentToolCallId ?? null,
      });
    } else if (e.type === "SUBAGENT_FINISHED") {
      this.subagents.set(e.subagentRunId, { ...base, status: "finished" });
    } else {
      this.subagents.set(e.subagentRunId, { ...base, status: "error", error: e.message });
    }
  }

  /**
   * After a snapshot: the run info, the streaming flags of `transcript`, the sub-agents and the
   * run's predictive-state rules, from the snapshot's event log (a view connecting mid-run).
   */
  readLog(events: readonly AguiEvent[], transcript: Transcript, prediction: StatePrediction): void {
    const { openMessages, openCalls } = transcript;
    let run: RunInfo = { ...NO_RUN, steps: [], finishedSteps: [] };
    for (const e of events) {
      // Events only occur inside runs: one before any RUN_STARTED means the tail begins mid-run.
      if (!run.active && e.type !== "RUN_STARTED" && e.type !== "RUN_FINISHED" && e.type !== "RUN_ERROR") {
        run = { ...run, active: true };
      }
      switch (e.type) {
        case "RUN_STARTED":
          run = { ...NO_RUN, active: true, threadId: e.threadId, runId: e.runId, steps: [], finishedSteps: [] };
          openMessages.clear();
          openCalls.clear();
          prediction.clearRun();
          break;
        case "SUBAGENT_STARTED":
        case "SUBAGENT_FINISHED":
        case "SUBAGENT_ERROR":
          this.subagentEvent(e);
          break;
        case "CUSTOM":
          if (e.name === PREDICT_STATE_EVENT) prediction.runEvent(e.value);
          break;
        case "RUN_FINISHED":
          run = { ...run, active: false, steps: [], outcome: e.outcome ?? undefined };
          openMessages.clear();
          openCalls.clear();
          break;
        case "RUN_ERROR":
          run = { ...run, active: false, steps: [], error: e.message, errorCode: e.code ?? "" };
          openMessages.clear();
          openCalls.clear();
          break;
        case "TEXT_MESSAGE_START":
        case "REASONING_MESSAGE_START":
          openMessages.add(e.messageId);
          run.sawOutput = true;
          break;
        case "TEXT_MESSAGE_CONTENT":
        case "REASONING_MESSAGE_CONTENT":
          openMessages.add(e.messageId); // its START may be older than the tail
          run.sawOutput = true;
          break;
        case "TOOL_CALL_ARGS":
          openCalls.add(e.toolCallId);
          run.sawOutput = true;
          break;
        case "TEXT_MESSAGE_END":
        case "REASONING_MESSAGE_END":
          openMessages.delete(e.messageId);
          break;
        case "TOOL_CALL_START":
          openCalls.add(e.toolCallId);
          run.sawOutput = true;
          break;
        case "TOOL_CALL_END":
          openCalls.delete(e.toolCallId);
          break;
        case "STEP_STARTED":
          if (!widgetMark(e, "internal")) run = { ...run, steps: [...run.steps, e.stepName] };
          break;
        case "STEP_FINISHED":
          if (!widgetMark(e, "internal")) {
            run = { ...run, steps: withoutLast(run.steps, e.stepName), finishedSteps: [...run.finishedSteps, e.stepName].slice(-STEPS_KEPT) };
          }
          break;
      }
    }
    transcript.dropStaleFlags();
    this.info = run;
  }
}

function withoutLast(steps: readonly string[], name: string): string[] {
  const at = steps.lastIndexOf(name);
  return at === -1 ? [...steps] : [...steps.slice(0, at), ...steps.slice(at + 1)];
}
