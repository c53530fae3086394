/** Turning arguments and results into readable text (always text: nothing here becomes HTML). */

/** Pretty JSON when `text` parses as JSON, else `text` unchanged. */
export function prettyJsonText(text: string): string {
  const trimmed = text.trim();
  if (!trimmed || !"{[\"".includes(trimmed[0] as string)) return text;
  try {
    return JSON.stringify(JSON.parse(trimmed), null, 2);
  } catch {
    return text;
  }
}

/** Any value as readable text: strings as they are, everything else as pretty JSON. */
export function prettyValue(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** `text` as pretty JSON when it parses (json: true), else unchanged (json: false). */
export function jsonOrText(text: string): { text: string; json: boolean } {
  const trimmed = text.trim();
  if (!trimmed || !"{[".includes(trimmed[0] as string)) return { text, json: false };
  try {
    return { text: JSON.stringify(JSON.parse(trimmed), null, 2), json: true };
  } catch {
    return { text, json: false };
  }
}

/** A value as pretty JSON text (json: true), or a string as it is (json: false). */
export function valueText(value: unknown): { text: string; json: boolean } {
  if (typeof value === "string") return jsonOrText(value);
  return { text: prettyValue(value), json: value !== undefined };
}

/** Past this length, or with a line break, a string reads better as text than as a JSON literal. */
const LONG_STRING = 120;

export function isLongText(value: string): boolean {
  return value.length > LONG_STRING || value.includes("\n");
}

/** Does `value` hold a string best shown as text of its own (see isLongText)? */
export function hasLongText(value: unknown, budget = { nodes: 5000 }, depth = 0): boolean {
  if (--budget.nodes < 0 || depth > 64) return false;
  if (typeof value === "string") return isLongText(value);
  if (Array.isArray(value)) return value.some((item) => hasLongText(item, budget, depth + 1));
  if (value !== null && typeof value === "object") return Object.values(value).some((item) => hasLongText(item, budget, depth + 1));
  return false;
}

/** A tool call's argument text as a value: parsed when it is a JSON object or array, else
 * undefined (the text is shown as it is). */
export function argsValue(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed || !"{[".includes(trimmed[0] as string)) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
}

const SUMMARY_CHARS = 160;
const SUMMARY_VALUE_CHARS = 60;

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function briefValue(value: unknown): string {
  if (typeof value === "string") return oneLine(value, SUMMARY_VALUE_CHARS);
  if (value === null || typeof value !== "object") return String(value);
  let compact = "";
  try {
    compact = JSON.stringify(value) ?? "";
  } catch {
    compact = "";
  }
  if (compact && compact.length <= 40) return compact;
  return Array.isArray(value) ? `[${value.length} ${value.length === 1 ? "item" : "items"}]` : "{…}";
}

/**
 * A tool call's arguments on one line, for its card's heading: `city: Paris, days: 3`. Text that
 * is not JSON (or is cut short) is read as far as it goes.
 */
export function argsSummary(text: string, partial?: unknown): string {
  const value = argsValue(text) ?? partial;
  if (value === undefined) return oneLine(text, SUMMARY_CHARS);
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const parts = Object.entries(value).map(([key, item]) => `${oneLine(key, 40)}: ${briefValue(item)}`);
    return oneLine(parts.join(", "), SUMMARY_CHARS);
  }
  return oneLine(briefValue(value), SUMMARY_CHARS);
}
