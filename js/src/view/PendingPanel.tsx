/**
 * What the chat waits for (the `pending` trait): frontend tool calls the user answers, and
 * interrupts to approve.
 *
 * An entry about a tool call the transcript shows is answered inside that call's card
 * (ToolCallCard renders `PendingEntry`), next to what it is about and scrolled into view with it.
 * The panel under the transcript keeps the rest: an interrupt without a tool call, a call the
 * transcript does not hold. An entry's part disappears when the entry leaves `pending` (answered
 * here, in another view, or from Python).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Mirror } from "../mirror/mirror";
import { isObject } from "../kernel/wire";
import type { Pending, PendingInterrupt, PendingTool, ToolSpec, ViewRequest } from "../kernel/wire";
import type { Decision } from "../logic/callState";
import { useView } from "./context";
import { decisionsOf } from "../logic/decisions";
import { ANSWERED_ATTR, AWAITING_ATTR, moveFocusOnward } from "./focus";
import { jsonOrText, prettyValue } from "../logic/format";
import { FoldedText } from "./Json";
import { useNotices, useRunner, useTopics, useTrait } from "./hooks";
import { insertLineBreak, isComposing } from "./keys";
import { SchemaForm } from "./SchemaForm";
import { choiceLabel, fieldsOf } from "../logic/schema";
import { useLive } from "./KernelBanner";
import { CodeArgument, codeArgument } from "./CodeArgument";

export const keyOf = (p: Pending) => (p.kind === "interrupt" ? `i:${p.interruptId}` : `t:${p.toolCallId}`);

/** Is this entry answered in a tool call card of the transcript? */
export function hasCard(mirror: Mirror, entry: Pending): boolean {
  const id = entry.toolCallId;
  return typeof id === "string" && id !== "" && mirror.callOwnerOf(id) !== undefined;
}

/** Does answering this entry approve or deny something? */
function asksApproval(entry: Pending, spec: ToolSpec | undefined): boolean {
  return entry.kind === "interrupt" || spec?.ui === "confirm" || (entry.kind === "tool" && entry.kernel === "approve");
}

export function PendingPanel() {
  const { conn } = useView();
  const pending = useTrait("pending");
  const tools = useTrait("frontend_tools");
  useTopics("ready", "list");
  if (!conn.mirror.ready) return null;
  const loose = pending.filter((entry) => !hasCard(conn.mirror, entry));
  if (loose.length === 0) return null;
  return (
    <section class="agui-pending" aria-label="Waiting for you">
      {loose.map((entry) => (
        <PendingEntry key={keyOf(entry)} entry={entry} spec={entry.kind === "tool" ? tools.find((t) => t.name === entry.name) : undefined} />
      ))}
    </section>
  );
}

type EntryProps = { entry: Pending; spec: ToolSpec | undefined; inCard?: boolean };

/**
 * One entry, answerable once: its controls stay disabled after the answer until the entry leaves
 * `pending`, or until the kernel says the answer was refused (a warning or error notice).
 */
export function PendingEntry({ entry, spec, inCard = false }: EntryProps) {
  const { conn } = useView();
  const decisions = decisionsOf(conn.model);
  const notices = useNotices();
  const part = useRef<HTMLElement>(null);
  const [answered, setDone] = useState(false);
  // Nothing can be answered while the kernel is gone: the controls wait for it.
  const done = answered || !useLive();
  const seenNotice = useRef(notices[notices.length - 1]?.id ?? 0);
  const callId = entry.toolCallId;
  const approval = asksApproval(entry, spec);

  useEffect(() => {
    if (callId && approval) decisions.markAsked(callId);
  }, [callId, approval]);

  useEffect(() => {
    const latest = notices[notices.length - 1];
    if (!latest || latest.id <= seenNotice.current) return;
    seenNotice.current = latest.id;
    if (latest.level !== "info" && answered) setDone(false);
  }, [notices]);

  const answer = (request: ViewRequest, decision: Decision | null = null) => {
    setDone(true);
    // Marked at once (the re-render comes later), so focus never moves on to this part again.
    part.current?.setAttribute(ANSWERED_ATTR, "");
    if (callId && decision) decisions.decide(callId, decision);
    conn.send(request);
    moveFocusOnward(part.current);
  };

  if (entry.kind === "tool" && spec?.ui === "handler") {
    // Nothing to answer: only shown here when the transcript has no card for the call.
    return <HandlerEntry entry={entry} />;
  }
  if (entry.kind === "tool" && spec?.ui === "kernel" && entry.kernel !== "approve") {
    return <KernelEntry entry={entry} />;
  }
  const body =
    entry.kind === "interrupt" ? (
      <InterruptCard entry={entry} done={done} inCard={inCard} onAnswer={answer} />
    ) : (
      <ToolCard entry={entry} spec={spec} done={done} onAnswer={answer} />
    );
  const marks = { [AWAITING_ATTR]: "", [ANSWERED_ATTR]: done ? "" : undefined };
  // In a card the part is a region of its own, named for the call; in the panel, the panel is.
  const what = entry.name || (entry.kind === "interrupt" ? entry.reason : "") || "tool";
  return (
    <section class="agui-awaiting" aria-label={inCard ? `Waiting for you: ${what}` : undefined} ref={part} {...marks}>
      {body}
    </section>
  );
}

/** A Python tool's call the kernel runs, without a card in the transcript. */
function KernelEntry({ entry }: { entry: PendingTool }) {
  return (
    <div class="agui-card" data-ui="kernel">
      <div class="agui-card-title">
        Running <span class="agui-tool-name">{entry.name}</span> in the kernel…
      </div>
    </div>
  );
}

/** A browser handler's call without a card in the transcript. */
function HandlerEntry({ entry }: { entry: PendingTool }) {
  const { runner } = useView();
  useRunner();
  return (
    <div class="agui-card" data-ui="handler">
      <div class="agui-card-title">
        Running <span class="agui-tool-name">{entry.name}</span>…
      </div>
      {runner.handledElsewhere(entry) && <HandledElsewhere toolCallId={entry.toolCallId} />}
    </div>
  );
}

/** A browser handler's call that a view in another tab runs, with a way to run it here (for when
 * that tab was closed before it answered). */
export function HandledElsewhere({ toolCallId }: { toolCallId: string }) {
  const { runner } = useView();
  const [asked, setAsked] = useState(false);
  return (
    <div class="agui-elsewhere" role="note">
      <span class="agui-elsewhere-text">Handled in another tab.</span>
      <button
        type="button"
        class="agui-btn agui-btn-small"
        disabled={asked}
        title="Run it in this tab instead (when the other tab was closed)"
        onClick={() => {
          setAsked(true);
          runner.takeOver(toolCallId);
        }}
      >
        Run it here instead
      </button>
    </div>
  );
}

type CardProps<E> = { entry: E; done: boolean; onAnswer: (request: ViewRequest, decision?: Decision | null) => void };

const QUESTION_KEYS = ["question", "message", "prompt", "text"] as const;

/** The question an agent put in a call's arguments, and the key that held it. */
function questionIn(args: unknown): { question: string; key: string } | null {
  if (!isObject(args)) return null;
  for (const key of QUESTION_KEYS) {
    const value = args[key];
    if (typeof value === "string" && value.trim() !== "") return { question: value, key };
  }
  return null;
}

function ToolCard({ entry, spec, done, onAnswer }: CardProps<PendingTool> & { spec: ToolSpec | undefined }) {
  const reply = (result: unknown, decision: Decision | null = null) => onAnswer({ kind: "tool_result", toolCallId: entry.toolCallId, result }, decision);
  switch (spec?.ui) {
    case "confirm":
      return <ConfirmCard entry={entry} done={done} onReply={reply} />;
    case "kernel":
      // The arguments are the function's own: none of them is a question to the user.
      return <ConfirmCard entry={entry} done={done} onReply={reply} inKernel />;
    case "ask":
      return <AskCard entry={entry} spec={spec} done={done} onReply={reply} />;
    case "form":
      return <FormCard entry={entry} spec={spec} done={done} onReply={reply} />;
    default:
      return <ManualCard entry={entry} spec={spec} done={done} onReply={reply} />;
  }
}

/** Arguments shown with a question (once: the card's own argument section is hidden meanwhile). */
function Args({ text }: { text: string }) {
  if (!text || text === "{}" || text === "null") return null;
  return (
    <details class="agui-card-args" open>
      <summary>Arguments</summary>
      <FoldedText {...jsonOrText(text)} />
    </details>
  );
}

type ReplyProps = { entry: PendingTool; spec: ToolSpec | undefined; done: boolean; onReply: (result: unknown, decision?: Decision | null) => void };

/** Approve / Deny, asked in the words the agent gave (the question in the arguments), with the
 * rest of the arguments; never the tool's description, which is written for the model. */
function ConfirmCard({ entry, done, onReply, inKernel = false }: Omit<ReplyProps, "spec"> & { inKernel?: boolean }) {
  const asked = inKernel ? null : questionIn(entry.args);
  let rest = entry.argsText;
  if (asked && isObject(entry.args)) {
    const { [asked.key]: _question, ...others } = entry.args;
    rest = Object.keys(others).length > 0 ? JSON.stringify(others) : "";
  }
  // run_python's code is shown as code, highlighted, and the rest of its arguments as they are.
  const code = inKernel ? codeArgument(entry.name, entry.args) : null;
  if (code !== null && isObject(entry.args)) {
    const { code: _code, ...others } = entry.args;
    rest = Object.keys(others).length > 0 ? JSON.stringify(others) : "";
  }
  return (
    <div class="agui-card" data-ui="confirm">
      <div class="agui-card-title">
        {asked ? (
          asked.question
        ) : (
          <>
            Run <span class="agui-tool-name">{entry.name}</span>
            {inKernel ? " in the kernel?" : "?"}
          </>
        )}
      </div>
      {code !== null && <CodeArgument code={code} />}
      <Args text={rest} />
      <div class="agui-actions">
        <button type="button" class="agui-btn agui-btn-primary" disabled={done} onClick={() => onReply({ approved: true }, "approved")}>
          Approve
        </button>
        <button type="button" class="agui-btn" disabled={done} onClick={() => onReply({ approved: false }, "denied")}>
          Deny
        </button>
      </div>
    </div>
  );
}

function AskCard({ entry, spec, done, onReply }: ReplyProps) {
  const [text, setText] = useState("");
  const args = isObject(entry.args) ? entry.args : {};
  const choices = Array.isArray(args.choices) ? args.choices : null;
  const submit = () => {
    if (text.trim()) onReply({ answer: text });
  };
  return (
    <div class="agui-card" data-ui="ask">
      <div class="agui-card-title">{questionIn(entry.args)?.question || spec?.description || entry.name}</div>
      {choices ? (
        <div class="agui-actions">
          {choices.map((choice, i) => (
            <button key={i} type="button" class="agui-btn" disabled={done} onClick={() => onReply({ answer: choice })}>
              {choiceLabel(choice)}
            </button>
          ))}
        </div>
      ) : (
        <form
          class="agui-actions agui-ask"
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <input
            class="agui-input"
            type="text"
            aria-label="Your answer"
            value={text}
            disabled={done}
            onInput={(e) => setText(e.currentTarget.value)}
          />
          <button type="submit" class="agui-btn agui-btn-primary" disabled={done}>
            Answer
          </button>
        </form>
      )}
    </div>
  );
}

/** The schema a `form` tool asks to fill: `args.schema` when the agent passes one, else the
 * tool's own parameters (then the arguments are the proposed values). */
function formOf(entry: PendingTool, spec: ToolSpec | undefined): { schema: unknown; initial: unknown; title: string } {
  const args = isObject(entry.args) ? entry.args : {};
  const title = ["title", "message", "question", "prompt"].map((k) => args[k]).find((v): v is string => typeof v === "string" && v !== "");
  if (isObject(args.schema)) {
    return { schema: args.schema, initial: isObject(args.values) ? args.values : args.defaults, title: title || spec?.description || entry.name };
  }
  return { schema: spec?.parameters, initial: entry.args, title: title || spec?.description || entry.name };
}

function FormCard({ entry, spec, done, onReply }: ReplyProps) {
  const { schema, initial, title } = formOf(entry, spec);
  if (fieldsOf(schema).length === 0) return <ManualCard entry={entry} spec={spec} done={done} onReply={onReply} />;
  return (
    <div class="agui-card" data-ui="form">
      <div class="agui-card-title">{title}</div>
      {spec?.description && spec.description !== title && <div class="agui-card-desc">{spec.description}</div>}
      <SchemaForm schema={schema} initial={initial} disabled={done} label={`Form for ${entry.name}`} onSubmit={(value) => onReply(value)} />
    </div>
  );
}

/** `manual` and unknown kinds: the arguments, and a box for the answer. */
function ManualCard({ entry, spec, done, onReply }: ReplyProps) {
  const [text, setText] = useState("");
  const submit = () => {
    const trimmed = text.trim();
    if (!trimmed) return;
    let value: unknown = text;
    try {
      value = JSON.parse(trimmed);
    } catch {
      // plain text answer
    }
    onReply(value);
  };
  return (
    <div class="agui-card" data-ui={spec?.ui ?? "manual"}>
      <div class="agui-card-title">
        Answer for <span class="agui-tool-name">{entry.name}</span>
      </div>
      {spec?.description && <div class="agui-card-desc">{spec.description}</div>}
      <Args text={entry.argsText} />
      <textarea
        class="agui-input agui-answer"
        aria-label={`Answer for ${entry.name}`}
        placeholder="JSON or text (Ctrl+Enter submits)"
        rows={3}
        value={text}
        disabled={done}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key !== "Enter" || isComposing(e)) return;
          if (e.ctrlKey || e.metaKey) {
            e.preventDefault();
            submit();
          } else {
            insertLineBreak(e, e.currentTarget);
          }
        }}
      />
      <div class="agui-actions">
        <button type="button" class="agui-btn agui-btn-primary" disabled={done} onClick={submit}>
          Submit
        </button>
      </div>
    </div>
  );
}

/** An interrupt's response schema, when it asks for more than an `approved` boolean. */
function interruptForm(schema: Record<string, unknown> | null): { schema: Record<string, unknown>; hasApproved: boolean } | null {
  if (!schema) return null;
  const fields = fieldsOf(schema);
  const hasApproved = fields.some((f) => f.name === "approved" && f.kind === "boolean");
  return fields.some((f) => f.name !== "approved") ? { schema, hasApproved } : null;
}

function InterruptCard({ entry, done, inCard, onAnswer }: CardProps<PendingInterrupt> & { inCard: boolean }) {
  const resume = (payload: unknown, decision: Decision) => onAnswer({ kind: "resume", interruptId: entry.interruptId, status: "resolved", payload }, decision);
  const form = interruptForm(entry.responseSchema);
  const argsText = entry.args === null || entry.args === undefined ? "" : prettyValue(entry.args);
  const deny = () => {
    // Without an `approved` field to say no with, Deny cancels the interrupt.
    if (form && !form.hasApproved) onAnswer({ kind: "resume", interruptId: entry.interruptId, status: "cancelled" }, "denied");
    else resume({ approved: false }, "denied");
  };
  const denyButton = (
    <button type="button" class="agui-btn" disabled={done} onClick={deny}>
      Deny
    </button>
  );
  const title = entry.message || (entry.name ? `Run ${entry.name}?` : "") || "Approval needed";
  return (
    <div class="agui-card" data-ui="interrupt">
      <div class="agui-card-title">{title}</div>
      {entry.name && !inCard && (
        <div class="agui-card-desc">
          Tool: <span class="agui-tool-name">{entry.name}</span>
        </div>
      )}
      <Args text={argsText} />
      {form ? (
        <SchemaForm
          schema={form.schema}
          omit={["approved"]}
          disabled={done}
          submitLabel="Approve"
          label="Response"
          onSubmit={(value) => resume(form.hasApproved ? { ...value, approved: true } : value, "approved")}
        >
          {denyButton}
        </SchemaForm>
      ) : (
        <div class="agui-actions">
          <button type="button" class="agui-btn agui-btn-primary" disabled={done} onClick={() => resume({ approved: true }, "approved")}>
            Approve
          </button>
          {denyButton}
        </div>
      )}
    </div>
  );
}
