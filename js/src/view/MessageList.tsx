/** The transcript: one keyed row per message. The list itself re-renders only when messages
 * are added, removed or reordered; rows update themselves. */
import { useView } from "./context";
import { useTopics, useTrait } from "./hooks";
import { MessageRow } from "./MessageRow";
import { PlainText } from "./Text";

export function MessageList() {
  const { conn } = useView();
  useTopics("list", "ready");
  const messages = conn.mirror.messages();
  if (!conn.mirror.ready) return <div class="agui-empty">Connecting to the kernel…</div>;
  const seen = new Set<string>();
  return (
    <>
      {messages.length === 0 && <div class="agui-empty">No messages yet.</div>}
      {messages.map((m) => {
        if (seen.has(m.id)) return null; // a duplicate id cannot be keyed; the mirror warned
        seen.add(m.id);
        return <MessageRow key={m.id} id={m.id} />;
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

/** The latest run's error (RUN_ERROR, or the `error` trait after a reload). */
export function ErrorLine() {
  const { conn } = useView();
  useTopics("run");
  const traitError = useTrait("error");
  const run = conn.mirror.run;
  const text = run.error || (run.active ? "" : traitError);
  if (!text) return null;
  return (
    <div class="agui-row agui-error" role="alert">
      <span class="agui-error-label">Error:</span> {text}
    </div>
  );
}
