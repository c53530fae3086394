/**
 * Slash commands in the message box: typing `/` at the start opens a list of the chat's commands
 * (the `commands` trait: the built-ins and `AgentChat(commands=...)`) with what each does; ↑/↓ and
 * Enter or Tab pick one (Enter on a name typed in full runs it), Escape closes the list. Sending `/name args` asks the kernel to run it
 * (docs/wire.md, `command`): it is never sent to the agent nor added to the transcript. What the
 * command returns shows in a card above the box (until dismissed or the next command), a file it
 * hands back (`/export`) is saved, and a failure is an error notice. An unknown command says so
 * and leaves the text in the box; `//text` sends `/text` as a message.
 *
 * The list follows the `@` list's pattern (./Mentions.tsx): the focus stays in the box, which
 * points at the list and its active option.
 */
import type { RefObject } from "preact";
import { useRef, useState } from "preact/hooks";
import { ask } from "../kernel/ask";
import type { CommandSpec } from "../kernel/wire";
import { commandOf, commandQueryAt, isCommandName, literalOf, matchingCommands, withCommand } from "../logic/commands";
import { useView } from "./context";
import { useTrait } from "./hooks";
import { isComposing } from "./keys";
import { Markdown } from "./Markdown";

type Box = RefObject<HTMLTextAreaElement | null>;

type Shown = { query: string | null; active: number; dismissedAt: string | null };

export type SlashCommands = {
  query: string | null;
  options: CommandSpec[];
  active: number;
  listId: string;
  card: { name: string; text: string } | null;
  closeCard: () => void;
  follow: () => void;
  close: () => void;
  pick: (command: CommandSpec) => void;
  onKey: (e: KeyboardEvent) => boolean;
  /** Runs the box's text when it is a command; true when it was one (sent or refused), so it is
   * not sent as a message. A `//` message loses its first `/`. */
  sendOrRun: (send: (literal?: string) => Promise<void>) => Promise<void>;
};

/** `local`: commands this view carries out itself instead of asking the kernel (`/threads` opens
 * the threads panel; the kernel's own answer, a table, is for front ends without one). */
export function useSlashCommands(box: Box, setText: (text: string) => void, local: Record<string, () => void> = {}): SlashCommands {
  const { conn } = useView();
  const commands = useTrait("commands") ?? [];
  const [shown, setShown] = useState<Shown>({ query: null, active: 0, dismissedAt: null });
  const now = useRef(shown);
  const [card, setCard] = useState<{ name: string; text: string } | null>(null);
  const change = (next: Partial<Shown>) => {
    now.current = { ...now.current, ...next };
    setShown(now.current);
  };
  const optionsNow = () => (now.current.query === null ? [] : matchingCommands(commands, now.current.query));
  const follow = () => {
    const el = box.current;
    const query = el ? commandQueryAt(el.value, el.selectionStart, el.selectionEnd) : null;
    if (query === null || query === now.current.dismissedAt) {
      change({ query: null, dismissedAt: query === null ? null : now.current.dismissedAt });
      return;
    }
    change({ query, active: query === now.current.query ? now.current.active : 0 });
  };
  const close = () => now.current.query !== null && change({ query: null });
  const pick = (command: CommandSpec) => {
    const el = box.current;
    if (!el) return;
    const next = withCommand(el.value, command.name);
    el.value = next.text;
    el.setSelectionRange(next.caret, next.caret);
    setText(next.text);
    close();
  };
  const onKey = (e: KeyboardEvent) => {
    const options = optionsNow();
    if (now.current.query === null || options.length === 0 || e.altKey || e.ctrlKey || e.metaKey || isComposing(e)) return false;
    const active = Math.min(now.current.active, options.length - 1);
    const typedInFull = options[active]?.name === now.current.query;
    if (e.key === "Enter" && typedInFull) {
      close(); // `/help` typed in full: Enter runs it
      return false;
    }
    if (e.key === "Escape") change({ query: null, dismissedAt: now.current.query });
    else if (e.key === "ArrowDown" || e.key === "ArrowUp") change({ active: (active + (e.key === "ArrowDown" ? 1 : options.length - 1)) % options.length });
    else if (e.key === "Enter" || (e.key === "Tab" && !e.shiftKey)) pick(options[active] as CommandSpec);
    else return false;
    e.preventDefault();
    e.stopPropagation();
    return true;
  };
  const sendOrRun = async (send: (literal?: string) => Promise<void>) => {
    const value = box.current?.value ?? "";
    const typed = commandOf(value);
    if (typed === null) return send(value.trimStart().startsWith("//") ? literalOf(value) : undefined);
    if (!commands.some((c) => c.name === typed.name) || !isCommandName(typed.name)) {
      conn.notices.add("warning", `Unknown command /${typed.name}; /help lists them`);
      return; // the text stays in the box: nothing is lost
    }
    setCard(null);
    setText("");
    if (box.current) box.current.value = "";
    close();
    const here = local[typed.name];
    if (here !== undefined && typed.args === "") return here();
    await runCommand(conn, typed.name, typed.args).then(
      (answer) => {
        if (answer.text !== null) setCard({ name: typed.name, text: answer.text });
        if (answer.download) saveFile(answer.download.filename, answer.download.mimeType, answer.download.text);
      },
      (error: unknown) => conn.notices.add("error", error instanceof Error ? error.message : String(error)),
    );
  };
  const options = shown.query === null ? [] : matchingCommands(commands, shown.query);
  const active = Math.min(shown.active, Math.max(options.length - 1, 0));
  return { query: shown.query, options, active, listId: `agui-commands-${conn.viewId}`, card, closeCard: () => setCard(null), follow, close, pick, onKey, sendOrRun };
}

type Answer = { text: string | null; download: { filename: string; mimeType: string; text: string } | null };

function runCommand(conn: ReturnType<typeof useView>["conn"], name: string, args: string): Promise<Answer> {
  return ask(conn, "command", (requestId) => ({ kind: "command", requestId, name, args }), (msg) => {
    if (msg.kind !== "command") throw new Error("The kernel answered something else.");
    if (msg.error !== null) throw new Error(msg.error);
    return { text: msg.text, download: msg.download ?? null };
  });
}

/** Saves `text` as a file the browser downloads. */
function saveFile(filename: string, mimeType: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: mimeType }));
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  link.style.display = "none";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** What the box says of the open command list to assistive technology (nothing while it is closed). */
export function commandAria(slash: SlashCommands): Record<string, string> {
  if (slash.query === null || slash.options.length === 0) return {};
  return { "aria-controls": slash.listId, "aria-activedescendant": `${slash.listId}-${slash.active}` };
}

/** The open list, above the message box: the matching commands and what each does. */
export function CommandList({ slash }: { slash: SlashCommands }) {
  if (slash.query === null || slash.options.length === 0) return null;
  return (
    <div class="agui-mentions agui-commands">
      <ul class="agui-mentions-list" id={slash.listId} role="listbox" aria-label="Commands">
        {slash.options.map((c, i) => (
          <li
            key={c.name}
            id={`${slash.listId}-${i}`}
            role="option"
            class="agui-mention-option agui-command-option"
            aria-selected={i === slash.active}
            onMouseDown={(e) => e.preventDefault() /* the focus stays in the box */}
            onClick={() => slash.pick(c)}
          >
            <span class="agui-mention-name">/{c.name}</span>
            <span class="agui-mention-type">{c.description}</span>
          </li>
        ))}
      </ul>
      <div class="agui-visually-hidden" role="status">
        {slash.options.length === 1 ? "1 command" : `${slash.options.length} commands`}
      </div>
    </div>
  );
}

/** What the last command returned, as Markdown, until dismissed or the next command. */
export function CommandCard({ slash }: { slash: SlashCommands }) {
  if (slash.card === null) return null;
  return (
    <div class="agui-command-card" role="region" aria-label={`/${slash.card.name}`}>
      <div class="agui-command-card-body">
        <Markdown text={slash.card.text} />
      </div>
      <button type="button" class="agui-btn agui-btn-quiet" aria-label={`Dismiss /${slash.card.name}`} onClick={slash.closeCard}>
        ×
      </button>
    </div>
  );
}
