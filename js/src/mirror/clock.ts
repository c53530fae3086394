/**
 * When each message appeared. AG-UI messages carry no time, so the view notes when it first saw
 * each one, or the `timestamp` of the event that brought it when the agent set one. Messages
 * that came in a snapshot (this view connected, or reloaded, after they were written) have no
 * time unless one of the snapshot's events gives it: showing the moment of the reload would be
 * wrong.
 */
import type { AguiEvent } from "../kernel/wire";

/** Events that bring a message into the transcript, by the field that names it. */
function messageIdOf(event: AguiEvent): string | null {
  switch (event.type) {
    case "TEXT_MESSAGE_START":
    case "REASONING_MESSAGE_START":
    case "TOOL_CALL_RESULT":
    case "ACTIVITY_SNAPSHOT":
      return event.messageId;
    case "TOOL_CALL_START":
      return event.parentMessageId ?? null;
    default:
      return null;
  }
}

/** `timestamp` (ms since the epoch) of the events that name a message, earliest first wins. */
export function eventTimes(events: readonly unknown[]): Map<string, number> {
  const times = new Map<string, number>();
  for (const raw of events) {
    const event = raw as AguiEvent;
    const stamp = (event as { timestamp?: unknown }).timestamp;
    if (typeof stamp !== "number" || !Number.isFinite(stamp) || stamp <= 0) continue;
    const id = messageIdOf(event);
    if (id !== null && !times.has(id)) times.set(id, stamp);
  }
  return times;
}

export class MessageClock {
  /** message id -> when it appeared (ms), or null when that is not known */
  private seen = new Map<string, number | null>();

  constructor(private readonly now: () => number = Date.now) {}

  /** When the message appeared, or null when this view cannot tell. */
  at(id: string): number | null {
    return this.seen.get(id) ?? null;
  }

  /** Messages that arrived in a snapshot: known only through their events' timestamps. */
  fromSnapshot(ids: Iterable<string>, times: ReadonlyMap<string, number>): void {
    for (const id of ids) if (!this.seen.has(id)) this.seen.set(id, times.get(id) ?? null);
  }

  /** Messages that arrived live: now, unless the event that brought them said when. */
  fromLive(ids: Iterable<string>, times: ReadonlyMap<string, number>): void {
    for (const id of ids) if (!this.seen.has(id)) this.seen.set(id, times.get(id) ?? this.now());
  }
}
