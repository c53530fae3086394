/** One row of the transcript. Each row listens to its own message, so a streaming token
 * re-renders this row only. */
import type { ComponentChildren } from "preact";
import { useErrorBoundary, useLayoutEffect, useRef, useState } from "preact/hooks";
import { warn } from "../log";
import { textOf, toolCallsOf, widgetMark } from "../mirror";
import { isObject, type Message } from "../wire";
import { copyText } from "../util/clipboard";
import { useView } from "./context";
import { partLabel, valueText } from "./format";
import { useMessage, useTrait } from "./hooks";
import { Icon } from "./icons";
import { Bundle, displayOf } from "./Bundle";
import { FoldedText } from "./Json";
import { insertLineBreak, isComposing } from "./keys";
import { Markdown } from "./Markdown";
import { pure } from "./pure";
import { PlainText } from "./Text";
import { ToolCallCard } from "./ToolCallCard";

type RowProps = {
  id: string;
  /** the last user message: it can be edited and sent again */
  lastUser?: boolean;
  /** the last answer: it can be regenerated */
  lastAnswer?: boolean;
};

export const MessageRow = pure(function MessageRow(props: RowProps) {
  return (
    <Guard>
      <MessageBody {...props} />
    </Guard>
  );
});

/** One message that fails to render shows a line instead of breaking the whole view. */
function Guard({ children }: { children: ComponentChildren }) {
  const [error] = useErrorBoundary((e) => warn("a message failed to render:", e));
  if (error) return <div class="agui-row agui-row-broken">This message could not be shown.</div>;
  return <>{children}</>;
}

function MessageBody({ id, lastUser = false, lastAnswer = false }: RowProps) {
  const { conn } = useView();
  const message = useMessage(id);
  if (!message) return null;
  const streaming = conn.mirror.isStreaming(id);
  switch (message.role) {
    case "user":
      return <UserMessage message={message} editable={lastUser} />;
    case "assistant":
      return <AssistantMessage message={message} streaming={streaming} regenerable={lastAnswer} />;
    case "reasoning":
      return <Reasoning text={textOf(message.content)} streaming={streaming} />;
    case "tool": {
      // Shown inside the card of the call it answers; alone only when that call is unknown.
      if (conn.mirror.callOwnerOf(message.toolCallId) !== undefined) return null;
      const shown = valueText(message.content);
      const display = displayOf(message);
      return (
        <div class="agui-row agui-row-tool">
          <div class="agui-tool">
            <div class="agui-tool-head">
              <span class="agui-tool-name">Tool result</span>
            </div>
            {display ? <Bundle bundle={display} /> : <FoldedText text={shown.text} json={shown.json} />}
          </div>
        </div>
      );
    }
    case "activity":
      return <ActivityCard type={message.activityType} content={message.content} />;
    default:
      return <SystemNote message={message} />;
  }
}

/** Is the chat between runs (actions that start a run are offered only then)? */
function useIdle(): boolean {
  const status = useTrait("status");
  return status === "idle" || status === "error";
}

function CopyMessage({ text }: { text: string }) {
  const [copied, setCopied] = useState<boolean | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useLayoutEffect(() => () => clearTimeout(timer.current), []);
  const copy = () => {
    void copyText(text).then((ok) => {
      setCopied(ok);
      clearTimeout(timer.current);
      timer.current = setTimeout(() => setCopied(null), 1500);
    });
  };
  return (
    <>
      <button type="button" class="agui-action" aria-label="Copy message" title="Copy message" onClick={copy}>
        <Icon name={copied ? "check" : "copy"} />
      </button>
      {copied !== null && (
        <span class="agui-action-note" role="status">
          {copied ? "Copied" : "Could not copy"}
        </span>
      )}
    </>
  );
}

function RegenerateButton() {
  const { conn } = useView();
  if (!useIdle()) return null;
  return (
    <button type="button" class="agui-action" aria-label="Regenerate" title="Regenerate the answer" onClick={() => conn.send({ kind: "regenerate" })}>
      <Icon name="regenerate" />
    </button>
  );
}

function EditButton({ onEdit }: { onEdit: () => void }) {
  if (!useIdle()) return null;
  return (
    <button type="button" class="agui-action" aria-label="Edit message" title="Edit and send again" onClick={onEdit}>
      <Icon name="edit" />
    </button>
  );
}

function UserMessage({ message, editable }: { message: Extract<Message, { role: "user" }>; editable: boolean }) {
  const [editing, setEditing] = useState(false);
  const text = textOf(message.content);
  const parts = Array.isArray(message.content) ? message.content.map(partLabel).filter(Boolean) : [];
  const refused = refusal(message);
  if (editing && editable) return <EditBox message={message} text={text} onDone={() => setEditing(false)} />;
  return (
    <div class="agui-row agui-row-user">
      <div class="agui-bubble agui-bubble-user">
        <PlainText text={text} />
        {parts.length > 0 && <div class="agui-attachments">{parts.join(" ")}</div>}
        {refused !== null && <div class="agui-refused">Not sent: {refused}</div>}
      </div>
      <div class="agui-actions-bar">
        {text !== "" && <CopyMessage text={text} />}
        {editable && <EditButton onEdit={() => setEditing(true)} />}
      </div>
    </div>
  );
}

/** The last user message in a box: Enter (or "Save and send") replaces it and runs again. */
function EditBox({ message, text, onDone }: { message: Message; text: string; onDone: () => void }) {
  const { conn } = useView();
  const box = useRef<HTMLTextAreaElement>(null);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);
  const save = () => {
    const value = (box.current?.value ?? text).trim();
    if (!value) return;
    if (value !== text.trim()) conn.send({ kind: "edit", messageId: message.id, text: value });
    onDone();
  };
  return (
    <div class="agui-row agui-row-user agui-row-editing">
      <div class="agui-edit">
        <textarea
          ref={box}
          class="agui-input agui-edit-box"
          aria-label="Edited message"
          rows={3}
          defaultValue={text}
          onKeyDown={(e) => {
            if (e.key === "Escape") {
              e.preventDefault();
              onDone();
              return;
            }
            if (e.key !== "Enter" || isComposing(e)) return;
            if (e.shiftKey) {
              insertLineBreak(e, e.currentTarget);
              return;
            }
            e.preventDefault();
            save();
          }}
        />
        <div class="agui-actions">
          <button type="button" class="agui-btn agui-btn-primary" onClick={save}>
            Save and send
          </button>
          <button type="button" class="agui-btn" onClick={onDone}>
            Cancel
          </button>
        </div>
      </div>
    </div>
  );
}

function AssistantMessage({
  message,
  streaming,
  regenerable,
}: {
  message: Extract<Message, { role: "assistant" }>;
  streaming: boolean;
  regenerable: boolean;
}) {
  const { conn } = useView();
  const text = textOf(message.content);
  const calls = toolCallsOf(message);
  const display = displayOf(message);
  return (
    <div class="agui-row agui-row-assistant">
      {(text !== "" || (streaming && calls.length === 0)) && (
        <div class="agui-bubble agui-bubble-assistant">
          {display !== null && !streaming ? <Bundle bundle={display} /> : <Markdown text={text} streaming={streaming} />}
          {wasStopped(message) && <div class="agui-stopped">stopped</div>}
        </div>
      )}
      {calls.map((call) => (
        <ToolCallCard
          key={call.id}
          call={call}
          streaming={conn.mirror.isCallStreaming(call.id)}
          result={conn.mirror.toolResult(call.id)}
        />
      ))}
      {!streaming && (text !== "" || regenerable) && (
        <div class="agui-actions-bar">
          {text !== "" && <CopyMessage text={text} />}
          {regenerable && <RegenerateButton />}
        </div>
      )}
    </div>
  );
}

/** The kernel marks a user message the input guard refused with metadata `agui_widget.refused`
 * (the reason); it stays for the user to see and is never sent to the agent. */
function refusal(message: Message): string | null {
  const reason = widgetMark(message, "refused");
  return typeof reason === "string" ? reason : null;
}

/** The kernel marks a message a Stop cut short with metadata `agui_widget.stopped`. */
function wasStopped(message: Message): boolean {
  return widgetMark(message, "stopped") === true;
}

/** An activity message (ACTIVITY_SNAPSHOT / ACTIVITY_DELTA): its type as a label, its content as
 * Markdown when it has a `markdown` or `text` field, else as JSON. */
export function ActivityCard({ type, content }: { type: string; content: unknown }) {
  const record = isObject(content) ? content : {};
  const markdown = typeof record.markdown === "string" ? record.markdown : typeof record.text === "string" ? record.text : null;
  const shown = valueText(content);
  return (
    <div class="agui-row agui-row-activity">
      <div class="agui-activity" data-activity-type={type}>
        <div class="agui-activity-head">
          <span class="agui-badge agui-activity-type">{type || "activity"}</span>
        </div>
        {markdown !== null ? <Markdown text={markdown} /> : <FoldedText text={shown.text} json={shown.json} />}
      </div>
    </div>
  );
}

function Reasoning({ text, streaming }: { text: string; streaming: boolean }) {
  return (
    <div class="agui-row agui-row-reasoning">
      <details class="agui-reasoning" open={streaming}>
        <summary>{streaming ? "Thinking…" : "Reasoning"}</summary>
        <Markdown text={text} streaming={streaming} />
      </details>
    </div>
  );
}

function SystemNote({ message }: { message: Message }) {
  return (
    <div class="agui-row agui-row-system">
      <details class="agui-system">
        <summary>{message.role} message</summary>
        <PlainText text={textOf((message as { content?: unknown }).content)} />
      </details>
    </div>
  );
}
