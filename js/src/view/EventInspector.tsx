/**
 * The AG-UI event log of the chat, for learning and debugging the protocol: the snapshot's
 * event tail, then every live event, one row each (number, type, ids, a short preview), the
 * payload as JSON when a row is opened, and a filter by type. The mirror keeps the last
 * EVENT_LOG_LIMIT events, so memory stays bounded however long the chat runs; the newest
 * RENDERED_ROWS of them are drawn, more on request.
 */
import { useRef, useState } from "preact/hooks";
import { EVENT_LOG_LIMIT } from "../mirror";
import type { AguiEvent } from "../wire";
import { useView } from "./context";
import { prettyValue } from "./format";
import { useAutoScroll, useTopics } from "./hooks";
import { JsonText } from "./Json";
import { pure } from "./pure";

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

export function EventInspector() {
  const { conn } = useView();
  useTopics("events", "ready");
  const [filter, setFilter] = useState("");
  const [shown, setShown] = useState(RENDERED_ROWS);
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLOListElement>(null);
  useAutoScroll(scroller, content);

  const events = conn.mirror.events();
  const base = conn.mirror.eventsBase;
  const types: string[] = [...new Set(events.map((e) => e.type as string))].sort();
  const rows: Array<{ seq: number; event: AguiEvent }> = [];
  for (let i = 0; i < events.length; i++) {
    const event = events[i] as AguiEvent;
    if (!filter || event.type === filter) rows.push({ seq: base + i + 1, event });
  }
  const visible = rows.slice(-shown);
  return (
    <section class="agui-panel agui-events" aria-label="Events">
      <div class="agui-panel-head">
        <span class="agui-panel-title">Events</span>
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
        <ol class="agui-event-list" ref={content}>
          {visible.map(({ seq, event }) => (
            <EventRow key={seq} seq={seq} event={event} />
          ))}
        </ol>
      </div>
    </section>
  );
}

const EventRow = pure(function EventRow({ seq, event }: { seq: number; event: AguiEvent }) {
  const [open, setOpen] = useState(false);
  const e = event as Record<string, unknown>;
  const preview = eventPreview(event);
  return (
    <li class="agui-event" data-type={event.type}>
      <details onToggle={(ev) => setOpen((ev.currentTarget as HTMLDetailsElement).open)}>
        <summary>
          <span class="agui-event-seq">{seq}</span>
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
