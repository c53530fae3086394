/** One row of the transcript. Each row listens to its own message, so a streaming token
 * re-renders this row only. */
import type { ComponentChildren } from "preact";
import { useErrorBoundary } from "preact/hooks";
import { warn } from "../log";
import { textOf, toolCallsOf } from "../mirror";
import type { Message } from "../wire";
import { useView } from "./context";
import { partLabel, prettyValue } from "./format";
import { useMessage } from "./hooks";
import { pure } from "./pure";
import { PlainText } from "./Text";
import { ToolCallCard } from "./ToolCallCard";

export const MessageRow = pure(function MessageRow({ id }: { id: string }) {
  return (
    <Guard>
      <MessageBody id={id} />
    </Guard>
  );
});

/** One message that fails to render shows a line instead of breaking the whole view. */
function Guard({ children }: { children: ComponentChildren }) {
  const [error] = useErrorBoundary((e) => warn("a message failed to render:", e));
  if (error) return <div class="agui-row agui-row-broken">This message could not be shown.</div>;
  return <>{children}</>;
}

function MessageBody({ id }: { id: string }) {
  const { conn } = useView();
  const message = useMessage(id);
  if (!message) return null;
  const streaming = conn.mirror.isStreaming(id);
  switch (message.role) {
    case "user":
      return <UserMessage message={message} />;
    case "assistant":
      return <AssistantMessage message={message} streaming={streaming} />;
    case "reasoning":
      return <Reasoning text={textOf(message.content)} streaming={streaming} />;
    case "tool":
      // Shown inside the card of the call it answers; alone only when that call is unknown.
      if (conn.mirror.callOwnerOf(message.toolCallId) !== undefined) return null;
      return (
        <div class="agui-row agui-row-tool">
          <div class="agui-tool">
            <div class="agui-tool-head">
              <span class="agui-tool-name">Tool result</span>
            </div>
            <pre class="agui-code">{textOf(message.content) || prettyValue(message.content)}</pre>
          </div>
        </div>
      );
    case "activity":
      return (
        <div class="agui-row agui-row-activity">
          <details class="agui-activity">
            <summary>{message.activityType}</summary>
            <pre class="agui-code">{prettyValue(message.content)}</pre>
          </details>
        </div>
      );
    default:
      return <SystemNote message={message} />;
  }
}

function UserMessage({ message }: { message: Extract<Message, { role: "user" }> }) {
  const parts = Array.isArray(message.content) ? message.content.map(partLabel).filter(Boolean) : [];
  return (
    <div class="agui-row agui-row-user">
      <div class="agui-bubble agui-bubble-user">
        <PlainText text={textOf(message.content)} />
        {parts.length > 0 && <div class="agui-attachments">{parts.join(" ")}</div>}
      </div>
    </div>
  );
}

function AssistantMessage({ message, streaming }: { message: Extract<Message, { role: "assistant" }>; streaming: boolean }) {
  const { conn } = useView();
  const text = textOf(message.content);
  const calls = toolCallsOf(message);
  return (
    <div class="agui-row agui-row-assistant">
      {(text !== "" || (streaming && calls.length === 0)) && (
        <div class="agui-bubble agui-bubble-assistant">
          <PlainText text={text} streaming={streaming} />
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
    </div>
  );
}

/** The kernel marks a message a Stop cut short with metadata `agui_widget.stopped`. */
function wasStopped(message: Message): boolean {
  const meta = (message as { metadata?: { agui_widget?: { stopped?: unknown } } }).metadata;
  return meta?.agui_widget?.stopped === true;
}

function Reasoning({ text, streaming }: { text: string; streaming: boolean }) {
  return (
    <div class="agui-row agui-row-reasoning">
      <details class="agui-reasoning" open={streaming}>
        <summary>{streaming ? "Thinking…" : "Reasoning"}</summary>
        <PlainText text={text} streaming={streaming} />
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
