/**
 * One tool call. Compact: its name, its arguments on one line and its state; the arguments and
 * the result open on click (a rich result, such as a chart, is shown at once). What the user is
 * asked about the call (an approval, a question, a form) is part of the card, so it is read next
 * to what it is about and scrolls into view with the transcript. Whatever a frontend handler drew
 * for the call is shown under it.
 */
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import type { ToolMessage } from "../mirror/mirror";
import { parsePartialJson, textOf } from "../mirror/mirror";
import type { Pending, ToolCall, ToolSpec } from "../kernel/wire";
import { Bundle, displayOf } from "./Bundle";
import { type CallState, STATE_LABEL, callStateOf, failureOf } from "../logic/callState";
import { useView } from "./context";
import { decisionsOf, interruptedCalls } from "../logic/decisions";
import { argsSummary, argsValue, prettyValue } from "../logic/format";
import { useRunner, useSubscription, useTopics, useTrait } from "./hooks";
import { FoldedText, JsonValue } from "./Json";
import { HandledElsewhere, PendingEntry, keyOf } from "./PendingPanel";
import { CodeArgument, codeArgument } from "./CodeArgument";
import { widgetMark } from "../mirror/messages";
import { McpAppFrame } from "../mcp/McpAppFrame";

export type { CallState } from "../logic/callState";

type CardProps = { call: ToolCall; streaming: boolean; result?: ToolMessage };

/** Past this length the arguments of a streaming call are summed up from their start only. */
const LIVE_PARSE_LIMIT = 20000;

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
      {!details && <CallQuestion call={props.call} />}
      <button type="button" class="agui-btn agui-btn-quiet agui-render-details" aria-expanded={details} onClick={() => setDetails(!details)}>
        {details ? "Hide details" : "details"}
      </button>
      {details && <DefaultCard {...props} />}
    </div>
  );
}

type CallStatus = {
  name: string;
  spec: ToolSpec | undefined;
  /** what `pending` holds for the call */
  entry: Pending | undefined;
  /** the user is asked something about the call */
  awaiting: boolean;
  state: CallState;
  /** the user's "Run in kernel" runs this call's code now */
  codeRunning: boolean;
};

/** The transcript's latest turn holds this call (it comes after the last user message). */
function inLatestTurn(messages: readonly { id: string; role: string }[], ownerId: string | undefined): boolean {
  if (ownerId === undefined) return false;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as { id: string; role: string };
    if (message.id === ownerId) return true;
    if (message.role === "user") return false;
  }
  return false;
}

function useCallStatus(call: ToolCall, streaming: boolean, result: ToolMessage | undefined): CallStatus {
  const { conn, runner } = useView();
  const pending = useTrait("pending");
  const tools = useTrait("frontend_tools");
  const status = useTrait("status");
  useRunner();
  useTopics("run");
  const decisions = decisionsOf(conn.model);
  useSubscription((listener) => decisions.subscribe(listener), [decisions]);
  const name = call.function?.name || "tool";
  const spec = tools.find((t) => t.name === name);
  const entry = pending.find((p) => p.toolCallId === call.id);
  // A browser handler's call, or a Python tool's the kernel runs, asks the user nothing.
  const awaiting = entry !== undefined && !(entry.kind === "tool" && (spec?.ui === "handler" || (spec?.ui === "kernel" && entry.kernel !== "approve")));
  // Only a call with neither a result nor a pending entry needs the transcript's turns.
  const unsettled = result === undefined && entry === undefined && !streaming;
  const owner = conn.mirror.callOwnerOf(call.id);
  const codeRunning = unsettled && owner !== undefined && widgetMark(conn.mirror.message(owner), "code_run") === "running";
  const state = callStateOf({
    callId: call.id,
    streaming,
    result,
    ui: spec?.ui ?? null,
    pending: entry?.kind ?? null,
    kernel: entry?.kind === "tool" ? entry.kernel : null,
    approve: spec?.ui === "kernel" && spec.approve,
    handledElsewhere: entry?.kind === "tool" && runner.handledElsewhere(entry),
    runningHere: runner.isRunning(call.id),
    decision: decisions.decision(call.id),
    askedApproval:
      result !== undefined &&
      (spec?.ui === "confirm" || (spec?.ui === "kernel" && spec.approve) || decisions.wasAsked(call.id) || interruptedCalls(conn.mirror).has(call.id)),
    latestTurn: unsettled && inLatestTurn(conn.mirror.messages(), conn.mirror.callOwnerOf(call.id)),
    chatBusy: status === "running" || status === "waiting",
    runActive: conn.mirror.run.active,
    outcome: conn.mirror.run.outcome,
    codeRunning,
  });
  return { name, spec, entry, awaiting, state, codeRunning };
}

/** What the user is asked about a call, for a call drawn by a Python renderer. */
function CallQuestion({ call }: { call: ToolCall }) {
  const { entry, spec, awaiting } = useCallStatus(call, false, undefined);
  if (!awaiting || !entry) return null;
  return <PendingEntry key={keyOf(entry)} entry={entry} spec={spec} inCard />;
}

/** The error a failed call reports: the tool message's `error`, or a result `{error}`. */
function failureText(result: ToolMessage | undefined): string {
  if (!result) return "";
  if (typeof result.error === "string" && result.error !== "" && result.error !== "cancelled") return result.error;
  return failureOf(result.content);
}

function DefaultCard({ call, streaming, result }: CardProps) {
  const { conn } = useView();
  const { name, spec, entry, awaiting, state, codeRunning } = useCallStatus(call, streaming, result);
  const argsText = call.function?.arguments ?? "";
  const trimmed = argsText.trim();
  const hasArgs = trimmed !== "" && trimmed !== "{}";
  const value = streaming ? undefined : argsValue(argsText);
  // Arguments a Stop cut short are read as far as they go.
  const cut = state === "stopped" && value === undefined && "{[".includes(trimmed[0] ?? "");
  const partial = cut || (streaming && argsText.length <= LIVE_PARSE_LIMIT) ? parsePartialJson(argsText) : undefined;
  // run_python's code is shown as code, highlighted, in place of its JSON.
  const code = codeArgument(name, value ?? partial);
  const summary = hasArgs && code === null ? argsSummary(argsText, partial) : "";
  const failure = state === "failed" ? failureText(result) : "";
  const label = STATE_LABEL[state];
  const showResult = result !== undefined && state !== "stopped";
  return (
    <div class="agui-tool" data-state={state} role="group" aria-label={`Tool call ${name}`}>
      <div class="agui-tool-head">
        <span class="agui-tool-name">{name}</span>
        {!awaiting && summary !== "" && (
          <span class="agui-tool-summary" title={summary}>
            {summary}
          </span>
        )}
        <span class={`agui-badge agui-badge-${state}`}>{label}</span>
        {(state === "running" || state === "streaming" || state === "kernel") && <span class="agui-spinner" aria-hidden="true" />}
      </div>
      {failure !== "" && <div class="agui-tool-error">{failure}</div>}
      {code !== null && !awaiting && <CodeArgument code={code} />}
      {codeRunning && (
        <div class="agui-actions">
          <button type="button" class="agui-btn agui-btn-small" onClick={() => conn.send({ kind: "stop" })}>
            Stop this code
          </button>
        </div>
      )}
      {state === "elsewhere" && <HandledElsewhere toolCallId={call.id} />}
      {awaiting && entry && <PendingEntry key={keyOf(entry)} entry={entry} spec={spec} inCard />}
      {!awaiting && ((hasArgs && code === null) || showResult) && (
        <div class="agui-tool-sections">
          {hasArgs && code === null && <ArgsSection text={argsText} streaming={streaming} value={value} partial={cut ? partial : undefined} cut={cut} />}
          {showResult && <ResultSection result={result} failure={failure} />}
        </div>
      )}
      {spec?.appUri && !streaming && !awaiting && state !== "stopped" && state !== "denied" && <McpAppFrame call={call} spec={spec} result={result} />}
      <HandlerOutput toolCallId={call.id} />
    </div>
  );
}

type ArgsProps = { text: string; streaming: boolean; value: unknown; partial: unknown; cut: boolean };

function ArgsSection({ text, streaming, value, partial, cut }: ArgsProps) {
  let body;
  if (streaming) body = <FoldedText text={text} />; // as it arrives
  else if (value !== undefined) body = <JsonValue value={value} />;
  else if (cut && partial !== undefined) body = <JsonValue value={partial} />;
  else body = <FoldedText text={text} />;
  return (
    <details class="agui-tool-section agui-tool-args">
      <summary>
        Arguments
        {cut && <span class="agui-tag"> partial</span>}
      </summary>
      {cut && <div class="agui-partial-note">Cut short by Stop: this is as far as the arguments got.</div>}
      {body}
    </details>
  );
}

function ResultSection({ result, failure }: { result: ToolMessage; failure: string }) {
  const display = displayOf(result);
  if (display !== null) {
    // A chart or a table is what the call is for: shown at once. A failed one with a display (a
    // cell the kernel ran) shows its output and traceback the same way.
    return (
      <details class="agui-tool-section agui-tool-result" open>
        <summary>{failure !== "" ? "Error" : "Result"}</summary>
        <Bundle bundle={display} />
      </details>
    );
  }
  const content = result.content as unknown;
  const text = typeof content === "string" ? content : textOf(content) || (content === undefined || content === null ? "" : prettyValue(content));
  const value = argsValue(text);
  return (
    <details class="agui-tool-section agui-tool-result">
      <summary>{failure !== "" ? "Error" : "Result"}</summary>
      {value !== undefined ? <JsonValue value={value} /> : <FoldedText text={text !== "" ? text : failure} error={failure !== ""} />}
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
