/** One place for the view's diagnostics, so they are easy to find (and to silence in tests). */

const PREFIX = "[agui-widget]";

export function warn(...args: unknown[]): void {
  console.warn(PREFIX, ...args);
}

/** Short, bounded JSON for log lines: a malformed 1 MB payload must not flood the console. */
export function preview(value: unknown, max = 200): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
