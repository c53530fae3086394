/** The input: a multi-line box (Enter sends, Shift+Enter is a newline, Escape leaves it) and one
 * button that is "Send" when idle and "Stop" while a run is active. Sending during a run queues
 * the message. A sent message shows in the transcript at once, waiting for the kernel, and comes
 * back into the box if the kernel never shows it (../kernel/outbox.ts). When the kernel is gone the box
 * keeps what was typed, read-only (it can still be selected and copied), under a banner that says
 * what happened.
 *
 * Files join the message by paste, drag and drop, or the Attach button, within the chat's
 * `attachment_policy`; each shows a preview that can be removed before sending, and a file over a
 * limit is refused with the reason.
 *
 * `@` lists the kernel's variables; a picked one joins the message as a chip whose summary goes
 * with it as context (./Mentions.tsx). While that list is open, its keys come first. */
import type { RefObject } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { partOf } from "../logic/attachments";
import { useView } from "./context";
import { AttachButton, type HeldFiles, HeldList, useFileDrop, useHeldFiles } from "./HeldFiles";
import { useTrait } from "./hooks";
import { KernelBanner, useLive } from "./KernelBanner";
import { insertLineBreak, isComposing, undoOrRedo } from "./keys";
import { boxAria, MentionChipList, type MentionChips, MentionList, MentionProblem, useMentionChips, useMentionPopup } from "./Mentions";
import { CommandCard, CommandList, commandAria, useSlashCommands } from "./SlashCommands";

type Box = RefObject<HTMLTextAreaElement | null>;

export function Composer({ onSent, onThreads }: { onSent?: () => void; onThreads?: () => void }) {
  const { conn } = useView();
  const status = useTrait("status");
  const live = useLive();
  const policy = useTrait("attachment_policy");
  const [text, setText] = useState("");
  const box = useRef<HTMLTextAreaElement>(null);
  const held = useHeldFiles(policy, box);
  const drop = useFileDrop(live, policy.enabled, held.add);
  const chips = useMentionChips(box, () => held.setProblem(""));
  const popup = useMentionPopup(box, setText, chips);
  const sendMessage = useSend({ box, text, setText, held, chips, live, onSent });
  const slash = useSlashCommands(box, setText, onThreads ? { threads: onThreads } : {}); // `/name args` runs a command (./SlashCommands.tsx)
  const send = () => slash.sendOrRun(sendMessage);
  useReturnedMessages(box, setText, held, chips);
  const busy = live && (status === "running" || status === "waiting");
  const ownPlaceholder = useTrait("placeholder");
  const bannerId = `agui-kernel-${conn.viewId}`;
  const problemId = `agui-attach-problem-${conn.viewId}`;

  return (
    <>
      <KernelBanner id={bannerId} />
      <CommandCard slash={slash} />
      <HeldList files={held.files} disabled={!live} onRemove={held.remove}>
        {chips.held.length > 0 && <MentionChipList chips={chips} disabled={!live} />}
      </HeldList>
      {held.problem !== "" && (
        <div class="agui-attach-problem" id={problemId} role="alert">
          {held.problem}
        </div>
      )}
      <div
        class="agui-composer"
        data-live={live ? undefined : "false"}
        data-dragging={drop.dragging ? "" : undefined}
        onDragOver={drop.onDragOver}
        onDragLeave={drop.onDragLeave}
        onDrop={drop.onDrop}
      >
        <MentionList popup={popup} />
        <CommandList slash={slash} />
        <AttachButton policy={policy} live={live} add={held.add} box={box} />
        <textarea
          ref={box}
          class="agui-input agui-message-box"
          aria-label="Message"
          aria-describedby={live ? undefined : bannerId}
          readOnly={!live}
          rows={2}
          placeholder={placeholderFor(live, busy, ownPlaceholder)}
          value={text}
          {...boxAria(popup)}
          {...commandAria(slash)}
          onInput={(e) => {
            setText(e.currentTarget.value);
            if (live) popup.follow();
            if (live) slash.follow();
          }}
          onKeyDown={(e) => slash.onKey(e) || popup.onKey(e) || onMessageKey(e, box, live, send)}
          onKeyUp={(e) => CARET_KEYS.has(e.key) && popup.follow()}
          onClick={() => live && popup.follow()}
          onBlur={() => closeLists(popup, slash)}
          onPaste={drop.onPaste}
        />
        {busy ? (
          <button type="button" class="agui-btn agui-btn-stop" onClick={() => conn.send({ kind: "stop" })}>
            Stop
          </button>
        ) : (
          <button type="button" class="agui-btn agui-btn-primary" disabled={!live} onClick={() => void send()}>
            Send
          </button>
        )}
      </div>
    </>
  );
}

/** Leaving the box closes the `@` and `/` lists. */
function closeLists(...lists: Array<{ close: () => void }>): void {
  for (const list of lists) list.close();
}

/** Keys that move the caret into or out of a mention being typed. */
const CARET_KEYS = new Set(["ArrowLeft", "ArrowRight", "Home", "End"]);

function placeholderFor(live: boolean, busy: boolean, idle: string): string {
  if (!live) return "Disconnected from the kernel";
  return busy ? "Queue a message (Enter), or Stop the run" : idle || "Message (Enter to send, Shift+Enter for a new line)";
}

/** The message box's keys: Enter sends, Shift+Enter is a newline, Escape leaves the box; undo and
 * redo are done here (./keys.ts), and keys that compose a character are left alone. */
function onMessageKey(e: KeyboardEvent, box: Box, live: boolean, send: () => Promise<void>): void {
  if (isComposing(e) || undoOrRedo(e)) return;
  if (e.key === "Escape") {
    // Out of the box, so the notebook's own keys work again from here.
    e.preventDefault();
    box.current?.blur();
    return;
  }
  if (e.key !== "Enter") return;
  if (e.shiftKey) {
    if (box.current && live) insertLineBreak(e, box.current);
    return;
  }
  e.preventDefault();
  void send();
}

type Sending = {
  box: Box;
  text: string;
  setText: (text: string) => void;
  held: HeldFiles;
  chips: MentionChips;
  live: boolean;
  onSent: (() => void) | undefined;
};

/** Sends the box's text with the held files (read first) and the held mentions' summaries, then
 * empties the composer and follows the answer. What could not be sent (the kernel went away, a
 * file could not be read, a mention has no summary) stays. */
function useSend({ box, text, setText, held, chips, live, onSent }: Sending): (literal?: string) => Promise<void> {
  const { conn, follower } = useView();
  const sending = useRef(false);
  return async (literal?: string) => {
    // Read the box itself: a key press can arrive before the state update of the last input.
    const value = (literal ?? box.current?.value ?? text).trim();
    const files = held.current();
    const mentioned = chips.current().length > 0;
    if ((!value && files.length === 0 && !mentioned) || !live || sending.current) {
      box.current?.focus();
      return;
    }
    sending.current = true;
    try {
      // No await without files or mentions: Enter sends before anything else can happen.
      const attachments = files.length > 0 ? await Promise.all(files.map(partOf)) : [];
      const mentions = mentioned ? await chips.ready() : { parts: [], files: [] };
      // Not sent (the kernel went away just now): the text, the files and the mentions stay for the user.
      if (!conn.sendMessage(value, [...files, ...mentions.files], [...attachments, ...mentions.parts])) return;
    } catch (error) {
      held.setProblem(error instanceof MentionProblem ? error.message : `Could not read a file: ${String(error)}`);
      return;
    } finally {
      sending.current = false;
    }
    setText("");
    held.hold([]);
    chips.clear();
    held.setProblem("");
    if (box.current) box.current.value = "";
    // The answer to this message is what the user wants to see next.
    follower.follow();
    onSent?.();
  };
}

/** A message the kernel never showed comes back into the composer, before what was typed since
 * (../kernel/outbox.ts), its files before the ones held. */
function useReturnedMessages(box: Box, setText: (text: string) => void, held: HeldFiles, chips: MentionChips): void {
  const { conn } = useView();
  useLayoutEffect(() => {
    const restore = () => {
      const back = conn.outbox.takeReturned();
      if (back.length === 0) return;
      const typed = box.current?.value ?? "";
      const restored = [...back.map((m) => m.text), typed].filter((t) => t.trim() !== "").join("\n\n");
      setText(restored);
      if (box.current) box.current.value = restored;
      const files = chips.takeBack(back.flatMap((m) => m.files));
      if (files.length > 0) held.hold([...files, ...held.current()]);
    };
    restore();
    return conn.outbox.subscribe(restore);
  }, [conn]);
}
