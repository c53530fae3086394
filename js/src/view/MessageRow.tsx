/** One row of the transcript. Each row listens to its own message, so a streaming token
 * re-renders this row only. */
import type { ComponentChildren } from "preact";
import { useErrorBoundary, useLayoutEffect, useRef, useState } from "preact/hooks";
import { warn } from "../util/log";
import { textOf, toolCallsOf, widgetMark } from "../mirror/mirror";
import { isObject, type Message } from "../kernel/wire";
import { copyText } from "../util/clipboard";
import { useView } from "./context";
import { MessageAttachments } from "./Attachments";
import { valueText } from "../logic/format";
import { useMessage, useTrait } from "./hooks";
import { Icon } from "./icons";
import { Bundle, displayOf } from "./Bundle";
import { FoldedText } from "./Json";
import { Feedback } from "./Feedback";
import { BranchSwitches, useBranchPoints } from "./Branches";
import { useLive } from "./KernelBanner";
import { focusMessageBox } from "./focus";
import { insertLineBreak, isComposing, undoOrRedo } from "./keys";
import { Markdown, useCodeRunHost } from "./Markdown";
import { RoleAvatar, useAssistantName } from "./Branding";
import { pure } from "./pure";
import { FoldingText, PlainText } from "./Text";
import { ToolCallCard } from "./ToolCallCard";
import { Usage } from "./Usage";
import { A2UI_ACTIVITY, A2uiSurface } from "../a2ui/Surface";

/** Who speaks in a row: the person at the notebook, or the agent. */
export type Author = "user" | "assistant";

type RowProps = {
  id: string;
  /** a user message of the transcript: it can be edited and sent again (what followed it goes) */
  editable?: boolean;
  /** the last user message (nothing but its answer follows it) */
  lastUser?: boolean;
  /** the last answer: it can be regenerated */
  lastAnswer?: boolean;
  /** set on the first row of each run of rows by one author: that row is labelled */
  author?: Author | undefined;
};

/** Every row's element carries `data-row`: its message's id here (the transcript's windowing
 * finds and measures rows by it, and so can anything that looks for a message in the page). */
export const MessageRow = pure(function MessageRow(props: RowProps) {
  return (
    <Guard id={props.id}>
      <MessageBody {...props} />
    </Guard>
  );
});

/** One message that fails to render shows a line instead of breaking the whole view. */
function Guard({ id, children }: { id: string; children: ComponentChildren }) {
  const [error] = useErrorBoundary((e) => warn("a message failed to render:", e));
  if (error)
    return (
      <div class="agui-row agui-row-broken" data-row={id}>
        This message could not be shown.
      </div>
    );
  return <>{children}</>;
}

function MessageBody({ id, editable = false, lastUser = false, lastAnswer = false, author }: RowProps) {
  const { conn } = useView();
  const message = useMessage(id);
  const live = useLive();
  if (!message) return null;
  // A run cut off by a lost kernel never ends: nothing streams any more.
  const streaming = live && conn.mirror.isStreaming(id);
  const label = author ? <AuthorLine author={author} /> : null;
  switch (message.role) {
    case "user":
      return <UserMessage message={message} editable={editable} last={lastUser} label={label} />;
    case "assistant":
      return <AssistantMessage message={message} streaming={streaming} regenerable={lastAnswer} label={label} />;
    case "reasoning":
      return <Reasoning id={id} text={textOf(message.content)} streaming={streaming} label={label} />;
    case "tool": {
      // Shown inside the card of the call it answers; alone only when that call is unknown.
      if (conn.mirror.callOwnerOf(message.toolCallId) !== undefined) return null;
      const shown = valueText(message.content);
      const display = displayOf(message);
      return (
        <div class="agui-row agui-row-tool" data-row={id}>
          {label}
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
      if (message.activityType === A2UI_ACTIVITY) {
        return (
          <div class="agui-row agui-row-activity" data-row={id}>
            {label}
            <A2uiSurface content={message.content} fallback={<ActivityBody type={message.activityType} content={message.content} />} />
          </div>
        );
      }
      return <ActivityCard type={message.activityType} content={message.content} label={label} row={id} />;
    default:
      return <SystemNote message={message} />;
  }
}

/** Is the chat between runs, with its kernel there (actions that start a run are offered only
 * then)? */
function useIdle(): boolean {
  const status = useTrait("status");
  const live = useLive();
  return live && (status === "idle" || status === "error");
}

/** The name over the first row of each author's turn: "You", or the agent's name, beside the
 * chat's avatar for that role (./Branding.tsx). */
function AuthorLine({ author }: { author: Author }) {
  const assistant = useAssistantName();
  const name = author === "user" ? "You" : assistant;
  return (
    <div class={`agui-author agui-author-${author}`}>
      <RoleAvatar role={author} name={name} />
      <span class="agui-author-name">{name}</span>
    </div>
  );
}

/** When this view saw the message arrive (shown with the message's actions), if it knows. */
function MessageTime({ id }: { id: string }) {
  const { conn } = useView();
  const at = conn.clock.at(id);
  if (at === null) return null;
  const when = new Date(at);
  const today = new Date().toDateString() === when.toDateString();
  const short = today
    ? when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : when.toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
  return (
    <time class="agui-time" dateTime={when.toISOString()} title={when.toLocaleString()}>
      {short}
    </time>
  );
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
  const { conn, follower } = useView();
  if (!useIdle()) return null;
  const regenerate = (e: MouseEvent) => {
    if (!conn.send({ kind: "regenerate" })) return;
    follower.follow();
    // This button goes while the run is on: the keyboard waits in the message box, not the page.
    focusMessageBox(e.currentTarget as Element);
  };
  return (
    <button type="button" class="agui-action" aria-label="Regenerate" title="Regenerate the answer" onClick={regenerate}>
      <Icon name="regenerate" />
    </button>
  );
}

function EditButton({ onEdit, button, last }: { onEdit: () => void; button: { current: HTMLButtonElement | null }; last: boolean }) {
  if (!useIdle()) return null;
  const title = last ? "Edit and send again" : "Edit and send again (what follows it is kept as another version)";
  return (
    <button type="button" class="agui-action" ref={button} aria-label="Edit message" title={title} onClick={onEdit}>
      <Icon name="edit" />
    </button>
  );
}

type Label = { label: ComponentChildren };

function UserMessage({ message, editable, last, label }: { message: Extract<Message, { role: "user" }>; editable: boolean; last: boolean } & Label) {
  const [editing, setEditing] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  // After a cancelled edit the keyboard goes back to the Edit button, not to the page.
  const refocus = useRef(false);
  useLayoutEffect(() => {
    if (!editing && refocus.current) {
      refocus.current = false;
      editButton.current?.focus();
    }
  }, [editing]);
  const text = textOf(message.content);
  const refused = refusal(message);
  const branches = useBranchPoints(message.id);
  if (editing && editable) {
    const done = (cancelled: boolean) => {
      refocus.current = cancelled;
      setEditing(false);
    };
    return <EditBox message={message} text={text} label={label} onDone={done} />;
  }
  return (
    <div class="agui-row agui-row-user" data-row={message.id}>
      {label}
      <div class="agui-bubble agui-bubble-user">
        <FoldingText text={text} />
        <MessageAttachments content={message.content} />
        {refused !== null && <div class="agui-refused">Not sent: {refused}</div>}
      </div>
      <div class="agui-actions-bar">
        <MessageTime id={message.id} />
        {text !== "" && <CopyMessage text={text} />}
        {editable && <EditButton button={editButton} last={last} onEdit={() => setEditing(true)} />}
        <BranchSwitches points={branches} />
      </div>
    </div>
  );
}

/** A user message in a box: Enter (or "Save and send") replaces it, drops what followed it and
 * runs again from there; Escape (or Cancel) leaves it as it was. While it is open the transcript
 * stays where it is: following the end would scroll the box out of view. */
function EditBox({ message, text, label, onDone }: { message: Message; text: string; onDone: (cancelled: boolean) => void } & Label) {
  const { conn, follower } = useView();
  const box = useRef<HTMLTextAreaElement>(null);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    follower.stay();
    el.focus({ preventScroll: true });
    el.scrollIntoView?.({ block: "nearest" });
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);
  const save = () => {
    const value = (box.current?.value ?? text).trim();
    if (!value) return;
    if (value === text.trim()) return onDone(true);
    // Not sent (the kernel is gone): the box stays open with the edited text.
    if (!conn.send({ kind: "edit", messageId: message.id, text: value })) return;
    // The new answer comes below this message, maybe far below a long old answer: follow it.
    follower.follow();
    focusMessageBox(box.current); // the edit box goes: the keyboard waits in the message box
    onDone(false);
  };
  return (
    <div class="agui-row agui-row-user agui-row-editing" data-row={message.id}>
      {label}
      <div class="agui-edit">
        <textarea
          ref={box}
          class="agui-input agui-edit-box"
          aria-label="Edited message"
          rows={3}
          defaultValue={text}
          onKeyDown={(e) => {
            if (undoOrRedo(e)) return;
            if (e.key === "Escape" && !isComposing(e)) {
              e.preventDefault();
              onDone(true);
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
          <button type="button" class="agui-btn" onClick={() => onDone(true)}>
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
  label,
}: {
  message: Extract<Message, { role: "assistant" }>;
  streaming: boolean;
  regenerable: boolean;
} & Label) {
  const { conn } = useView();
  const live = useLive();
  const text = textOf(message.content);
  const calls = toolCallsOf(message);
  const display = displayOf(message);
  const codeRun = useCodeRunHost();
  const branches = useBranchPoints(message.id);
  return (
    <div class="agui-row agui-row-assistant" data-row={message.id}>
      {label}
      {(text !== "" || (streaming && calls.length === 0)) && (
        <div class="agui-bubble agui-bubble-assistant">
          {display !== null && !streaming ? <Bundle bundle={display} /> : <Markdown text={text} streaming={streaming} codeActions={codeRun} />}
          {wasStopped(message) && <div class="agui-stopped">stopped</div>}
        </div>
      )}
      {calls.map((call) => (
        <ToolCallCard
          key={call.id}
          call={call}
          streaming={live && conn.mirror.isCallStreaming(call.id)}
          result={conn.mirror.toolResult(call.id)}
        />
      ))}
      {!streaming && (text !== "" || regenerable || branches.length > 0) && (
        <div class="agui-actions-bar">
          <MessageTime id={message.id} />
          {text !== "" && <CopyMessage text={text} />}
          {regenerable && <RegenerateButton />}
          <BranchSwitches points={branches} />
          {text !== "" && <Feedback message={message} />}
        </div>
      )}
      {!streaming && <Usage message={message} last={regenerable} />}
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
export function ActivityCard({ type, content, label = null, row }: { type: string; content: unknown; row?: string } & Partial<Label>) {
  return (
    <div class="agui-row agui-row-activity" data-row={row}>
      {label}
      <ActivityBody type={type} content={content} />
    </div>
  );
}

/** The generic card of an activity: shown for any type, and for an A2UI surface that cannot be drawn. */
function ActivityBody({ type, content }: { type: string; content: unknown }) {
  const record = isObject(content) ? content : {};
  const markdown = typeof record.markdown === "string" ? record.markdown : typeof record.text === "string" ? record.text : null;
  const shown = valueText(content);
  return (
    <div class="agui-activity" data-activity-type={type}>
      <div class="agui-activity-head">
        <span class="agui-badge agui-activity-type">{type || "activity"}</span>
      </div>
      {markdown !== null ? <Markdown text={markdown} /> : <FoldedText text={shown.text} json={shown.json} />}
    </div>
  );
}

function Reasoning({ id, text, streaming, label }: { id: string; text: string; streaming: boolean } & Label) {
  return (
    <div class="agui-row agui-row-reasoning" data-row={id}>
      {label}
      <details class="agui-reasoning" open={streaming}>
        <summary>{streaming ? "Thinking…" : "Reasoning"}</summary>
        <Markdown text={text} streaming={streaming} />
      </details>
    </div>
  );
}

function SystemNote({ message }: { message: Message }) {
  return (
    <div class="agui-row agui-row-system" data-row={message.id}>
      <details class="agui-system">
        <summary>{message.role} message</summary>
        <PlainText text={textOf((message as { content?: unknown }).content)} />
      </details>
    </div>
  );
}
