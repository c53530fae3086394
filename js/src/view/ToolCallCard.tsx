/** One tool call: its name, its arguments as they stream, its result, and whatever a frontend
 * handler drew for it. */
import { useLayoutEffect, useRef } from "preact/hooks";
import type { ToolMessage } from "../mirror";
import { textOf } from "../mirror";
import type { ToolCall } from "../wire";
import { useView } from "./context";
import { prettyJsonText, prettyValue } from "./format";
import { useRunner, useTopics, useTrait } from "./hooks";

type CallState = "streaming" | "waiting" | "running" | "done" | "failed" | "called";

const STATE_LABEL: Record<CallState, string> = {
  streaming: "preparing…",
  waiting: "waiting for you",
  running: "running…",
  done: "done",
  failed: "failed",
  called: "called",
};

export function ToolCallCard({ call, streaming, result }: { call: ToolCall; streaming: boolean; result?: ToolMessage }) {
  const { conn, runner } = useView();
  const pending = useTrait("pending");
  useRunner();
  useTopics("run");
  const tools = useTrait("frontend_tools");
  const waiting = pending.some((p) => p.toolCallId === call.id);
  const byHandler = tools.some((t) => t.name === call.function?.name && t.ui === "handler");
  const resultError = typeof result?.error === "string" ? result.error : "";
  const state: CallState = streaming
    ? "streaming"
    : result
      ? resultError
        ? "failed"
        : "done"
      : waiting
        ? byHandler || runner.isRunning(call.id)
          ? "running"
          : "waiting"
        : conn.mirror.run.active || runner.isRunning(call.id)
          ? "running"
          : "called";
  const argsText = call.function?.arguments ?? "";
  const name = call.function?.name || "tool";
  return (
    <div class="agui-tool" data-state={state}>
      <div class="agui-tool-head">
        <span class="agui-tool-name">{name}</span>
        <span class={`agui-badge agui-badge-${state}`}>{STATE_LABEL[state]}</span>
      </div>
      {argsText !== "" && (
        <details class="agui-tool-section" open>
          <summary>Arguments</summary>
          <pre class="agui-code">{streaming ? argsText : prettyJsonText(argsText)}</pre>
        </details>
      )}
      {result && (
        <details class="agui-tool-section" open>
          <summary>{resultError ? "Error" : "Result"}</summary>
          <pre class={resultError ? "agui-code agui-code-error" : "agui-code"}>
            {resultError || prettyJsonText(typeof result.content === "string" ? result.content : textOf(result.content) || prettyValue(result.content))}
          </pre>
        </details>
      )}
      <HandlerOutput toolCallId={call.id} />
    </div>
  );
}

/** Hosts the element a frontend handler draws into (created and owned by the handler runner). */
function HandlerOutput({ toolCallId }: { toolCallId: string }) {
  const { runner } = useView();
  useRunner();
  const host = useRef<HTMLDivElement>(null);
  const el = runner.output(toolCallId);
  useLayoutEffect(() => {
    const box = host.current;
    if (!box || !el) return;
    if (el.parentNode !== box) box.appendChild(el);
    return () => {
      if (el.parentNode === box) box.removeChild(el);
    };
  }, [el]);
  return el ? <div class="agui-tool-output" ref={host} /> : null;
}
