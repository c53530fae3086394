/**
 * The AG-UI event log of the chat, for learning and debugging the protocol: per run, what the UI
 * sent (the run's `RunAgentInput`, from its record), what came back (one row per event: number,
 * time since the run started, type, ids, a short preview, the payload as JSON when opened), and
 * when (the run's duration, time to first token, and a timeline). Filters by run and by type;
 * each run can be exported as its record (`<runId>.agui.jsonl`).
 *
 * The mirror keeps the last EVENT_LOG_LIMIT events and their times, so memory stays bounded
 * however long the chat runs; the newest RENDERED_ROWS of them are drawn, more on request.
 * A run's record is asked of the kernel once (opening Sent, its timeline without times, or
 * Export), and kept by the mirror.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { attachmentInfo } from "../logic/attachments";
import { EVENT_LOG_LIMIT, type RunRecordEntry, textOf, toolCallsOf } from "../mirror/mirror";
import type { AguiEvent, Message } from "../kernel/wire";
import { useView } from "./context";
import { prettyValue } from "../logic/format";
import { useAutoScroll, useTopics } from "./hooks";
import { JsonText, JsonValue } from "./Json";
import { pure } from "./pure";
import { useRovingTabStop } from "./roving";
import {
  GEOMETRY,
  type Lane,
  type Offsets,
  type Outcome,
  type ParsedRecord,
  type Placed,
  type RunGroup,
  type Timeline,
  buildTimeline,
  groupRuns,
  layoutTimeline,
  liveOffsets,
  parseRecord,
  recordOffsets,
  runName,
  runPrompts,
  runTiming,
  seconds,
  timelineSummary,
} from "../logic/runs";

/** Rows drawn at first (and added per "show earlier"). */
export const RENDERED_ROWS = 400;

const ID_FIELDS = [
  ["messageId", "message"],
  ["toolCallId", "tool call"],
  ["runId", "run"],
] as const;

/** The kind of an event type, for its colour. */
export function familyOf(type: string): string {
  if (type === "RUN_ERROR") return "error"; // a failed run must not read like a finished one
  if (type.startsWith("TEXT_MESSAGE")) return "text";
  if (type.startsWith("TOOL_CALL")) return "tool";
  if (type.startsWith("STATE") || type.startsWith("MESSAGES_SNAPSHOT")) return "state";
  if (type.startsWith("RUN_") || type.startsWith("STEP_")) return "run";
  if (type.startsWith("REASONING")) return "reasoning";
  if (type.startsWith("ACTIVITY")) return "activity";
  return "other";
}

/** A timeline lane's colour: the family of its events. */
const LANE_FAMILY: Record<Lane, string> = { text: "text", reasoning: "reasoning", tool: "tool", step: "run", state: "state" };

function clip(text: string, max = 60): string {
  const one = text.replace(/\s+/g, " ");
  return one.length > max ? `${one.slice(0, max)}…` : one;
}

/** A one-line summary of what an event carries. */
export function eventPreview(event: AguiEvent): string {
  const e = event as Record<string, unknown>;
  if (typeof e.delta === "string") return JSON.stringify(clip(e.delta));
  if (Array.isArray(e.delta)) return `${e.delta.length} patch operation${e.delta.length === 1 ? "" : "s"}`;
  for (const key of ["toolCallName", "stepName", "message", "activityType", "name", "role"]) {
    if (typeof e[key] === "string" && e[key]) return clip(e[key] as string);
  }
  if (e.type === "STATE_SNAPSHOT") return clip(prettyValue(e.snapshot).replace(/\s+/g, " "));
  if (Array.isArray(e.messages)) return `${e.messages.length} messages`;
  if (e.type === "TOOL_CALL_RESULT" && typeof e.content === "string") return JSON.stringify(clip(e.content));
  if (e.outcome && typeof e.outcome === "object") return clip(JSON.stringify(e.outcome));
  return "";
}

// ---------------------------------------------------------------------------------------------
// Records: asked once, read once, saved as the kernel wrote them
// ---------------------------------------------------------------------------------------------

/** Each record's text read once (entries are replaced, never changed, so they can key this). */
const parsed = new WeakMap<RunRecordEntry, ParsedRecord>();

export function recordOf(entry: RunRecordEntry | undefined): ParsedRecord | null {
  if (entry?.status !== "ready") return null;
  let record = parsed.get(entry);
  if (!record) parsed.set(entry, (record = parseRecord(entry.text)));
  return record;
}

/** A file name from a run id: what a file system may refuse or misread becomes "_". */
export function exportName(runId: string): string {
  return `${runId.replace(/[^\w.-]/g, "_").slice(0, 120) || "run"}.agui.jsonl`;
}

function saveText(name: string, text: string, near: Element): void {
  const doc = near.ownerDocument;
  const url = URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" }));
  const link = doc.createElement("a");
  link.href = url;
  link.download = name;
  doc.body.appendChild(link);
  try {
    link.click();
  } finally {
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}

/** How an export reaches the user's disk. Replaceable because jsdom cannot download. */
export const downloads: { save: (name: string, text: string, near: Element) => void } = { save: saveText };

/** The event rows: together one Tab stop (./roving.ts), however many events the panel shows. */
const EVENT_ROW = ".agui-event > details > summary";

const NO_KERNEL = "No kernel: this view is disconnected, so it cannot ask for the run's record.";

/**
 * A run's record while `wanted`: asked of the kernel the first time, and again when what came is
 * partial (asked while the run went on). An answer stays with the component that showed it
 * when the mirror drops it for newer ones, so open sections never ask in turn for ever.
 * `offline`: it could not be asked.
 */
function useRecord(runId: string, wanted: boolean): { entry: RunRecordEntry | undefined; offline: boolean } {
  const { conn } = useView();
  const current = runId ? conn.mirror.runRecord(runId) : undefined;
  const held = useRef<{ runId: string; entry: RunRecordEntry } | null>(null);
  if (current !== undefined && current.status !== "asking") held.current = { runId, entry: current };
  const entry = current ?? (held.current?.runId === runId ? held.current.entry : undefined);
  const [offline, setOffline] = useState(false);
  useEffect(() => {
    if (!wanted || !runId) return;
    if (entry === undefined || (entry.status === "ready" && entry.partial)) setOffline(!conn.mirror.askRunRecord(runId, (request) => conn.send(request)));
  }, [wanted, runId, entry, conn]);
  return { entry, offline: offline || (!conn.live && entry?.status !== "ready" && entry?.status !== "error") };
}

// ---------------------------------------------------------------------------------------------
// The panel
// ---------------------------------------------------------------------------------------------

/** A run's key in the run filter: its id, or "" for events of no known run. */
const EARLIER = "(earlier)";
const filterKey = (group: RunGroup) => group.runId || EARLIER;

/** How much of the user's message a run's name in the picker keeps. */
const PROMPT_CHARS = 32;

/** What the user asked, in a few words: the message's text, else the names of its files. */
function promptGist(message: Message): string {
  const content = (message as { content?: unknown }).content;
  const text = textOf(content).trim();
  if (text) return clip(text, PROMPT_CHARS);
  const files = Array.isArray(content) ? content.map(attachmentInfo).filter((info) => info !== null) : [];
  return clip(files.map((info) => info.name).join(", "), PROMPT_CHARS);
}

/** A run as the run picker names it: “what the user asked” · when it started (the id in its
 * title); the run's name when the transcript does not show what led to it. */
export function pickerLabel(prompt: Message | undefined, startedAt: number | null, runId: string): string {
  const gist = prompt ? promptGist(prompt) : "";
  const what = gist ? `“${gist}”` : runName(runId);
  return startedAt == null ? what : `${what} · ${new Date(startedAt).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" })}`;
}

/** Each run key of the picker with its label, from the first run of that key. */
function pickerLabels(groups: readonly RunGroup[], events: readonly AguiEvent[], times: readonly (number | null)[], messages: readonly Message[]): Map<string, string> {
  const prompts = runPrompts(groups, events, messages);
  const labels = new Map<string, string>();
  groups.forEach((group, g) => {
    const key = filterKey(group);
    if (labels.has(key)) return;
    labels.set(key, key === EARLIER ? "earlier events" : pickerLabel(prompts[g], group.started ? (times[group.from] ?? null) : null, key));
  });
  return labels;
}

function groupLabel(group: RunGroup): string {
  if (!group.started) return group.runId ? `earlier events (${runName(group.runId)})` : "earlier events";
  return runName(group.runId);
}

export function EventInspector() {
  const { conn } = useView();
  // "list": a run's name in the picker is the user message that led to it
  useTopics("events", "ready", "records", "list");
  const [filter, setFilter] = useState("");
  const [runFilter, setRunFilter] = useState("");
  const [shown, setShown] = useState(RENDERED_ROWS);
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  useAutoScroll(scroller, content);
  const rowKeys = useRovingTabStop(content, EVENT_ROW);

  const events = conn.mirror.events();
  const base = conn.mirror.eventsBase;
  const groups = groupRuns(events);
  const types: string[] = [...new Set(events.map((e) => e.type as string))].sort();
  const runKeys = [...new Set(groups.map(filterKey))];
  const runLabels = pickerLabels(groups, events, conn.mirror.eventTimes(), conn.mirror.messages());
  const rows: Array<{ group: number; index: number }> = [];
  groups.forEach((group, g) => {
    if (runFilter && filterKey(group) !== runFilter) return;
    for (let i = group.from; i < group.to; i++) if (!filter || events[i]?.type === filter) rows.push({ group: g, index: i });
  });
  const visible = rows.slice(-shown);
  const byGroup = new Map<number, number[]>();
  for (const { group, index } of visible) {
    const list = byGroup.get(group);
    if (list) list.push(index);
    else byGroup.set(group, [index]);
  }
  return (
    <section class="agui-panel agui-events" aria-label="Events">
      <div class="agui-panel-head">
        <span class="agui-panel-title">Events</span>
        <select
          class="agui-input agui-input-small agui-run-picker"
          aria-label="Filter events by run"
          title={runFilter && runFilter !== EARLIER ? `run ${runFilter}` : undefined}
          value={runFilter}
          onChange={(e) => setRunFilter(e.currentTarget.value)}
        >
          <option value="">All runs</option>
          {runKeys.map((key) => (
            <option key={key} value={key} title={key === EARLIER ? undefined : `run ${key}`}>
              {runLabels.get(key)}
            </option>
          ))}
          {runFilter && !runKeys.includes(runFilter) && <option value={runFilter}>{runFilter === EARLIER ? "earlier events" : runName(runFilter)}</option>}
        </select>
        <select class="agui-input agui-input-small" aria-label="Filter events by type" value={filter} onChange={(e) => setFilter(e.currentTarget.value)}>
          <option value="">All types</option>
          {types.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
          {filter && !types.includes(filter) && <option value={filter}>{filter}</option>}
        </select>
        <span class="agui-panel-note" aria-live="off">
          {rows.length === events.length ? `${events.length}` : `${rows.length} of ${events.length}`} events
          {base + events.length > events.length ? ` (last ${EVENT_LOG_LIMIT.toLocaleString("en")} kept)` : ""}
        </span>
      </div>
      <div class="agui-panel-body" ref={scroller}>
        {rows.length > visible.length && (
          <button type="button" class="agui-btn agui-btn-quiet agui-btn-small" onClick={() => setShown(shown + RENDERED_ROWS)}>
            Show {Math.min(RENDERED_ROWS, rows.length - visible.length)} earlier events
          </button>
        )}
        {events.length === 0 && <div class="agui-empty">No events yet.</div>}
        <div class="agui-runs" ref={content} {...rowKeys}>
          {[...byGroup].map(([g, indices]) => {
            const group = groups[g] as RunGroup;
            return <RunSection key={base + group.from} group={group} indices={indices} />;
          })}
        </div>
      </div>
    </section>
  );
}

/** One run: its header (outcome, events, duration, time to first token, export), its timeline
 * and what it sent (both on demand), and its events' rows. */
function RunSection({ group, indices }: { group: RunGroup; indices: number[] }) {
  const { conn } = useView();
  const [timelineOpen, setTimelineOpen] = useState(false);
  const [exporting, setExporting] = useState(false);
  const events = conn.mirror.events();
  const base = conn.mirror.eventsBase;
  const runEvents = events.slice(group.from, group.to);
  const live = liveOffsets(group, conn.mirror.eventTimes());
  const timed = live.some((t) => t != null);
  const { entry, offline } = useRecord(group.runId, exporting || (timelineOpen && !timed));
  const record = recordOf(entry);
  const offsets: Offsets = record ? recordOffsets(runEvents, group.started, record.events) : live;
  const timing = runTiming(group, runEvents, offsets);
  const label = groupLabel(group);
  const section = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!exporting || !entry || entry.status === "asking" || (entry.status === "ready" && entry.partial)) return;
    setExporting(false);
    if (entry.status === "ready" && section.current) downloads.save(exportName(group.runId), entry.text, section.current);
  }, [exporting, entry, group.runId]);

  const exportNote = exporting && offline ? NO_KERNEL : exporting ? "asking the kernel…" : entry?.status === "error" ? entry.error : "";
  return (
    <div class="agui-run" role="group" data-outcome={group.outcome} aria-label={label} ref={section}>
      <div class="agui-run-head">
        <span class="agui-run-name" title={group.runId ? `run ${group.runId}` : undefined}>
          {label}
        </span>
        <span class={`agui-run-outcome agui-outcome-${group.outcome}`}>{outcomeText(group.outcome)}</span>
        <span class="agui-run-count">
          {group.to - group.from} event{group.to - group.from === 1 ? "" : "s"}
        </span>
        <span class="agui-run-duration" title="from RUN_STARTED to the run's end">
          {timing.duration == null ? "—" : seconds(timing.duration)}
        </span>
        {group.started && (
          <span class="agui-run-ttft" title="time to first token: from RUN_STARTED to the first text, reasoning or tool call">
            first token {timing.firstToken == null ? "—" : seconds(timing.firstToken)}
          </span>
        )}
        {group.runId && (
          <button
            type="button"
            class="agui-btn agui-btn-quiet agui-btn-small agui-run-export"
            aria-label={`Export ${runName(group.runId)}`}
            title={`Download this run as ${exportName(group.runId)}`}
            onClick={() => {
              if (entry?.status === "ready" && !entry.partial && section.current) downloads.save(exportName(group.runId), entry.text, section.current);
              else setExporting(true);
            }}
          >
            Export
          </button>
        )}
        {exportNote && (
          <span class="agui-run-note" role="status">
            {exportNote}
          </span>
        )}
      </div>
      <details class="agui-run-part" onToggle={(ev) => setTimelineOpen((ev.currentTarget as HTMLDetailsElement).open)}>
        <summary>Timeline</summary>
        {timelineOpen && <TimelinePart events={runEvents} offsets={offsets} entry={entry} offline={offline} runId={group.runId} />}
      </details>
      {group.runId && <SentPart runId={group.runId} />}
      <ol class="agui-event-list">
        {indices.map((i) => (
          <EventRow key={base + i + 1} seq={base + i + 1} event={events[i] as AguiEvent} time={offsets[i - group.from] ?? null} />
        ))}
      </ol>
    </div>
  );
}

function outcomeText(outcome: Outcome): string {
  return outcome === "incomplete" ? "no end seen" : outcome;
}

function TimelinePart(props: { events: readonly AguiEvent[]; offsets: Offsets; entry: RunRecordEntry | undefined; offline: boolean; runId: string }) {
  const timeline = buildTimeline(props.events, props.offsets);
  if (timeline) return <RunTimeline timeline={timeline} />;
  let why = "No times for this run: the kernel did not say when its events came.";
  if (props.entry?.status === "error") why = props.entry.error;
  else if (props.offline) why = NO_KERNEL;
  else if (props.entry?.status === "asking") why = "asking the kernel…";
  return <div class="agui-empty">{why}</div>;
}

function markTitle(mark: Placed): string {
  const span = mark.tick ? `at ${seconds(mark.start, 3)}` : `${seconds(mark.start, 3)} to ${seconds(mark.end, 3)}`;
  const what = mark.lane === "text" ? `text message (${mark.label})` : mark.lane === "tool" ? `tool call ${mark.label}` : mark.lane === "step" ? `step ${mark.label}` : mark.label;
  return `${what}: ${span}`;
}

/** A run's timeline: one lane per kind of output the run has, a bar (or a tick) per item. */
export function RunTimeline({ timeline }: { timeline: Timeline }) {
  const layout = layoutTimeline(timeline);
  const g = GEOMETRY;
  const textRoom = (x: number) => Math.max(0, Math.floor((layout.axis.x1 - x) / 5));
  return (
    <svg
      class="agui-timeline"
      role="img"
      aria-label={timelineSummary(timeline)}
      viewBox={`0 0 ${layout.width} ${layout.height}`}
      width={layout.width}
      height={layout.height}
    >
      {layout.lanes.map((lane) => (
        <text key={lane.lane} class="agui-tl-lane" x={0} y={lane.y + g.row - 2}>
          {lane.label}
        </text>
      ))}
      {layout.marks.map((mark, i) => (
        <g key={i} class={`agui-tl-mark agui-family-${LANE_FAMILY[mark.lane]}`}>
          <rect class={mark.tick ? "agui-tl-tick" : "agui-tl-bar"} x={mark.x} y={mark.y} width={mark.w} height={mark.h} rx={mark.tick ? 0 : 2}>
            <title>{markTitle(mark)}</title>
          </rect>
          {mark.lane === "tool" && textRoom(mark.x + 2) > 1 && (
            <text class="agui-tl-label" x={mark.x + 2} y={mark.y + g.row - 2}>
              {clip(mark.label, textRoom(mark.x + 2))}
            </text>
          )}
        </g>
      ))}
      <line class="agui-tl-axis" x1={layout.axis.x0} y1={layout.axis.y} x2={layout.axis.x1} y2={layout.axis.y} />
      <text class="agui-tl-tick-label" x={layout.axis.x0} y={layout.axis.y + 10}>
        0
      </text>
      <text class="agui-tl-tick-label agui-tl-end" x={layout.axis.x1} y={layout.axis.y + 10}>
        {seconds(timeline.duration, timeline.duration < 10_000 ? 2 : 1)}
      </text>
    </svg>
  );
}

// ---------------------------------------------------------------------------------------------
// What was sent
// ---------------------------------------------------------------------------------------------

function SentPart({ runId }: { runId: string }) {
  const [open, setOpen] = useState(false);
  const { entry, offline } = useRecord(runId, open);
  const record = recordOf(entry);
  let body;
  if (record) body = <RunInput record={record} />;
  else if (entry?.status === "error") body = <div class="agui-empty agui-run-error">{entry.error}</div>;
  else if (offline) body = <div class="agui-empty">{NO_KERNEL}</div>;
  else body = <div class="agui-empty">asking the kernel…</div>;
  return (
    <details class="agui-run-part agui-run-sent" onToggle={(ev) => setOpen((ev.currentTarget as HTMLDetailsElement).open)}>
      <summary>Sent</summary>
      {open && body}
    </details>
  );
}

const isEmpty = (value: unknown) =>
  value === undefined || value === null || (Array.isArray(value) && value.length === 0) || (typeof value === "object" && Object.keys(value as object).length === 0);

/** What the UI sent the agent for this run: its `RunAgentInput`, field by field. */
export function RunInput({ record }: { record: ParsedRecord }) {
  const input = record.input;
  const messages = Array.isArray(input?.messages) ? (input.messages as unknown[]) : [];
  const tools = Array.isArray(input?.tools) ? (input.tools as unknown[]) : [];
  const context = input?.context;
  return (
    <div class="agui-sent">
      {record.errors.length > 0 && (
        <div class="agui-run-error" role="note">
          {record.errors.length === 1 ? "A line of the record could not be read" : `${record.errors.length} lines of the record could not be read`}:{" "}
          {record.errors.slice(0, 5).join("; ")}
          {record.errors.length > 5 ? "; …" : ""}
        </div>
      )}
      {input === null ? (
        <div class="agui-empty">The record holds no input for this run.</div>
      ) : (
        <dl class="agui-kv">
          <Field name={`messages (${messages.length})`}>
            <ol class="agui-sent-messages">
              {messages.map((m, i) => (
                <SentMessage key={i} message={m} />
              ))}
            </ol>
          </Field>
          <Field name="state">
            <JsonValue value={input.state ?? null} />
          </Field>
          <Field name={`tools (${tools.length})`}>
            {tools.length === 0 ? (
              "none"
            ) : (
              <ul class="agui-sent-tools">
                {tools.map((tool, i) => (
                  <li key={i}>
                    <code>{String((tool as { name?: unknown } | null)?.name ?? "?")}</code>
                  </li>
                ))}
              </ul>
            )}
          </Field>
          <Field name="context">{isEmpty(context) ? "none" : <JsonValue value={context} />}</Field>
          <Field name="forwardedProps">{isEmpty(input.forwardedProps) ? "none" : <JsonValue value={input.forwardedProps} />}</Field>
          {!isEmpty(input.resume) && (
            <Field name="resume">
              <JsonValue value={input.resume} />
            </Field>
          )}
        </dl>
      )}
    </div>
  );
}

function Field({ name, children }: { name: string; children: ComponentChildren }) {
  return (
    <div class="agui-kv-row">
      <dt class="agui-kv-key">{name}</dt>
      <dd class="agui-kv-value">{children}</dd>
    </div>
  );
}

/** A sent message's gist: its text, else the tools it called. */
function messagePreview(message: Message): string {
  const text = textOf((message as { content?: unknown }).content);
  if (text) return clip(text, 80);
  const calls = toolCallsOf(message).map((c) => c.function?.name ?? "?");
  return calls.length ? `calls ${clip(calls.join(", "), 70)}` : "";
}

function SentMessage({ message }: { message: unknown }) {
  const [open, setOpen] = useState(false);
  const m = (message && typeof message === "object" ? message : {}) as Message;
  return (
    <li class="agui-sent-message">
      <details onToggle={(ev) => setOpen((ev.currentTarget as HTMLDetailsElement).open)}>
        <summary>
          <span class="agui-sent-role">{String((m as { role?: unknown }).role ?? "?")}</span>
          <span class="agui-sent-preview">{messagePreview(m)}</span>
        </summary>
        {open && (
          <pre class="agui-code">
            <JsonText text={prettyValue(message)} />
          </pre>
        )}
      </details>
    </li>
  );
}

// ---------------------------------------------------------------------------------------------
// Rows
// ---------------------------------------------------------------------------------------------

const EventRow = pure(function EventRow({ seq, event, time }: { seq: number; event: AguiEvent; time: number | null }) {
  const [open, setOpen] = useState(false);
  const e = event as Record<string, unknown>;
  const preview = eventPreview(event);
  return (
    <li class="agui-event" data-type={event.type}>
      <details onToggle={(ev) => setOpen((ev.currentTarget as HTMLDetailsElement).open)}>
        <summary>
          <span class="agui-event-seq">{seq}</span>
          <span class="agui-event-time" title={time == null ? "unknown until the run's record is fetched (open Sent)" : "since the run's RUN_STARTED"}>
            {time == null ? "—" : `+${(time / 1000).toFixed(3)} s`}
          </span>
          <span class={`agui-event-type agui-family-${familyOf(event.type)}`}>{event.type}</span>
          {ID_FIELDS.map(([field, name]) =>
            typeof e[field] === "string" && e[field] ? (
              <span key={field} class="agui-event-id" title={`${name} ${e[field] as string}`}>
                {clip(e[field] as string, 14)}
              </span>
            ) : null,
          )}
          {preview && <span class="agui-event-preview">{preview}</span>}
        </summary>
        {open && (
          <pre class="agui-code">
            <JsonText text={prettyValue(event)} />
          </pre>
        )}
      </details>
    </li>
  );
});
