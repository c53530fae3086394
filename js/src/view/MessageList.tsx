/** The transcript: one keyed row per message. The list itself re-renders only when messages
 * are added, removed or reordered; rows update themselves. */
import { useState } from "preact/hooks";
import type { RenderMessage } from "../wire";
import { Bundle } from "./Bundle";
import { useView } from "./context";
import { useTopics, useTrait } from "./hooks";
import { Icon } from "./icons";
import { MessageRow } from "./MessageRow";
import { PlainText } from "./Text";
import type { Message } from "../wire";

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

/** The ids the message actions hang on: the last user message (Edit) and the answer after it
 * (Regenerate). */
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

export function MessageList() {
  const { conn } = useView();
  useTopics("list", "ready", "renders", "subagents");
  const messages = conn.mirror.messages();
  if (!conn.mirror.ready) return <div class="agui-empty">Connecting to the kernel…</div>;
  const { user, answer } = lastTurn(messages);
  const ids = new Set(messages.map((m) => m.id));
  // State renders sit after the message they follow (the last of the run that changed the state),
  // or at the end while a run changes it.
  const after = new Map<string, RenderMessage[]>();
  const atEnd: RenderMessage[] = [];
  for (const r of conn.mirror.renders()) {
    if (!r.key.startsWith("state:")) continue;
    if (r.after !== null && ids.has(r.after)) pushTo(after, r.after, r);
    else atEnd.push(r);
  }
  // A sub-agent's messages are shown together, where its first message is.
  const members = new Map<string, string[]>();
  for (const m of messages) {
    const sub = subagentOf(m);
    if (sub !== null) pushTo(members, sub, m.id);
  }
  const seen = new Set<string>();
  const rows = [];
  for (const m of messages) {
    if (seen.has(m.id)) continue; // a duplicate id cannot be keyed; the mirror warned
    seen.add(m.id);
    const sub = subagentOf(m);
    if (sub !== null) {
      if (!seen.has(`subagent:${sub}`)) {
        seen.add(`subagent:${sub}`);
        rows.push(<SubagentBlock key={`subagent:${sub}`} id={sub} messageIds={members.get(sub) ?? []} />);
      }
    } else {
      rows.push(<MessageRow key={m.id} id={m.id} lastUser={m.id === user} lastAnswer={m.id === answer} />);
    }
    for (const r of after.get(m.id) ?? []) rows.push(<StateRender key={r.key} render={r} />);
  }
  return (
    <>
      {messages.length === 0 && <div class="agui-empty">No messages yet.</div>}
      {rows}
      {atEnd.map((r) => (
        <StateRender key={r.key} render={r} />
      ))}
      <Suggestions />
    </>
  );
}

/** What a state renderer (`chat.render_state`) made of the shared state. */
function StateRender({ render }: { render: RenderMessage }) {
  return (
    <div class="agui-row agui-state-render" data-render={render.key}>
      {render.error !== null && (
        <div class="agui-render-error" role="note">
          Could not render the state: {render.error}
        </div>
      )}
      {render.bundle !== null && <Bundle bundle={render.bundle} />}
    </div>
  );
}

/** One sub-agent's part of the run: its name, its outcome, and its messages and tool calls. */
function SubagentBlock({ id, messageIds }: { id: string; messageIds: string[] }) {
  const { conn } = useView();
  const info = conn.mirror.subagent(id);
  const status = info?.status ?? "running";
  const [open, setOpen] = useState<boolean | null>(null);
  const shown = open ?? status === "running";
  const label = status === "running" ? "working" : status === "finished" ? "done" : "failed";
  return (
    <div class="agui-row agui-row-subagent">
      <details class="agui-subagent" data-subagent={id} data-status={status} open={shown} onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
        <summary>
          <span class="agui-subagent-name">{info?.name ?? "sub-agent"}</span>{" "}
          <span class={`agui-badge agui-badge-${status === "running" ? "running" : status === "finished" ? "done" : "error"}`}>{label}</span>
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
  const { conn } = useView();
  const items = useTrait("suggestions");
  const after = useTrait("suggestions_after");
  const status = useTrait("status");
  const queued = useTrait("queued");
  if (items.length === 0 || (status !== "idle" && status !== "error") || queued.length > 0) return null;
  const messages = conn.mirror.messages();
  const last = messages[messages.length - 1];
  const show = messages.length === 0 || (after !== "" && last?.id === after);
  if (!show) return null;
  return (
    <div class="agui-suggestions" role="group" aria-label="Suggestions">
      {items.map((s, i) => (
        <button key={`${i}:${s.title}`} type="button" class="agui-chip" title={s.message} onClick={() => conn.send({ kind: "send", text: s.message })}>
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
            <PlainText text={q.text} />
            <div class="agui-queued-tag">queued</div>
          </div>
        </div>
      ))}
    </>
  );
}

/** The latest run's error (RUN_ERROR, or the `error` trait after a reload), with Retry. */
export function ErrorBanner() {
  const { conn } = useView();
  useTopics("run");
  const traitError = useTrait("error");
  const status = useTrait("status");
  const run = conn.mirror.run;
  const text = run.error || (run.active ? "" : traitError);
  if (!text) return null;
  const busy = status === "running" || status === "waiting";
  return (
    <div class="agui-row agui-error agui-error-banner" role="alert">
      <div class="agui-error-text">
        <span class="agui-error-label">Error:</span> {text}
      </div>
      {!busy && (
        <button type="button" class="agui-btn agui-btn-small" onClick={() => conn.send({ kind: "regenerate" })}>
          <Icon name="retry" />
          Retry
        </button>
      )}
    </div>
  );
}
