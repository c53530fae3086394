/** The transcript: one keyed row per message. The list itself re-renders only when messages
 * are added, removed or reordered; rows update themselves. What past runs left (their steps,
 * a failed turn's error) sits after the message it followed. A long transcript is windowed
 * (./Windowed.tsx): only the rows near the view are in the page. */
import type { ComponentChild } from "preact";
import { useMemo, useState } from "preact/hooks";
import type { Connection } from "../kernel/connection";
import { type PastRun, runTraces } from "../mirror/history";
import { textOf, toolCallsOf } from "../mirror/mirror";
import type { Message, RenderMessage } from "../kernel/wire";
import { Bundle } from "./Bundle";
import { Welcome } from "./Branding";
import { focusMessageBox } from "./focus";
import { useView } from "./context";
import { isDemoAgent } from "../logic/demoAgent";
import { useOutbox, useSubscription, useTopics, useTrait } from "./hooks";
import { Icon } from "./icons";
import { useLive } from "./KernelBanner";
import { type Author, MessageRow } from "./MessageRow";
import { StepList } from "./StatusLine";
import { FOLD_LINES, FoldingText } from "./Text";
import { type WindowRow, WindowedRows, windowFrom } from "./Windowed";
import { charsPerLine, markdownHeight, type Metrics, memoGuess, wrappedLines } from "../logic/windowing";

/** The sub-agent run a message belongs to (AG-UI 1.0 attribution), if any. */
function subagentOf(message: Message): string | null {
  const id = (message as { subagentRunId?: unknown }).subagentRunId;
  return typeof id === "string" && id !== "" ? id : null;
}

function pushTo<T>(groups: Map<string, T[]>, key: string, item: T): void {
  const group = groups.get(key);
  if (group) group.push(item);
  else groups.set(key, [item]);
}

/** The ids the message actions hang on: the last user message (the Edit that replaces no other
 * turn) and the answer after it (Regenerate). */
export function lastTurn(messages: readonly Message[]): { user: string | null; answer: string | null } {
  let user: string | null = null;
  let answer: string | null = null;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as Message;
    if (m.role === "user") {
      user = m.id;
      break;
    }
    if (answer === null && m.role === "assistant") answer = m.id;
  }
  return { user, answer: user === null ? null : answer };
}

/** Who a row speaks for, to label the first row of each run of rows by one author. A tool result
 * shown inside its call's card is no row of its own (null). */
function authorOf(message: Message, shownAlone: boolean): Author | null {
  switch (message.role) {
    case "user":
      return "user";
    case "assistant":
    case "reasoning":
    case "activity":
      return "assistant";
    case "tool":
      return shownAlone ? "assistant" : null;
    default:
      return null;
  }
}

/** The transcript as rows: what each draws, and an estimate of its height for the windowing. */
export type TranscriptRows = {
  rows: WindowRow[];
  /** how many of them draw something (a tool result shown in its call's card draws nothing) */
  drawn: number;
  /** state renders shown after the transcript (the running run changes the state) */
  atEnd: RenderMessage[];
  lastUser: string | null;
};

type ListProps = {
  /** the transcript's scroll box and its column (App's), for the windowing */
  scroller?: { current: HTMLElement | null };
  content?: { current: HTMLElement | null };
  /** the chat follows the newest message */
  following?: boolean;
};

const NO_ELEMENT: { current: HTMLElement | null } = { current: null };

export function MessageList({ scroller = NO_ELEMENT, content = NO_ELEMENT, following = true }: ListProps) {
  const { conn } = useView();
  const topics = useTopics("list", "ready", "renders", "subagents", "run");
  const runs = useSubscription((listener) => conn.history.subscribe(listener), [conn]);
  const pending = useTrait("pending");
  const outgoing = useOutbox();
  // Built again only when the transcript's shape changed, not at every render of the chat.
  const built = useMemo(() => transcriptRows(conn), [conn, topics, runs]);
  if (!conn.mirror.ready) return <div class="agui-empty">Connecting to the kernel…</div>;
  if (conn.mirror.messages().length === 0) return outgoing.length === 0 ? <EmptyChat /> : null;
  // Kept in the page wherever the view is: the message Edit changes, and the cards waiting for
  // an answer (their controls are where the keyboard goes next).
  const keep = new Set<string>();
  if (built.lastUser !== null) keep.add(rowKeyOf(conn, built.lastUser));
  for (const entry of pending) {
    const owner = entry.toolCallId ? conn.mirror.callOwnerOf(entry.toolCallId) : undefined;
    if (owner !== undefined) keep.add(rowKeyOf(conn, owner));
  }
  return (
    <>
      <WindowedRows rows={built.rows} all={built.drawn < windowFrom()} keep={keep} scroller={scroller} content={content} following={following} />
      {built.atEnd.map((r) => (
        <StateRender key={r.key} render={r} />
      ))}
      <Suggestions />
    </>
  );
}

/** The key of the row that shows message `id` (a sub-agent's messages share its block). */
function rowKeyOf(conn: Connection, id: string): string {
  const message = conn.mirror.message(id);
  const sub = message ? subagentOf(message) : null;
  return sub !== null ? `subagent:${sub}` : id;
}

/** The rows of the transcript as it stands. */
export function transcriptRows(conn: Connection): TranscriptRows {
  const messages = conn.mirror.messages();
  const { user, answer } = lastTurn(messages);
  // State renders sit after the message they follow (the last of the run that changed the state),
  // or at the end while a run changes it.
  const after = new Map<string, RenderMessage[]>();
  const atEnd: RenderMessage[] = [];
  for (const r of conn.mirror.renders()) {
    if (!r.key.startsWith("state:")) continue;
    if (r.after !== null && conn.mirror.message(r.after) !== undefined) pushTo(after, r.after, r);
    else atEnd.push(r);
  }
  const traces = runTraces(conn.history, messages);
  // A sub-agent's messages are shown together, where its first message is.
  const members = new Map<string, string[]>();
  for (const m of messages) {
    const sub = subagentOf(m);
    if (sub !== null) pushTo(members, sub, m.id);
  }
  const seen = new Set<string>();
  const rows: WindowRow[] = [];
  let drawn = 0;
  const add = (key: string, guess: (m: Metrics) => number, render: () => ComponentChild, draws = true) => {
    rows.push({ key, guess, render });
    if (draws) drawn++;
  };
  let lastAuthor: Author | null = null;
  for (const m of messages) {
    if (seen.has(m.id)) continue; // a duplicate id cannot be keyed; the mirror warned
    seen.add(m.id);
    const sub = subagentOf(m);
    if (sub !== null) {
      const key = `subagent:${sub}`;
      if (!seen.has(key)) {
        seen.add(key);
        const ids = members.get(sub) ?? [];
        add(key, (x) => 3 * x.font + x.gap, () => <SubagentBlock key={key} id={sub} messageIds={ids} />);
        lastAuthor = "assistant";
      }
    } else {
      const shownAlone = m.role !== "tool" || conn.mirror.callOwnerOf(m.toolCallId) === undefined;
      const author = authorOf(m, shownAlone);
      const label = author !== null && author !== lastAuthor ? author : undefined;
      if (author !== null) lastAuthor = author;
      rows.push(messageRow(m, m.id === user, m.id === answer, label, shownAlone));
      if (shownAlone) drawn++;
    }
    for (const r of after.get(m.id) ?? []) add(r.key, (x) => 6 * x.font + x.gap, () => <StateRender key={r.key} render={r} />);
    for (const t of traces.get(m.id) ?? []) {
      if (t.showSteps) {
        const key = `steps:${t.run.runId}:${m.id}`;
        add(key, (x) => (t.run.steps.length + t.run.unfinished.length + 1) * x.line + x.gap, () => <PastSteps key={key} id={key} run={t.run} />);
      }
      if (t.showError) {
        const key = `error:${t.run.runId}:${m.id}`;
        add(key, (x) => 2 * x.line + x.gap, () => <PastError key={key} id={key} run={t.run} />);
      }
    }
  }
  return { rows, drawn, atEnd, lastUser: user };
}

type Made = { row: WindowRow; lastUser: boolean; lastAnswer: boolean; author: Author | undefined; shownAlone: boolean };
/** The row made for each message object, kept while it still fits: building the transcript's
 * rows again after a message was appended then makes one row, not thousands. */
const made = new WeakMap<Message, Made>();

function messageRow(m: Message, lastUser: boolean, lastAnswer: boolean, author: Author | undefined, shownAlone: boolean): WindowRow {
  const known = made.get(m);
  if (known && known.lastUser === lastUser && known.lastAnswer === lastAnswer && known.author === author && known.shownAlone === shownAlone) return known.row;
  const row: WindowRow = {
    key: m.id,
    guess: (x) => (shownAlone ? memoGuess(m, x, () => guessMessage(m, x)) + (author ? 1.6 * x.font : 0) : 0),
    render: () => <MessageRow key={m.id} id={m.id} editable={m.role === "user"} lastUser={lastUser} lastAnswer={lastAnswer} author={author} />,
  };
  made.set(m, { row, lastUser, lastAnswer, author, shownAlone });
  return row;
}

/** About how tall a message's row is (px, its gap after it included), before it was drawn:
 * wrapped text, Markdown's code blocks, tool cards, attachments, the actions bar. The windowing
 * corrects all estimates by the ratio it measures on the rows it draws. */
export function guessMessage(message: Message, m: Metrics): number {
  const em = m.font;
  const actions = 0.35 * em + 1.4 * em;
  switch (message.role) {
    case "user": {
      const content = (message as { content?: unknown }).content;
      const lines = Math.min(wrappedLines(textOf(content), charsPerLine(m)), FOLD_LINES + 2);
      const parts = Array.isArray(content) ? content.filter((p) => (p as { type?: unknown })?.type !== "text").length : 0;
      return 0.9 * em + 2 + lines * m.line + parts * 6 * em + actions + m.gap;
    }
    case "assistant": {
      const text = textOf(message.content);
      const calls = toolCallsOf(message).length;
      let height = calls * 3 * em;
      if (text !== "") height += markdownHeight(text, m) + 0.9 * em + actions;
      return Math.max(height, m.line) + m.gap;
    }
    case "tool":
      return 5 * em + m.gap;
    case "activity":
      return 5 * em + m.gap;
    default:
      return 2.2 * em + m.gap;
  }
}

/** An empty chat: the agent's starter prompts when it has some, else a line saying what to do;
 * with the demo agent, that it answers `help`. */
function EmptyChat() {
  const starters = useStarters();
  const demo = isDemoAgent(useTrait("frontend_tools"), useTrait("agent_names"));
  const welcome = useTrait("welcome") !== "";
  return (
    <div class="agui-welcome">
      {welcome ? (
        <Welcome />
      ) : (
        <div class="agui-empty">
          {starters ? "No messages yet. Start with one of these, or type your own below." : "No messages yet. Type a message below and press Enter to start."}
          {demo && (
            <>
              {" "}
              The demo agent answers <code>help</code> with what it can show.
            </>
          )}
        </div>
      )}
      <Suggestions />
    </div>
  );
}

/** True when the empty chat has starter prompts to offer now. */
function useStarters(): boolean {
  const items = useTrait("suggestions");
  const after = useTrait("suggestions_after");
  const live = useLive();
  return items.length > 0 && after === "" && live;
}

/** What a state renderer (`chat.render_state`) made of the shared state. */
function StateRender({ render }: { render: RenderMessage }) {
  return (
    <div class="agui-row agui-state-render" data-render={render.key} data-row={render.key}>
      {render.error !== null && (
        <div class="agui-render-error" role="note">
          Could not render the state: {render.error}
        </div>
      )}
      {render.bundle !== null && <Bundle bundle={render.bundle} />}
    </div>
  );
}

/** The steps a finished run went through, where its progress was shown while it ran. */
function PastSteps({ id, run }: { id: string; run: PastRun }) {
  return (
    <div class="agui-row agui-run-steps" role="group" aria-label="Steps of an earlier run" data-run={run.runId} data-row={id}>
      <div class="agui-run-steps-list">
        <StepList done={run.steps} unfinished={run.unfinished} />
      </div>
    </div>
  );
}

/** A failed turn, after the next one started: a compact line (the latest error is the banner's). */
function PastError({ id, run }: { id: string; run: PastRun }) {
  const [open, setOpen] = useState(false);
  return (
    <div class="agui-row agui-past-error" role="note" data-run={run.runId} data-row={id}>
      {/* One line, cut with an ellipsis; the whole error is in it, shown in full on a click. */}
      <button type="button" class="agui-past-error-line" aria-expanded={open} title={open ? undefined : run.error} onClick={() => setOpen(!open)}>
        <Icon name="alert" />
        <span class="agui-past-error-text">
          <span class="agui-error-label">Failed:</span> {run.error}
        </span>
      </button>
    </div>
  );
}

/** One sub-agent's part of the run: its name, its outcome, and its messages and tool calls.
 * Open while it works, folded once it is done, unless the user opened or closed it. */
function SubagentBlock({ id, messageIds }: { id: string; messageIds: string[] }) {
  const { conn } = useView();
  const live = useLive();
  const info = conn.mirror.subagent(id);
  const status = info?.status ?? "running";
  const working = status === "running" && live && conn.mirror.run.active;
  // Only the user's own toggles are kept: the browser also fires `toggle` when `open` is set
  // from here, and taking that for a choice would keep the block open for good.
  const [chosen, setChosen] = useState<boolean | null>(null);
  const shown = chosen ?? working;
  // A sub-agent whose end this view never saw (its run stopped or failed first) is not working.
  const label = working ? "working" : status === "finished" ? "done" : status === "error" ? "failed" : info ? "stopped" : "";
  const badge = working ? "running" : status === "finished" ? "done" : status === "error" ? "error" : "stopped";
  return (
    <div class="agui-row agui-row-subagent" data-row={`subagent:${id}`}>
      <details
        class="agui-subagent"
        data-subagent={id}
        data-status={status}
        open={shown}
        onToggle={(e) => {
          const open = (e.currentTarget as HTMLDetailsElement).open;
          if (open !== shown) setChosen(open);
        }}
      >
        <summary>
          <span class="agui-subagent-name">{info?.name ?? "sub-agent"}</span>{" "}
          {label && <span class={`agui-badge agui-badge-${badge}`}>{label}</span>}
          {info?.description ? <span class="agui-subagent-description"> {info.description}</span> : null}
        </summary>
        {messageIds.map((mid) => (
          <MessageRow key={mid} id={mid} />
        ))}
        {status === "error" && info?.error ? <div class="agui-tool-error">{info.error}</div> : null}
      </details>
    </div>
  );
}

/** Suggested prompts as chips: the starters while the chat is empty, and those an agent gave
 * (CUSTOM `suggestions` or the state's `suggestions`) below its answer until the user sends. */
export function Suggestions() {
  const { conn, follower } = useView();
  const items = useTrait("suggestions");
  const after = useTrait("suggestions_after");
  const status = useTrait("status");
  const queued = useTrait("queued");
  const outgoing = useOutbox();
  const live = useLive();
  if (!live || items.length === 0 || (status !== "idle" && status !== "error") || queued.length > 0 || outgoing.length > 0) return null;
  const messages = conn.mirror.messages();
  const last = messages[messages.length - 1];
  const show = messages.length === 0 || (after !== "" && last?.id === after);
  if (!show) return null;
  return (
    <div class="agui-suggestions" role="group" aria-label="Suggestions">
      {items.map((s, i) => (
        <button
          key={`${i}:${s.title}`}
          type="button"
          class="agui-chip"
          title={s.message}
          onClick={() => {
            if (conn.sendMessage(s.message)) follower.follow();
          }}
        >
          {s.title}
        </button>
      ))}
    </div>
  );
}

/** User messages sent during a run, not started yet. */
export function QueuedList() {
  const queued = useTrait("queued");
  if (queued.length === 0) return null;
  return (
    <>
      {queued.map((q) => (
        <div key={q.id} class="agui-row agui-row-user agui-row-queued">
          <div class="agui-bubble agui-bubble-user">
            <FoldingText text={q.text} />
            <div class="agui-queued-tag">queued</div>
          </div>
        </div>
      ))}
    </>
  );
}

/** RUN_ERROR's code for a message a served app's input guard refused: the message shows "Not
 * sent" (the kernel marks it refused), so it is no error to retry. */
const INPUT_REFUSED = "input_refused";

/** The latest run's error (RUN_ERROR, or the `error` trait after a reload), with Retry. */
export function ErrorBanner() {
  const { conn, follower } = useView();
  useTopics("run");
  const traitError = useTrait("error");
  const status = useTrait("status");
  const live = useLive();
  const run = conn.mirror.run;
  const refused = run.errorCode === INPUT_REFUSED;
  const text = (refused ? "" : run.error) || (run.active ? "" : traitError);
  if (!text) return null;
  const busy = status === "running" || status === "waiting";
  return (
    <div class="agui-row agui-error agui-error-banner" role="alert">
      <div class="agui-error-text">
        <span class="agui-error-label">Error:</span> {text}
      </div>
      {!busy && live && (
        <button
          type="button"
          class="agui-btn agui-btn-small"
          onClick={(e) => {
            if (!conn.send({ kind: "regenerate" })) return;
            follower.follow();
            focusMessageBox(e.currentTarget); // this banner goes: the keyboard waits in the message box
          }}
        >
          <Icon name="retry" />
          Retry
        </button>
      )}
    </div>
  );
}
