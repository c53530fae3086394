/**
 * The event inspector's runs, as pure functions (no DOM): the event log cut into runs, when each
 * event came (from the kernel's `times`, or from a run's record once fetched), a run's duration
 * and time to first token, its timeline's lanes and geometry, and a record's text read back.
 *
 * Times are milliseconds since the run's RUN_STARTED, null where unknown: the snapshot's tail
 * carries no times, so after a reload a run has none until its record comes.
 */
import { toolCallsOf } from "../mirror/mirror";
import type { AguiEvent, Message } from "../kernel/wire";

/** How a run ended, as its last event says; `running`: no end yet; `incomplete`: another run
 * began before this one's end was seen. */
export type Outcome = "finished" | "interrupt" | "cancelled" | "error" | "running" | "incomplete";

/** A run: a contiguous slice `[from, to)` of the event log. */
export type RunGroup = {
  from: number;
  to: number;
  /** "" when the slice names no run (a tail that begins mid-run and has not ended) */
  runId: string;
  /** true when the slice begins with its RUN_STARTED; false for events before the first one */
  started: boolean;
  /** index of its RUN_FINISHED / RUN_ERROR, or -1 */
  end: number;
  outcome: Outcome;
};

type Loose = Record<string, unknown>;

/** What RUN_FINISHED's `outcome` (AG-UI 1.0) or a RUN_ERROR says. */
export function outcomeOf(event: AguiEvent): Outcome {
  if (event.type === "RUN_ERROR") return "error";
  const outcome = (event as Loose).outcome;
  const type = outcome && typeof outcome === "object" ? (outcome as Loose).type : undefined;
  return type === "interrupt" ? "interrupt" : type === "cancelled" ? "cancelled" : "finished";
}

/**
 * The event log cut into runs: a RUN_STARTED opens one, which keeps what follows up to the next
 * RUN_STARTED. Events before the first RUN_STARTED (a snapshot's tail that begins mid-run, or a
 * trimmed log) form a group of their own, `started: false`.
 */
export function groupRuns(events: readonly AguiEvent[]): RunGroup[] {
  const groups: RunGroup[] = [];
  let current: RunGroup | null = null;
  events.forEach((event, i) => {
    if (event.type === "RUN_STARTED" || current === null) {
      if (current !== null && current.end === -1) current.outcome = "incomplete";
      const started = event.type === "RUN_STARTED";
      current = { from: i, to: i, runId: started ? event.runId : "", started, end: -1, outcome: "running" };
      groups.push(current);
    }
    current.to = i + 1;
    if ((event.type === "RUN_FINISHED" || event.type === "RUN_ERROR") && current.end === -1) {
      current.end = i;
      current.outcome = outcomeOf(event);
      if (!current.runId && event.type === "RUN_FINISHED") current.runId = event.runId;
    }
  });
  return groups;
}

/** A short form of a run id, for headers and menus. */
export function shortId(id: string): string {
  return id.length > 14 ? `${id.slice(0, 12)}…` : id;
}

/** "run r1", or the id alone when it says "run" itself (the kernel's `run-…` ids). */
export function runName(id: string): string {
  return /^run\b/i.test(id) ? shortId(id) : `run ${shortId(id)}`;
}

// ---------------------------------------------------------------------------------------------
// What the user asked: the user message that led to each run
// ---------------------------------------------------------------------------------------------

/** Where the transcript holds each message, and each tool call's message. */
function transcriptSlots(messages: readonly Message[]): { slots: Map<string, number>; calls: Map<string, number> } {
  const slots = new Map<string, number>();
  const calls = new Map<string, number>();
  messages.forEach((m, i) => {
    slots.set(m.id, i);
    for (const call of toolCallsOf(m)) calls.set(call.id, i);
  });
  return { slots, calls };
}

/** The transcript slot of the first message a run's events name (what the run wrote), or -1. */
function firstSlotOf(group: RunGroup, events: readonly AguiEvent[], slots: Map<string, number>, calls: Map<string, number>): number {
  for (let i = group.from; i < group.to; i++) {
    const e = events[i] as Loose;
    const byMessage = typeof e.messageId === "string" ? slots.get(e.messageId) : undefined;
    const byCall = typeof e.toolCallId === "string" ? calls.get(e.toolCallId) : undefined;
    const slot = byMessage ?? byCall;
    if (slot !== undefined) return slot;
  }
  return -1;
}

/** The slot of the last user message in a RUN_STARTED's `input` (when the agent sent it), or -1. */
function inputSlotOf(event: AguiEvent | undefined, slots: Map<string, number>): number {
  const input = event?.type === "RUN_STARTED" ? (event as Loose).input : undefined;
  const sent = input && typeof input === "object" ? (input as Loose).messages : undefined;
  if (!Array.isArray(sent)) return -1;
  const last = [...sent].reverse().find((m) => m && typeof m === "object" && (m as Loose).role === "user") as Loose | undefined;
  return typeof last?.id === "string" ? (slots.get(last.id) ?? -1) : -1;
}

/**
 * The user message that led to each run, index by index with `groups` (undefined where the
 * transcript does not show it): the one its RUN_STARTED's input ends with, else the last user
 * message before the first message the run wrote. A run that wrote nothing (it failed at once,
 * or was stopped) takes the first user message after the previous run's (the next one asked),
 * or the previous run's own when there is none (a run resuming the same turn).
 */
export function runPrompts(groups: readonly RunGroup[], events: readonly AguiEvent[], messages: readonly Message[]): Array<Message | undefined> {
  const { slots, calls } = transcriptSlots(messages);
  const lastUserAt: number[] = [];
  messages.forEach((m, i) => lastUserAt.push(m.role === "user" ? i : i > 0 ? (lastUserAt[i - 1] as number) : -1));
  const known = groups.map((group) => {
    const given = group.started ? inputSlotOf(events[group.from], slots) : -1;
    if (given !== -1) return given;
    const first = firstSlotOf(group, events, slots, calls);
    return first === -1 ? null : (lastUserAt[first] as number);
  });
  const found: number[] = [];
  known.forEach((slot, g) => {
    if (slot !== null) return void found.push(slot);
    const previous = g > 0 ? (found[g - 1] as number) : -1;
    const next = known.slice(g + 1).find((s): s is number => s !== null && s !== -1) ?? messages.length;
    const asked = messages.map((m, i) => (m.role === "user" && i > previous && i < next ? i : -1)).filter((i) => i !== -1);
    // Nothing known before: the latest question before the next run's is this run's.
    const pick = previous === -1 ? asked.at(-1) : asked[0];
    found.push(pick ?? previous);
  });
  return found.map((slot) => (slot === -1 ? undefined : messages[slot]));
}

// ---------------------------------------------------------------------------------------------
// Times
// ---------------------------------------------------------------------------------------------

export type Offsets = Array<number | null>;

/** A run's events' times from the kernel's arrival times (epoch ms): relative to its RUN_STARTED,
 * so all null when that event's time is unknown. */
export function liveOffsets(group: RunGroup, times: readonly (number | null)[]): Offsets {
  const origin = group.started ? times[group.from] : null;
  const out: Offsets = [];
  for (let i = group.from; i < group.to; i++) {
    const t = times[i];
    out.push(origin == null || t == null ? null : t - origin);
  }
  return out;
}

const DELTAS = new Set(["TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT", "TOOL_CALL_ARGS"]);

/** What identifies an event among those of its type, for matching the view's events to a record's. */
function keyOf(event: Loose): string {
  const id = event.toolCallId ?? event.messageId ?? event.stepName ?? "";
  return `${String(event.type)}\u0000${typeof id === "string" ? id : ""}`;
}

const deltaLength = (event: Loose) => (typeof event.delta === "string" ? event.delta.length : 0);

/**
 * A run's events' times from its record. The view's events are the record's, except that the
 * kernel merges consecutive deltas of one message or call within a batch (a merged delta has its
 * first part's time), so the two lists are walked side by side, a merged delta taking as many
 * parts as its text holds. A group that begins mid-run is matched from its end.
 */
export function recordOffsets(events: readonly AguiEvent[], started: boolean, record: readonly RecordedEvent[]): Offsets {
  const first = record.find((r) => r.event.type === "RUN_STARTED");
  const origin = first ? first.t : 0;
  const at = (r: RecordedEvent | undefined) => (r === undefined ? null : Math.max(0, Math.round((r.t - origin) * 1e6) / 1e3));
  const out: Offsets = new Array(events.length).fill(null);
  if (started) {
    let p = 0;
    events.forEach((raw, i) => {
      const event = raw as Loose;
      const key = keyOf(event);
      let q = p;
      while (q < record.length && keyOf(record[q]?.event as Loose) !== key) q++;
      if (q === record.length) return;
      out[i] = at(record[q]);
      let length = deltaLength(record[q]?.event as Loose);
      p = q + 1;
      if (!DELTAS.has(event.type as string)) return;
      while (p < record.length && length < deltaLength(event) && keyOf(record[p]?.event as Loose) === key) {
        length += deltaLength(record[p]?.event as Loose);
        p++;
      }
    });
  } else {
    let p = record.length - 1;
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i] as Loose;
      const key = keyOf(event);
      let q = p;
      while (q >= 0 && keyOf(record[q]?.event as Loose) !== key) q--;
      if (q < 0) continue;
      let length = deltaLength(record[q]?.event as Loose);
      if (DELTAS.has(event.type as string)) {
        while (q > 0 && length < deltaLength(event) && keyOf(record[q - 1]?.event as Loose) === key) {
          q--;
          length += deltaLength(record[q]?.event as Loose);
        }
      }
      out[i] = at(record[q]);
      p = q - 1;
    }
  }
  return out;
}

/** Events that are the first sign of an answer. */
const FIRST_OUTPUT = new Set(["TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT", "TOOL_CALL_START"]);

export type RunTiming = {
  /** RUN_STARTED to the run's end, or to its latest known event while it goes on */
  duration: number | null;
  /** RUN_STARTED to its first text, reasoning or tool call */
  firstToken: number | null;
};

/** A run's duration and time to first token, from its events' offsets. */
export function runTiming(group: RunGroup, events: readonly AguiEvent[], offsets: Offsets): RunTiming {
  let duration: number | null = null;
  if (group.end !== -1) duration = offsets[group.end - group.from] ?? null;
  else for (const t of offsets) if (t != null) duration = Math.max(duration ?? 0, t);
  let firstToken: number | null = null;
  if (group.started) {
    const i = events.findIndex((e) => FIRST_OUTPUT.has(e.type));
    if (i !== -1) firstToken = offsets[i] ?? null;
  }
  return { duration, firstToken };
}

/** Seconds, for people: "0.123 s" (`digits` decimals), whole seconds past a minute. */
export function seconds(ms: number, digits = 2): string {
  const s = ms / 1000;
  if (s >= 60) return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  return `${s.toFixed(digits)} s`;
}

// ---------------------------------------------------------------------------------------------
// Timeline
// ---------------------------------------------------------------------------------------------

export type Lane = "text" | "reasoning" | "tool" | "step" | "state";
/** Lanes, top to bottom. */
export const LANES: readonly Lane[] = ["text", "reasoning", "tool", "step", "state"];
const LANE_NAMES: Record<Lane, [string, string]> = {
  text: ["text message", "text messages"],
  reasoning: ["reasoning message", "reasoning messages"],
  tool: ["tool call", "tool calls"],
  step: ["step", "steps"],
  state: ["state change", "state changes"],
};
export const LANE_LABELS: Record<Lane, string> = { text: "text", reasoning: "reasoning", tool: "tools", step: "steps", state: "state" };

/** One mark of a timeline: a bar from `start` to `end` (ms), or a tick (`start === end`). */
export type Mark = { lane: Lane; label: string; start: number; end: number; tick: boolean; row: number };
export type Timeline = { marks: Mark[]; duration: number; counts: Record<Lane, number> };

/** At most this many rows per lane: overlapping bars (parallel tool calls) stack, then overlap. */
const MAX_ROWS = 4;

/**
 * What happened when in a run: a bar per text or reasoning message (START to END), tool call
 * (START to END, or to its RESULT), and step (STARTED to FINISHED); a tick per state change. An
 * event whose time is unknown adds nothing; a bar still open ends with the run. Null when no
 * event has a time.
 */
export function buildTimeline(events: readonly AguiEvent[], offsets: Offsets): Timeline | null {
  const known = offsets.filter((t): t is number => t != null);
  if (known.length === 0) return null;
  const duration = Math.max(0, ...known);
  const marks: Mark[] = [];
  const open = new Map<string, Mark>();
  const steps = new Map<string, Mark[]>();
  const begin = (key: string, lane: Lane, label: string, at: number) => {
    if (open.has(key)) return;
    const mark: Mark = { lane, label, start: at, end: Number.NaN, tick: false, row: 0 };
    open.set(key, mark);
    marks.push(mark);
  };
  const finish = (key: string, at: number, close = true) => {
    const mark = open.get(key);
    if (!mark) return;
    mark.end = Math.max(at, Number.isNaN(mark.end) ? at : mark.end);
    if (close) open.delete(key);
  };
  events.forEach((raw, i) => {
    const at = offsets[i];
    if (at == null) return;
    const e = raw as Loose;
    // A tool call's events name it by toolCallId (its result's messageId is the result's own).
    const id = String((raw.type.startsWith("TOOL_CALL") ? e.toolCallId : e.messageId) ?? "");
    switch (raw.type) {
      case "TEXT_MESSAGE_START":
      case "TEXT_MESSAGE_CONTENT":
        return begin(`m:${id}`, "text", String(e.role ?? "assistant"), at);
      case "TEXT_MESSAGE_END":
      case "REASONING_MESSAGE_END":
        return finish(`m:${id}`, at);
      case "REASONING_MESSAGE_START":
      case "REASONING_MESSAGE_CONTENT":
        return begin(`m:${id}`, "reasoning", "reasoning", at);
      case "TOOL_CALL_START":
        return begin(`c:${id}`, "tool", String(e.toolCallName ?? "tool"), at);
      case "TOOL_CALL_END":
        // A backend tool's result may follow: the bar stays open for it until the run ends.
        return finish(`c:${id}`, at, false);
      case "TOOL_CALL_RESULT":
        return finish(`c:${id}`, at);
      case "STEP_STARTED": {
        const mark: Mark = { lane: "step", label: String(e.stepName), start: at, end: Number.NaN, tick: false, row: 0 };
        marks.push(mark);
        const name = String(e.stepName);
        steps.set(name, [...(steps.get(name) ?? []), mark]);
        return;
      }
      case "STEP_FINISHED": {
        const mark = steps.get(String(e.stepName))?.pop();
        if (mark) mark.end = at;
        return;
      }
      case "STATE_SNAPSHOT":
      case "STATE_DELTA":
      case "MESSAGES_SNAPSHOT":
        marks.push({ lane: "state", label: raw.type, start: at, end: at, tick: true, row: 0 });
        return;
    }
  });
  for (const mark of marks) if (Number.isNaN(mark.end)) mark.end = duration;
  const counts: Record<Lane, number> = { text: 0, reasoning: 0, tool: 0, step: 0, state: 0 };
  for (const mark of marks) counts[mark.lane]++;
  for (const lane of LANES) stack(marks.filter((m) => m.lane === lane && !m.tick));
  return { marks, duration, counts };
}

/** Gives overlapping bars of one lane rows of their own (the first row that is free). */
function stack(bars: Mark[]): void {
  const rowEnds: number[] = [];
  for (const bar of [...bars].sort((a, b) => a.start - b.start)) {
    // Strictly after: bars of one instant (one batch) get rows of their own, not one spot.
    let row = rowEnds.findIndex((end) => end < bar.start);
    if (row === -1) row = rowEnds.length < MAX_ROWS ? rowEnds.length : MAX_ROWS - 1;
    rowEnds[row] = Math.max(rowEnds[row] ?? 0, bar.end);
    bar.row = row;
  }
}

/** "run timeline: 1 text message, 2 tool calls, 3 state changes over 1.2 s" */
export function timelineSummary(timeline: Timeline): string {
  const parts = LANES.filter((lane) => timeline.counts[lane] > 0).map((lane) => {
    const n = timeline.counts[lane];
    return `${n} ${LANE_NAMES[lane][n === 1 ? 0 : 1]}`;
  });
  return `run timeline: ${parts.length ? parts.join(", ") : "no output"} over ${seconds(timeline.duration, 1)}`;
}

/** The SVG's coordinate system (the drawing scales to its box's width). */
export const GEOMETRY = { width: 320, label: 44, pad: 6, row: 11, rowGap: 2, laneGap: 5, axis: 14, top: 3 } as const;

export type Placed = Mark & { x: number; y: number; w: number; h: number };
export type PlacedLane = { lane: Lane; label: string; y: number; h: number };
export type Layout = { width: number; height: number; lanes: PlacedLane[]; marks: Placed[]; axis: { y: number; x0: number; x1: number } };

/** Where everything of a timeline goes: a lane only for what the run has, rows within a lane
 * for overlapping bars, x proportional to time, and an axis under them from 0 to the duration. */
export function layoutTimeline(timeline: Timeline): Layout {
  const g = GEOMETRY;
  const x0 = g.label;
  const x1 = g.width - g.pad;
  const scale = timeline.duration > 0 ? (x1 - x0) / timeline.duration : 0;
  const lanes: PlacedLane[] = [];
  const marks: Placed[] = [];
  let y = g.top;
  for (const lane of LANES) {
    const mine = timeline.marks.filter((m) => m.lane === lane);
    if (mine.length === 0) continue;
    const rows = Math.max(...mine.map((m) => m.row)) + 1;
    const h = rows * g.row + (rows - 1) * g.rowGap;
    lanes.push({ lane, label: LANE_LABELS[lane], y, h });
    for (const m of mine) {
      const x = x0 + m.start * scale;
      const w = m.tick ? 2 : Math.max(2, (m.end - m.start) * scale);
      marks.push({ ...m, x: Math.min(x, x1 - w), y: m.tick ? y : y + m.row * (g.row + g.rowGap), w, h: m.tick ? h : g.row });
    }
    y += h + g.laneGap;
  }
  return { width: g.width, height: y + g.axis, lanes, marks, axis: { y: y, x0, x1 } };
}

// ---------------------------------------------------------------------------------------------
// Records (docs/recordings.md)
// ---------------------------------------------------------------------------------------------

export type RecordedEvent = { t: number; event: AguiEvent };

/** A run's record read back: its header, its `RunAgentInput`, its events with their times
 * (seconds since the run started), and what could not be read. */
export type ParsedRecord = {
  header: Loose | null;
  started: string | null;
  input: Loose | null;
  events: RecordedEvent[];
  errors: string[];
};

const FORMAT_VERSION = 1;

/** Reads a recording's text (one JSON object per line). A line that is not what its place asks
 * for is skipped and named in `errors`; the rest is kept. */
export function parseRecord(text: string): ParsedRecord {
  const record: ParsedRecord = { header: null, started: null, input: null, events: [], errors: [] };
  const lines = text.split("\n");
  let seen = 0;
  let extraRun = false;
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    const where = `line ${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      record.errors.push(`${where} is not JSON`);
      return;
    }
    seen++;
    const entry = value && typeof value === "object" && !Array.isArray(value) ? (value as Loose) : null;
    const kind = entry?.kind;
    if (entry === null || typeof kind !== "string") {
      record.errors.push(`${where} has no kind`);
    } else if (kind === "recording") {
      if (seen !== 1) record.errors.push(`${where}: a second header`);
      else if (typeof entry.version === "number" && entry.version > FORMAT_VERSION) record.errors.push(`${where}: format version ${entry.version}, newer than this view reads (${FORMAT_VERSION})`);
      if (seen === 1) record.header = entry;
    } else if (kind === "run") {
      if (record.input !== null || extraRun) {
        record.errors.push(`${where}: a second run, ignored`);
        extraRun = true;
      }
      else if (!entry.input || typeof entry.input !== "object" || Array.isArray(entry.input)) record.errors.push(`${where}: a run without its input`);
      else {
        record.input = entry.input as Loose;
        record.started = typeof entry.started === "string" ? entry.started : null;
      }
    } else if (kind === "event") {
      const event = entry.event as Loose | undefined;
      if (typeof entry.t !== "number" || !Number.isFinite(entry.t) || !event || typeof event !== "object" || typeof event.type !== "string") {
        record.errors.push(`${where}: an event without its time or type`);
      } else if (record.input === null) {
        if (!extraRun) record.errors.push(`${where}: an event before its run`);
      } else if (!extraRun) {
        record.events.push({ t: entry.t, event: event as AguiEvent });
      }
    } else {
      record.errors.push(`${where}: an unknown kind ${JSON.stringify(kind).slice(0, 40)}, ignored`);
    }
    if (seen === 1 && kind !== "recording") record.errors.push(`${where} is not a recording header`);
  });
  return record;
}
