/** One tool call: its name, a status, its arguments as they stream (pretty JSON once complete),
 * its result (folded when long), and whatever a frontend handler drew for it. */
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import type { ToolMessage } from "../mirror";
import { textOf } from "../mirror";
import type { ToolCall } from "../wire";
import { useView } from "./context";
import { jsonOrText, valueText } from "./format";
import { Bundle, displayOf } from "./Bundle";
import { FoldedText } from "./Json";
import { useRunner, useTopics, useTrait } from "./hooks";

/** `called`: the run ended with neither a result nor a pending answer (history without one). */
export type CallState = "streaming" | "waiting" | "running" | "done" | "error" | "called";

const STATE_LABEL: Record<CallState, string> = {
  streaming: "streaming",
  waiting: "waiting",
  running: "running",
  done: "done",
  error: "error",
  called: "no result",
};

type CardProps = { call: ToolCall; streaming: boolean; result?: ToolMessage };

/** A tool call: what its Python renderer made (`chat.render_tool`), with the default card one
 * click away, or the default card. */
export function ToolCallCard(props: CardProps) {
  const { conn } = useView();
  useTopics("renders");
  const render = conn.mirror.render(`tool:${props.call.id}`);
  const [details, setDetails] = useState(false);
  if (!render) return <DefaultCard {...props} />;
  const name = props.call.function?.name || "tool";
  return (
    <div class="agui-tool-rendered" data-tool={name}>
      {render.error !== null && (
        <div class="agui-render-error" role="note">
          Could not render {name}: {render.error}
        </div>
      )}
      {render.bundle !== null && <Bundle bundle={render.bundle} />}
      <button type="button" class="agui-btn agui-btn-quiet agui-render-details" aria-expanded={details} onClick={() => setDetails(!details)}>
        {details ? "Hide details" : "details"}
      </button>
      {details && <DefaultCard {...props} />}
    </div>
  );
}

function DefaultCard({ call, streaming, result }: CardProps) {
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
        ? "error"
        : "done"
      : waiting
        ? byHandler || runner.isRunning(call.id)
          ? "running"
          : "waiting"
        : conn.mirror.run.active || runner.isRunning(call.id)
          ? "running"
          : "called";
  const label = state === "error" && resultError === "cancelled" ? "cancelled" : STATE_LABEL[state];
  const argsText = call.function?.arguments ?? "";
  const args = streaming ? { text: argsText, json: false } : jsonOrText(argsText);
  const name = call.function?.name || "tool";
  return (
    <div class="agui-tool" data-state={state}>
      <div class="agui-tool-head">
        <span class="agui-tool-name">{name}</span>
        <span class={`agui-badge agui-badge-${state}`}>{label}</span>
        {(state === "running" || state === "streaming") && <span class="agui-spinner" aria-hidden="true" />}
      </div>
      {argsText !== "" && (
        <details class="agui-tool-section" open>
          <summary>Arguments</summary>
          <FoldedText text={args.text} json={args.json} />
        </details>
      )}
      {result && <ResultSection result={result} error={resultError} />}
      <HandlerOutput toolCallId={call.id} />
    </div>
  );
}

function ResultSection({ result, error }: { result: ToolMessage; error: string }) {
  const display = displayOf(result);
  if (display !== null && error === "") {
    return (
      <details class="agui-tool-section" open>
        <summary>Result</summary>
        <Bundle bundle={display} />
      </details>
    );
  }
  const content = result.content as unknown;
  const fromContent = typeof content === "string" ? jsonOrText(content) : textOf(content) ? jsonOrText(textOf(content)) : valueText(content);
  const shown = fromContent.text !== "" ? fromContent : { text: error, json: false };
  const failed = error !== "" && error !== "cancelled";
  return (
    <details class="agui-tool-section" open>
      <summary>{error === "cancelled" ? "Cancelled" : failed ? "Error" : "Result"}</summary>
      {failed && shown.text !== error && <div class="agui-tool-error">{error}</div>}
      <FoldedText text={shown.text} json={shown.json} error={failed} />
    </details>
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
