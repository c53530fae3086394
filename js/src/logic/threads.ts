/** The threads panel's words, without the DOM: a thread's title, its last activity as a relative
 * time ("5 min ago") and as a full date, and its message count. */

/** What an untitled thread (nothing said in it yet) is called. */
export const UNTITLED = "New thread";

export function titleOf(title: string): string {
  return title.trim() === "" ? UNTITLED : title;
}

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** `seconds` (since the epoch) relative to `now` (seconds): "just now", "5 min ago", "3 h ago",
 * "yesterday", "4 days ago", then the date. A time ahead of `now` (clocks differ) is "just now". */
export function relativeTime(seconds: number, now: number): string {
  const ago = Math.max(0, now - seconds);
  if (ago < MINUTE) return "just now";
  if (ago < HOUR) return `${Math.floor(ago / MINUTE)} min ago`;
  if (ago < DAY) return `${Math.floor(ago / HOUR)} h ago`;
  if (ago < 2 * DAY) return "yesterday";
  if (ago < 7 * DAY) return `${Math.floor(ago / DAY)} days ago`;
  return new Date(seconds * 1000).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
}

/** The full date and time, for a tooltip. */
export function fullDate(seconds: number): string {
  return new Date(seconds * 1000).toLocaleString(undefined, { dateStyle: "full", timeStyle: "short" });
}

export function messageCount(count: number): string {
  return count === 1 ? "1 message" : `${count} messages`;
}
