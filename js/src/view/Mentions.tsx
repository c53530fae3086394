/**
 * `@` in the message box: typing `@` opens a list of the kernel's variables under the box (name,
 * type, shape), filtered by what follows the `@`; picking one (↑/↓ and Enter or Tab, or the mouse)
 * writes `@name` in the text and holds a chip for it. The chip's summary (the kernel's
 * `inspect_variable`) goes with the message as a text document named `@name`, as context.
 *
 * The list is asked of the kernel once per `@` (docs/wire.md, `variables`) and filtered here as
 * the user types on, so nothing travels with each key. The box keeps its own role (a text box) and
 * points at the list and its active option (`aria-controls`, `aria-activedescendant`), the
 * autocomplete pattern for a text area: the focus never leaves the box.
 */
import type { RefObject } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { askSummary, askVariables } from "../kernel/variables";
import type { MediaPart, VariableEntry } from "../kernel/wire";
import { describeVariable, isCallable, matching, type MentionQuery, mentionAt, mentionLabel, mentionPart, withMention } from "../logic/mentions";
import { useView } from "./context";
import { isComposing } from "./keys";

type Box = RefObject<HTMLTextAreaElement | null>;

/** A variable held for the next message: its summary once the kernel sent it, or why it did not. */
export type HeldMention = { name: string; type: string; summary: string | null; error: string | null };

export type MentionChips = {
  held: HeldMention[];
  /** What is held, as of the last event (a pick and Enter can come before the next render). */
  current: () => HeldMention[];
  /** Holds a chip for `variable` (once per name) and asks the kernel for its summary. */
  add: (variable: VariableEntry) => void;
  remove: (name: string) => void;
  clear: () => void;
  /** The files of a message that came back: its mentions are held again; the other files are returned. */
  takeBack: (files: readonly File[]) => File[];
  /** The parts the held mentions send, and the files the outbox keeps for them, once every
   * summary is here; throws a MentionProblem saying which mention cannot go. */
  ready: () => Promise<{ parts: MediaPart[]; files: File[] }>;
};

/** Why the held mentions cannot go with the message (one has no summary); the user reads it. */
export class MentionProblem extends Error {}

/** The mention a file of a sent message stands for (the outbox keeps files; a mention comes back as one). */
const mentionOfFile = new WeakMap<File, HeldMention>();

/** The held mentions; `removed` is told when the user takes one out (a problem it caused is moot). */
export function useMentionChips(box: Box, removed: () => void): MentionChips {
  const { conn } = useView();
  const [held, setHeld] = useState<HeldMention[]>([]);
  const now = useRef<HeldMention[]>([]);
  const waiting = useRef(new Map<string, Promise<void>>());
  const set = (next: HeldMention[]) => {
    now.current = next;
    setHeld(next);
  };
  const update = (name: string, change: Partial<HeldMention>) => set(now.current.map((m) => (m.name === name ? { ...m, ...change } : m)));
  const add = (variable: VariableEntry) => {
    if (now.current.some((m) => m.name === variable.name)) return;
    set([...now.current, { name: variable.name, type: variable.type, summary: null, error: null }]);
    const asking = askSummary(conn, variable.name).then(
      (summary) => update(variable.name, { summary, error: null }),
      (error: unknown) => update(variable.name, { error: error instanceof Error ? error.message : String(error) }),
    );
    waiting.current.set(variable.name, asking);
    void asking.finally(() => waiting.current.delete(variable.name));
  };
  const remove = (name: string) => {
    set(now.current.filter((m) => m.name !== name));
    removed();
    box.current?.focus();
  };
  const takeBack = (files: readonly File[]) => {
    const back = files.map((f) => mentionOfFile.get(f)).filter((m): m is HeldMention => m !== undefined);
    const names = new Set(now.current.map((m) => m.name));
    set([...back.filter((m) => !names.has(m.name)), ...now.current]);
    return files.filter((f) => !mentionOfFile.has(f));
  };
  const ready = async () => {
    await Promise.all(waiting.current.values());
    const failed = now.current.find((m) => m.summary === null);
    if (failed) throw new MentionProblem(`${mentionLabel(failed.name)}: ${failed.error ?? "no summary came."} Remove it to send the message.`);
    const mentions = now.current;
    const files = mentions.map((m) => {
      const file = new File([m.summary as string], mentionLabel(m.name), { type: "text/plain" });
      mentionOfFile.set(file, m);
      return file;
    });
    return { parts: mentions.map((m) => mentionPart(m.name, m.summary as string)), files };
  };
  return { held, current: () => now.current, add, remove, clear: () => set([]), takeBack, ready };
}

/** The kernel's variables for the `@` being typed, as far as the kernel answered. */
type Listing = { status: "asking" } | { status: "ready"; variables: VariableEntry[] } | { status: "failed"; error: string };

export type MentionPopup = {
  /** The mention being typed while the list is open; null when it is closed. */
  mention: MentionQuery | null;
  listing: Listing;
  options: VariableEntry[];
  active: number;
  listId: string;
  /** Looks at the text and the caret again (after input, a click, a caret move). */
  follow: () => void;
  close: () => void;
  pick: (variable: VariableEntry) => void;
  /** The keys of the open list; true when the key was the list's. */
  onKey: (e: KeyboardEvent) => boolean;
};

/** The list's state as of the last event, not the last render: keys can come faster than renders. */
type ListNow = { mention: MentionQuery | null; listing: Listing; active: number };

const optionsOf = ({ mention, listing }: ListNow) => (mention === null || listing.status !== "ready" ? [] : matching(listing.variables, mention.query));

export function useMentionPopup(box: Box, setText: (text: string) => void, chips: MentionChips): MentionPopup {
  const { conn } = useView();
  const [shown, setShown] = useState<ListNow>({ mention: null, listing: { status: "asking" }, active: 0 });
  const now = useRef<ListNow>(shown);
  const change = (next: Partial<ListNow>) => {
    now.current = { ...now.current, ...next };
    setShown(now.current);
  };
  /** The `@` the list was asked for (asked once per `@`), and the one Escape closed. */
  const askedFor = useRef<number | null>(null);
  const dismissed = useRef<number | null>(null);

  const follow = () => {
    const el = box.current;
    const found = el ? mentionAt(el.value, el.selectionStart, el.selectionEnd) : null;
    if (found === null || found.start === dismissed.current) {
      if (found === null) dismissed.current = null;
      if (now.current.mention !== null) change({ mention: null });
      return;
    }
    const was = now.current.mention;
    change({ mention: found, active: found.query === was?.query && found.start === was?.start ? now.current.active : 0 });
    if (askedFor.current === found.start) return;
    askedFor.current = found.start;
    change({ listing: { status: "asking" } });
    const start = found.start;
    askVariables(conn).then(
      (variables) => askedFor.current === start && change({ listing: { status: "ready", variables } }),
      (error: unknown) => askedFor.current === start && change({ listing: { status: "failed", error: error instanceof Error ? error.message : String(error) } }),
    );
  };
  const close = () => {
    askedFor.current = null;
    if (now.current.mention !== null) change({ mention: null });
  };
  const pick = (variable: VariableEntry) => {
    const el = box.current;
    const mention = now.current.mention;
    if (!el || mention === null) return;
    const next = withMention(el.value, mention, el.selectionStart, variable.name);
    el.value = next.text;
    el.setSelectionRange(next.caret, next.caret);
    setText(next.text);
    close();
    chips.add(variable);
  };
  const dismiss = () => {
    dismissed.current = now.current.mention?.start ?? null;
    close();
  };
  const onKey = (e: KeyboardEvent) => listKey(e, now.current, { move: (active) => change({ active }), pick, dismiss, close });
  const options = optionsOf(shown);
  const active = Math.min(shown.active, Math.max(options.length - 1, 0));
  return { mention: shown.mention, listing: shown.listing, options, active, listId: `agui-mentions-${conn.viewId}`, follow, close, pick, onKey };
}

type ListActions = { move: (active: number) => void; pick: (variable: VariableEntry) => void; dismiss: () => void; close: () => void };

/** ↑/↓ move, Enter or Tab picks, Escape closes the list (and keeps the focus in the box). With
 * nothing to pick, Enter and Tab close the list and do what they do without it. */
function listKey(e: KeyboardEvent, list: ListNow, { move, pick, dismiss, close }: ListActions): boolean {
  if (list.mention === null || e.altKey || e.ctrlKey || e.metaKey || isComposing(e)) return false;
  const options = optionsOf(list);
  const count = options.length;
  const active = Math.min(list.active, count - 1);
  const chosen = options[active];
  if (e.key === "Escape") {
    dismiss();
  } else if ((e.key === "ArrowDown" || e.key === "ArrowUp") && count > 0) {
    move((active + (e.key === "ArrowDown" ? 1 : count - 1)) % count);
  } else if ((e.key === "Enter" || (e.key === "Tab" && !e.shiftKey)) && chosen !== undefined) {
    pick(chosen);
  } else {
    if (e.key === "Enter" || e.key === "Tab") close();
    return false;
  }
  e.preventDefault();
  e.stopPropagation();
  return true;
}

/** What the message box says of the open list to assistive technology. */
export function boxAria(popup: MentionPopup): Record<string, string | undefined> {
  const open = popup.mention !== null && popup.options.length > 0;
  return {
    "aria-autocomplete": "list",
    "aria-controls": open ? popup.listId : undefined,
    "aria-activedescendant": open ? `${popup.listId}-${popup.active}` : undefined,
  };
}

/** The open list, above the message box: the matching variables, data before functions and classes. */
export function MentionList({ popup }: { popup: MentionPopup }) {
  const list = useRef<HTMLUListElement>(null);
  useLayoutEffect(() => {
    const option = list.current?.children[popup.active] as (HTMLElement & { scrollIntoView?: (o: unknown) => void }) | undefined;
    option?.scrollIntoView?.({ block: "nearest" });
  }, [popup.active, popup.options.length]);
  if (popup.mention === null) return null;
  const { listing, options, mention } = popup;
  const said = sayListing(listing, options.length, mention.query);
  return (
    <div class="agui-mentions">
      {said !== "" && (
        <div class={`agui-mentions-status${listing.status === "failed" ? " agui-mentions-error" : ""}`} role="status">
          {said}
        </div>
      )}
      {options.length > 0 && (
        <ul class="agui-mentions-list" id={popup.listId} role="listbox" aria-label="Variables in the kernel" ref={list}>
          {options.map((v, i) => (
            <li
              key={v.name}
              id={`${popup.listId}-${i}`}
              role="option"
              class="agui-mention-option"
              data-kind={v.kind}
              data-apart={isCallable(v) && (i === 0 || !isCallable(options[i - 1] as VariableEntry)) ? "" : undefined}
              aria-selected={i === popup.active}
              onMouseDown={(e) => e.preventDefault() /* the focus stays in the box */}
              onClick={() => popup.pick(v)}
            >
              <span class="agui-mention-name">{mentionLabel(v.name)}</span>
              <span class="agui-mention-type">{describeVariable(v)}</span>
              {isCallable(v) && <span class="agui-mention-kind">{v.kind}</span>}
            </li>
          ))}
        </ul>
      )}
      {options.length > 0 && (
        <div class="agui-visually-hidden" role="status">
          {options.length === 1 ? "1 variable" : `${options.length} variables`}
        </div>
      )}
    </div>
  );
}

function sayListing(listing: Listing, shown: number, query: string): string {
  if (listing.status === "asking") return "Asking the kernel for its variables…";
  if (listing.status === "failed") return listing.error;
  if (shown > 0) return "";
  return listing.variables.length === 0 ? "The kernel has no variables yet." : `No variable matches “${query}”.`;
}

/** The held mentions, as chips in the composer's list of what goes with the next message. */
export function MentionChipList({ chips, disabled }: { chips: MentionChips; disabled: boolean }) {
  return (
    <>
      {chips.held.map((m) => {
        const label = mentionLabel(m.name);
        const state = m.error !== null ? "failed" : m.summary === null ? "asking" : "ready";
        const detail = m.error ?? (m.summary === null ? "asking the kernel for its summary…" : `${m.type}, its summary goes with the message`);
        return (
          <div key={m.name} class="agui-held agui-held-mention" role="listitem" data-state={state} aria-busy={state === "asking" ? "true" : undefined}>
            <span class="agui-file-chip agui-mention-chip" title={`${label}: ${detail}`}>
              <span class="agui-file-kind">variable</span>
              <span class="agui-file-name">{label}</span>
              <span class="agui-file-size">{state === "failed" ? "unavailable" : m.type}</span>
            </span>
            <button type="button" class="agui-btn agui-btn-quiet agui-held-remove" aria-label={`Remove ${label}`} title={`Remove ${label}`} disabled={disabled} onClick={() => chips.remove(m.name)}>
              ×
            </button>
          </div>
        );
      })}
    </>
  );
}
