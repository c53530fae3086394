/**
 * The threads panel: the store's threads (the active agent's, as `chat.threads()` lists them),
 * newest first, each with its title, its last activity ("5 min ago", the full date as a tooltip)
 * and its message count; the current one is marked. A thread is switched to by its title, renamed
 * in place (Enter saves, Escape cancels, an empty title takes back the one from its first
 * message) and deleted after a confirmation in its row (the current one: the chat goes on in a
 * new thread); "New thread" starts an empty one.
 *
 * The list comes from the kernel (docs/wire.md, `threads`): asked for when the panel opens, and
 * sent again by the kernel whenever the threads change (a turn ends, another view renames one).
 * While a run is active or waiting, or without a kernel, the controls are disabled and the panel
 * says why, as the kernel would refuse them.
 */
import type { RefObject } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { isObject, type KernelMessage, parseKernelMessage } from "../kernel/wire";
import { fullDate, messageCount, relativeTime, titleOf } from "../logic/threads";
import { useView } from "./context";
import { useTrait } from "./hooks";
import { Icon } from "./icons";
import { useLive } from "./KernelBanner";

type Listing = Extract<KernelMessage, { kind: "threads" }>;
type Entry = Listing["threads"][number];

/** Why the controls are disabled, shown in the panel ("" while they are not). */
export const WHY_BUSY = "A run is active: threads can be switched, started, renamed or deleted once it ends.";
export const WHY_NO_KERNEL = "No kernel is connected: the threads cannot change.";
/** How often (ms) the relative times are brought up to date while the panel is open. */
const TICK_MS = 30_000;
const MAX_TITLE = 200;

let asked = 0;

/** The kernel's latest list: the answer to this panel's request, or a list sent after a change. */
function useListing(): { listing: Listing | null; problem: string } {
  const { conn } = useView();
  const [listing, setListing] = useState<Listing | null>(null);
  const [problem, setProblem] = useState("");
  useEffect(() => {
    const requestId = `${conn.viewId}:threads:${++asked}`;
    const onMessage = (raw: unknown) => {
      if (!isObject(raw) || raw.kind !== "threads" || (raw.requestId !== null && raw.requestId !== requestId)) return;
      const msg = parseKernelMessage(raw);
      if (msg?.kind === "threads") setListing(msg);
    };
    conn.model.on("msg:custom", onMessage);
    if (!conn.send({ kind: "threads", requestId })) setProblem("The threads cannot be listed: the kernel is not connected.");
    return () => conn.model.off("msg:custom", onMessage);
  }, [conn]);
  return { listing, problem };
}

/** Re-renders every `ms`, so relative times stay true while the panel is open. */
function useTick(ms: number): void {
  const [, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((n) => n + 1), ms);
    (timer as { unref?: () => void }).unref?.();
    return () => clearInterval(timer);
  }, [ms]);
}

export function ThreadsPanel({ focusOnOpen = false }: { focusOnOpen?: boolean }) {
  const { conn } = useView();
  const { listing, problem } = useListing();
  const current = useTrait("thread_id") || listing?.current;
  const status = useTrait("status");
  const live = useLive();
  const why = !live ? WHY_NO_KERNEL : status === "running" || status === "waiting" ? WHY_BUSY : "";
  const whyId = `agui-threads-why-${conn.viewId}`;
  const section = useRef<HTMLElement>(null);
  const newButton = useRef<HTMLButtonElement>(null);
  useTick(TICK_MS);
  useLayoutEffect(() => {
    if (focusOnOpen) section.current?.focus();
  }, []);
  const threads = listing?.threads ?? [];
  // The current thread is listed even before the kernel's list shows it (just switched to).
  const shown = current && listing && !threads.some((t) => t.threadId === current) ? [{ threadId: current, title: "", updatedAt: Date.now() / 1000, messages: 0, named: false }, ...threads] : threads;
  const now = Date.now() / 1000;
  return (
    <section ref={section} tabIndex={-1} class="agui-panel agui-threads" aria-label="Threads">
      <div class="agui-panel-head">
        <span class="agui-panel-title">Threads</span>
        <span class="agui-panel-note">{listing ? (shown.length === 1 ? "1 thread" : `${shown.length} threads`) : ""}</span>
        <button
          type="button"
          ref={newButton}
          class="agui-btn agui-btn-small"
          disabled={why !== ""}
          aria-describedby={why ? whyId : undefined}
          title={why || "Start a new, empty thread"}
          onClick={() => conn.send({ kind: "new_thread" })}
        >
          New thread
        </button>
      </div>
      {why !== "" && (
        <div class="agui-threads-why" id={whyId} role="status">
          {why}
        </div>
      )}
      <div class="agui-panel-body">
        {listing === null ? (
          <div class="agui-empty" role={problem ? "alert" : undefined}>
            {problem || "Listing the threads…"}
          </div>
        ) : (
          <ul class="agui-threads-list" aria-label="Threads">
            {shown.map((entry) => (
              <ThreadRow key={entry.threadId} entry={entry} current={entry.threadId === current} why={why} whyId={whyId} now={now} onDeleted={() => newButton.current?.focus()} />
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}

type RowProps = { entry: Entry; current: boolean; why: string; whyId: string; now: number; onDeleted: () => void };

function ThreadRow({ entry, current, why, whyId, now, onDeleted }: RowProps) {
  const { conn } = useView();
  const [mode, setMode] = useState<"show" | "rename" | "delete">("show");
  const renameButton = useRef<HTMLButtonElement>(null);
  const deleteButton = useRef<HTMLButtonElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  // After the editor or the confirmation closes by key or button, the focus goes back to what opened it.
  const refocus = useRef<"rename" | "delete" | null>(null);
  const disabled = why !== "";
  useEffect(() => {
    if (disabled) setMode("show"); // a run started meanwhile: nothing can be done until it ends
  }, [disabled]);
  useLayoutEffect(() => {
    if (mode === "delete") cancelButton.current?.focus();
    if (mode !== "show" || refocus.current === null) return;
    (refocus.current === "rename" ? renameButton : deleteButton).current?.focus();
    refocus.current = null;
  }, [mode]);
  const title = titleOf(entry.title);
  const close = (back: "rename" | "delete" | null) => {
    refocus.current = back;
    setMode("show");
  };
  const described = disabled ? whyId : undefined;
  return (
    <li class="agui-thread" data-current={current ? "" : undefined}>
      {mode === "rename" ? (
        <TitleEditor
          entry={entry}
          title={title}
          onDone={(next, byKey) => {
            if (next !== null) conn.send({ kind: "rename_thread", threadId: entry.threadId, title: next });
            close(byKey ? "rename" : null);
          }}
        />
      ) : (
        <button
          type="button"
          class="agui-thread-open"
          aria-current={current ? "true" : undefined}
          aria-label={current ? undefined : `Switch to ${title}`}
          aria-describedby={described}
          disabled={disabled && !current}
          title={current ? "The current thread" : why || `Switch to this thread (${entry.threadId})`}
          onClick={() => {
            if (!current) conn.send({ kind: "switch_thread", threadId: entry.threadId });
          }}
        >
          <span class={`agui-thread-title${entry.title.trim() === "" ? " agui-thread-untitled" : ""}`}>{title}</span>
          {/* the space makes the current thread's name "<title> current", as it reads (WCAG 2.5.3) */}
          {current && " "}
          {current && <span class="agui-thread-badge">current</span>}
        </button>
      )}
      <ThreadMeta entry={entry} now={now} />
      {mode === "delete" ? (
        <DeleteConfirm
          title={title}
          current={current}
          cancelButton={cancelButton}
          onCancel={() => close("delete")}
          onDelete={() => {
            conn.send({ kind: "delete_thread", threadId: entry.threadId });
            setMode("show");
            onDeleted();
          }}
        />
      ) : (
        mode === "show" && (
          <RowActions title={title} why={why} described={described} renameButton={renameButton} deleteButton={deleteButton} onRename={() => setMode("rename")} onDelete={() => setMode("delete")} />
        )
      )}
    </li>
  );
}

type ActionsProps = {
  title: string;
  why: string;
  described: string | undefined;
  renameButton: RefObject<HTMLButtonElement | null>;
  deleteButton: RefObject<HTMLButtonElement | null>;
  onRename: () => void;
  onDelete: () => void;
};

/** A thread's Rename and Delete buttons (disabled, saying why, while nothing may change). */
function RowActions({ title, why, described, renameButton, deleteButton, onRename, onDelete }: ActionsProps) {
  return (
    <span class="agui-thread-actions">
      <button type="button" ref={renameButton} class="agui-tool-btn" aria-label={`Rename ${title}`} aria-describedby={described} title={why || "Rename"} disabled={why !== ""} onClick={onRename}>
        <Icon name="edit" />
      </button>
      <button type="button" ref={deleteButton} class="agui-tool-btn" aria-label={`Delete ${title}`} aria-describedby={described} title={why || "Delete"} disabled={why !== ""} onClick={onDelete}>
        <Icon name="trash" />
      </button>
    </span>
  );
}

/** When the thread was last active (relative, the full date as a tooltip), and its size. */
function ThreadMeta({ entry, now }: { entry: Entry; now: number }) {
  return (
    <span class="agui-thread-meta">
      <time dateTime={new Date(entry.updatedAt * 1000).toISOString()} title={fullDate(entry.updatedAt)}>
        {relativeTime(entry.updatedAt, now)}
      </time>
      <span aria-hidden="true"> · </span>
      <span>{messageCount(entry.messages)}</span>
    </span>
  );
}

type ConfirmProps = { title: string; current: boolean; cancelButton: RefObject<HTMLButtonElement | null>; onCancel: () => void; onDelete: () => void };

/** Deleting asks first, in the row: Escape or Cancel keeps the thread. */
function DeleteConfirm({ title, current, cancelButton, onCancel, onDelete }: ConfirmProps) {
  return (
    <div
      class="agui-confirm agui-thread-confirm"
      role="group"
      aria-label={`Delete ${title}?`}
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          onCancel();
        }
      }}
    >
      <span class="agui-confirm-text">{current ? "Delete this thread? The chat goes on in a new one." : "Delete this thread?"}</span>
      <button type="button" class="agui-btn agui-btn-danger agui-btn-small" onClick={onDelete}>
        Yes, delete
      </button>
      <button type="button" class="agui-btn agui-btn-small" ref={cancelButton} onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

/** The box a title is edited in: Enter saves (an unchanged title sends nothing), Escape cancels,
 * leaving it cancels. `onDone(null)` is a cancel; `byKey` says whether a key closed it. */
function TitleEditor({ entry, title, onDone }: { entry: Entry; title: string; onDone: (next: string | null, byKey: boolean) => void }) {
  const box = useRef<HTMLInputElement>(null);
  const finished = useRef(false);
  useLayoutEffect(() => {
    box.current?.focus();
    box.current?.select();
  }, []);
  const finish = (next: string | null, byKey: boolean) => {
    if (finished.current) return;
    finished.current = true;
    onDone(next, byKey);
  };
  return (
    <input
      ref={box}
      type="text"
      class="agui-input agui-thread-edit"
      aria-label={`New title for ${title}`}
      maxLength={MAX_TITLE}
      placeholder="Empty: the first message's words"
      defaultValue={entry.title}
      onKeyDown={(e) => {
        if (e.key === "Enter") {
          e.preventDefault();
          const next = e.currentTarget.value.trim().split(/\s+/).join(" ");
          finish(next === entry.title ? null : next, true);
        } else if (e.key === "Escape") {
          e.preventDefault();
          e.stopPropagation();
          finish(null, true);
        }
      }}
      onBlur={() => finish(null, false)}
    />
  );
}
