/**
 * `@` in the message box, without the DOM: where a mention is being typed, which of the kernel's
 * variables it matches, what picking one does to the text, and the content part a picked
 * variable's summary travels as (an AG-UI text document named `@name`; docs/attachments.md).
 */
import type { MediaPart, VariableEntry } from "../kernel/wire";

/** A mention being typed: the `@` at `start`, and what follows it up to the caret. */
export type MentionQuery = { start: number; query: string };

/** What a mention may hold after its `@`: a Python name, and dots for an attribute. */
const NAME_CHAR = /[\p{L}\p{N}_.]/u;
/** What may come right before an `@` that starts a mention (not `a@b`, an e-mail address). */
const BEFORE_MENTION = /[\s([{"'`,;:]/;

/**
 * The mention the caret is in: an `@` at the start of the text or after a space or an opening
 * bracket or quote, followed by name characters up to the caret. Null when the caret is
 * elsewhere, or when there is a selection.
 */
export function mentionAt(text: string, caret: number, selectionEnd = caret): MentionQuery | null {
  if (selectionEnd !== caret || caret < 1 || caret > text.length) return null;
  let at = caret;
  while (at > 0 && NAME_CHAR.test(text[at - 1] as string)) at--;
  if (at < 1 || text[at - 1] !== "@") return null;
  const start = at - 1;
  if (start > 0 && !BEFORE_MENTION.test(text[start - 1] as string)) return null;
  return { start, query: text.slice(at, caret) };
}

/** The kinds of variable the list keeps apart: data first, then functions and classes. */
export const isCallable = (variable: VariableEntry) => variable.kind === "function" || variable.kind === "class";

/**
 * The variables `query` matches, case-insensitively: names that start with it, then names that
 * hold it; within each, data before functions and classes, then by name.
 */
export function matching(variables: readonly VariableEntry[], query: string): VariableEntry[] {
  const wanted = query.toLowerCase();
  const rank = (v: VariableEntry) => {
    const name = v.name.toLowerCase();
    const place = name.startsWith(wanted) ? 0 : name.includes(wanted) ? 1 : -1;
    return place < 0 ? -1 : place * 2 + (isCallable(v) ? 1 : 0);
  };
  return variables
    .map((v) => ({ v, rank: rank(v) }))
    .filter((entry) => entry.rank >= 0)
    .sort((a, b) => a.rank - b.rank || a.v.name.localeCompare(b.v.name))
    .map((entry) => entry.v);
}

/** What the list says of a variable beside its name: its type, and its shape unless it looks like a secret. */
export function describeVariable(variable: VariableEntry): string {
  if (variable.secret) return variable.type;
  return [variable.type, variable.shape ?? ""].filter((part) => part !== "").join(" · ");
}

/**
 * Picking `name` for the mention at `mention`: `@query` becomes `@name` followed by a space (the
 * message still says what it refers to, where it says it), and the caret goes after the space.
 */
export function withMention(text: string, mention: MentionQuery, caret: number, name: string): { text: string; caret: number } {
  const after = text.slice(caret);
  const spacer = after.startsWith(" ") ? "" : " ";
  const inserted = `@${name}${spacer}`;
  return { text: text.slice(0, mention.start) + inserted + after, caret: mention.start + inserted.length + (spacer ? 0 : 1) };
}

/** The file name a mention's part carries (`@df`), as the chip and the transcript show it. */
export const mentionLabel = (name: string) => `@${name}`;

function base64Utf8(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** A variable's summary as the content part a `send` request carries: a text document named `@name`. */
export function mentionPart(name: string, summary: string): MediaPart {
  return {
    type: "document",
    source: { type: "data", value: base64Utf8(summary), mimeType: "text/plain" },
    metadata: { filename: mentionLabel(name) },
  } as MediaPart;
}
