/**
 * Slash commands in the message box, without the DOM: the command a text starts with, which
 * commands a typed `/na` matches, and what picking one does to the text.
 *
 * A message that starts with one `/` is a command (`/name args`), run by the kernel and never sent
 * to the agent; one that starts with `//` is sent as a message that starts with a single `/`.
 */
import type { CommandSpec } from "../kernel/wire";

/** A command's name: lowercase letters, digits, `-` and `_` (as the kernel checks them). */
const NAME = /^[a-z0-9_-]{1,64}$/;

/** `/name args` as typed: the name (maybe not a command's) and the text after it, trimmed. */
export type TypedCommand = { name: string; args: string };

/** The command `text` is, or null when it is a message (no `/` first, or `//`). */
export function commandOf(text: string): TypedCommand | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith("/") || trimmed.startsWith("//")) return null;
  const match = /^\/(\S*)\s*([\s\S]*)$/.exec(trimmed);
  return { name: match?.[1] ?? "", args: match?.[2] ?? "" };
}

/** The text a `//` message sends: its first `/` dropped. */
export function literalOf(text: string): string {
  return text.trimStart().startsWith("//") ? text.trimStart().slice(1) : text;
}

/** Whether `name` is a command's name as the kernel takes it. */
export const isCommandName = (name: string) => NAME.test(name);

/** The command name being typed: the text starts with `/` and the caret is in its first word. */
export function commandQueryAt(text: string, caret: number, selectionEnd = caret): string | null {
  if (selectionEnd !== caret || !text.startsWith("/") || text.startsWith("//") || caret < 1) return null;
  const typed = text.slice(1, caret);
  return /\s/.test(typed) ? null : typed;
}

/** The commands whose name starts with `query`, then those that hold it, each in the kernel's order. */
export function matchingCommands(commands: readonly CommandSpec[], query: string): CommandSpec[] {
  const wanted = query.toLowerCase();
  const starts = commands.filter((c) => c.name.startsWith(wanted));
  return [...starts, ...commands.filter((c) => !c.name.startsWith(wanted) && c.name.includes(wanted))];
}

/** Picking `name`: the first word becomes `/name` and a space; the caret goes after it. */
export function withCommand(text: string, name: string): { text: string; caret: number } {
  const rest = text.replace(/^\/\S*/, "").replace(/^ /, "");
  const head = `/${name} `;
  return { text: head + rest, caret: head.length };
}
