/**
 * Reading and building AG-UI messages the way every part of the mirror needs it: a message's text
 * and tool calls whatever shape they came in, the kernel's marks, and metadata folded into a fresh
 * object (the mirror never mutates a message it was given). Pure functions, shared by the mirror's
 * modules and by the view.
 */
import type { Message, ToolCall } from "../kernel/wire";

export type Loose = Record<string, unknown>;
export type ToolMessage = Extract<Message, { role: "tool" }>;
export type AssistantMessage = Extract<Message, { role: "assistant" }>;

/** Text content of a message, whatever shape it came in (string, parts, null). */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (part && typeof part === "object" && (part as Loose).type === "text" ? String((part as Loose).text ?? "") : ""))
      .join("");
  }
  return "";
}

export function toolCallsOf(message: Message | undefined): readonly ToolCall[] {
  const calls = (message as Loose | undefined)?.toolCalls;
  return Array.isArray(calls) ? (calls as ToolCall[]) : [];
}

export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

/** What the kernel noted on a message under `metadata.agui_widget[key]` (stopped, refused, display). */
export function widgetMark(message: unknown, key: string): unknown {
  const metadata = isRecord(message) ? message.metadata : undefined;
  const marks = isRecord(metadata) ? metadata.agui_widget : undefined;
  return isRecord(marks) ? marks[key] : undefined;
}

export function isRecord(value: unknown): value is Loose {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Sets `target.metadata` to its metadata merged with `metadata` (a new object; the old one is
 * never mutated). Returns `target`, which must be a fresh object owned by the caller. */
export function withMetadata<T extends Loose>(target: T, metadata: unknown): T {
  if (isRecord(metadata)) {
    const current = target.metadata;
    (target as Loose).metadata = isRecord(current) ? { ...current, ...metadata } : { ...metadata };
  }
  return target;
}
