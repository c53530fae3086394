/** The transcript: one keyed row per message. The list itself re-renders only when messages
 * are added, removed or reordered; rows update themselves. */
import { useView } from "./context";
import { useTopics, useTrait } from "./hooks";
import { Icon } from "./icons";
import { MessageRow } from "./MessageRow";
import { PlainText } from "./Text";
import type { Message } from "../wire";

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
  useTopics("list", "ready");
  const messages = conn.mirror.messages();
  if (!conn.mirror.ready) return <div class="agui-empty">Connecting to the kernel…</div>;
  const { user, answer } = lastTurn(messages);
  const seen = new Set<string>();
  return (
    <>
      {messages.length === 0 && <div class="agui-empty">No messages yet.</div>}
      {messages.map((m) => {
        if (seen.has(m.id)) return null; // a duplicate id cannot be keyed; the mirror warned
        seen.add(m.id);
        return <MessageRow key={m.id} id={m.id} lastUser={m.id === user} lastAnswer={m.id === answer} />;
      })}
    </>
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
