/**
 * The event log the event inspector reads: the snapshot's tail, then every event applied since,
 * with when the kernel received each. Bounded, and trimmed in steps so that appending stays O(1)
 * amortised; events are numbered from the snapshot on, so a row keeps its number when older events
 * are trimmed.
 */
import type { AguiEvent } from "../kernel/wire";

/** How many events the mirror keeps for the inspector (it holds at most 1.5 times as many
 * between two trims, so appending stays O(1) amortised). */
export const EVENT_LOG_LIMIT = 2000;

export class EventLog {
  events: AguiEvent[] = [];
  /** When the kernel received each event of `events` (epoch ms), null when it did not say. */
  times: Array<number | null> = [];
  /** How many events were trimmed from the front of the log since the last snapshot. */
  dropped = 0;

  /** A snapshot's tail (its events carry no times). */
  reset(events: AguiEvent[]): void {
    this.events = events.slice(-EVENT_LOG_LIMIT);
    this.times = this.events.map(() => null);
    this.dropped = 0;
  }

  push(event: AguiEvent, time: number | null): void {
    this.events.push(event);
    this.times.push(time);
    if (this.events.length > EVENT_LOG_LIMIT * 1.5) {
      this.dropped += this.events.length - EVENT_LOG_LIMIT;
      this.events = this.events.slice(-EVENT_LOG_LIMIT);
      this.times = this.times.slice(-EVENT_LOG_LIMIT);
    }
  }
}
