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

/** A placeholder for a content part that is not text (images and files are not loaded yet). */
export function partLabel(part: unknown): string {
  if (!part || typeof part !== "object") return "";
  const p = part as { type?: unknown; source?: { mimeType?: unknown; value?: unknown; type?: unknown } };
  if (p.type === "text") return "";
  const mime = typeof p.source?.mimeType === "string" ? ` ${p.source.mimeType}` : "";
  const where = p.source?.type === "url" && typeof p.source.value === "string" ? ` ${p.source.value}` : "";
  return `[${String(p.type ?? "attachment")}${mime}${where}]`;
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
