/**
 * What finished runs leave in the transcript: the steps each run went through and the error it
 * ended with. The mirror forgets both when the next run starts; a person scrolling back expects
 * a run's checklist and its failure to stay where they were.
 *
 * A record is anchored to the message that was last in the transcript when its run ended (its
 * steps were shown right after it), and names its turn (the user message it answered), so a
 * retried turn replaces what the failed attempt left. Fed live by the connection, event by event
 * with the transcript as it stands after each run ends; rebuilt as well as the event log allows
 * after a snapshot (a view that connects late has only the log's tail).
 */
import { widgetMark } from "./mirror";
import type { AguiEvent, Message } from "../kernel/wire";

export type PastRun = {
  runId: string;
  /** the user message the run answered, or null */
  turn: string | null;
  /** the message its steps and error are shown after, or null when none is known */
  after: string | null;
  /** the steps it finished, in order (the agent's internal steps left out) */
  steps: string[];
  /** the steps still open when it ended */
  unfinished: string[];
  /** RUN_ERROR's message, or "" */
  error: string;
};

type OpenRun = { runId: string; turn: string | null; steps: string[]; open: string[]; mentioned: string | null };

const RUN_BOUNDARIES = new Set<string>(["RUN_STARTED", "RUN_FINISHED", "RUN_ERROR"]);

/** How many past runs are remembered. */
const KEPT_RUNS = 500;

export class RunHistory {
  private runs: PastRun[] = [];
  private current: OpenRun | null = null;
  private listeners = new Set<() => void>();

  /** Past runs, oldest first. */
  list(): readonly PastRun[] {
    return this.runs;
  }

  /** The user message the run in progress answers (null between runs). */
  get activeTurn(): string | null {
    return this.current?.turn ?? null;
  }

  get active(): boolean {
    return this.current !== null;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** One live event, once the mirror has applied it and every event before it. */
  event(e: AguiEvent, messages: readonly Message[]): void {
    if (this.step(e, messages, (ended) => (ended.after = lastId(messages)))) this.emit();
  }

  /** After a snapshot: the runs of its event tail. A run this view followed live keeps its
   * record (its anchor is exact) as long as its anchor is still in the transcript. */
  snapshot(events: readonly AguiEvent[], messages: readonly Message[]): void {
    const ids = new Set(messages.map((m) => m.id));
    const live = new Map(this.runs.map((r) => [r.runId, r]));
    this.runs = [];
    this.current = null;
    for (const e of events) {
      // Events only occur inside runs: one before any RUN_STARTED means the tail begins mid-run.
      if (this.current === null && !RUN_BOUNDARIES.has(e.type)) this.current = { runId: "", turn: null, steps: [], open: [], mentioned: null };
      this.step(e, messages, (ended, mentioned) => {
        ended.after = mentioned !== null && ids.has(mentioned) ? mentioned : null;
        ended.turn = mentioned !== null && ids.has(mentioned) ? userBefore(messages, mentioned) : null;
      });
    }
    const merged = this.runs.map((r) => {
      const known = live.get(r.runId);
      return known && known.after !== null && ids.has(known.after) ? known : r;
    });
    const replayedIds = new Set(merged.map((r) => r.runId));
    const older = [...live.values()].filter((r) => !replayedIds.has(r.runId) && r.after !== null && ids.has(r.after));
    this.runs = [...older, ...merged].slice(-KEPT_RUNS);
    // A tail that begins in the middle of a run cannot say where that run started.
    if (this.current !== null && this.current.turn === null) this.current.turn = lastUserId(messages);
    this.emit();
  }

  /** Applies one event; returns whether anything shown changed. `ended` completes the record of
   * a run that just ended (its anchor), given the last message its events named. */
  private step(e: AguiEvent, messages: readonly Message[], ended: (run: PastRun, mentioned: string | null) => void): boolean {
    const run = this.current;
    switch (e.type) {
      case "RUN_STARTED":
        this.current = { runId: e.runId, turn: lastUserId(messages), steps: [], open: [], mentioned: null };
        return true;
      case "RUN_FINISHED":
      case "RUN_ERROR": {
        if (run === null) return false;
        this.current = null;
        const record: PastRun = {
          runId: run.runId,
          turn: run.turn,
          after: null,
          steps: run.steps,
          unfinished: run.open,
          error: e.type === "RUN_ERROR" ? e.message : "",
        };
        ended(record, run.mentioned);
        this.runs = [...this.runs, record].slice(-KEPT_RUNS);
        return true;
      }
      case "STEP_STARTED":
        if (run === null || widgetMark(e, "internal")) return false;
        run.open = [...run.open, e.stepName];
        return false;
      case "STEP_FINISHED": {
        if (run === null || widgetMark(e, "internal")) return false;
        const at = run.open.lastIndexOf(e.stepName);
        if (at !== -1) run.open = [...run.open.slice(0, at), ...run.open.slice(at + 1)];
        run.steps = [...run.steps, e.stepName];
        return false;
      }
      case "TEXT_MESSAGE_START":
      case "REASONING_MESSAGE_START":
      case "TOOL_CALL_RESULT":
      case "ACTIVITY_SNAPSHOT":
        if (run !== null) run.mentioned = e.messageId;
        return false;
      case "TOOL_CALL_START":
        if (run !== null && e.parentMessageId) run.mentioned = e.parentMessageId;
        return false;
      default:
        return false;
    }
  }

  private emit(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

function lastId(messages: readonly Message[]): string | null {
  return messages.length > 0 ? (messages[messages.length - 1] as Message).id : null;
}

function lastUserId(messages: readonly Message[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) if ((messages[i] as Message).role === "user") return (messages[i] as Message).id;
  return null;
}

function userBefore(messages: readonly Message[], id: string): string | null {
  const at = messages.findIndex((m) => m.id === id);
  for (let i = at; i >= 0; i--) if ((messages[i] as Message).role === "user") return (messages[i] as Message).id;
  return null;
}

/** What the transcript shows of past runs, by the message it follows: their steps, and the
 * errors of failed turns. The latest run's error is the error banner's (while no run is
 * active); a turn retried or edited shows only what its latest attempt left. */
export type RunTrace = { run: PastRun; showSteps: boolean; showError: boolean };

export function runTraces(history: RunHistory, messages: readonly Message[]): Map<string, RunTrace[]> {
  const runs = history.list();
  const out = new Map<string, RunTrace[]>();
  if (runs.length === 0) return out;
  const ids = new Set(messages.map((m) => m.id));
  // Turns that a later attempt answered again, seen from the newest run back.
  const answeredLater = new Set<string>();
  if (history.active && history.activeTurn !== null) answeredLater.add(history.activeTurn);
  for (let i = runs.length - 1; i >= 0; i--) {
    const run = runs[i] as PastRun;
    const superseded = run.turn !== null && run.after === run.turn && answeredLater.has(run.turn);
    if (run.turn !== null) answeredLater.add(run.turn);
    if (run.after === null || !ids.has(run.after) || superseded) continue;
    const latest = i === runs.length - 1 && !history.active;
    const showSteps = run.steps.length + run.unfinished.length > 0;
    const showError = run.error !== "" && !latest;
    if (!showSteps && !showError) continue;
    const list = out.get(run.after);
    const trace = { run, showSteps, showError };
    if (list) list.unshift(trace);
    else out.set(run.after, [trace]);
  }
  return out;
}
