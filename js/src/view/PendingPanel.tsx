/**
 * What the chat waits for (the `pending` trait): frontend tool calls the user answers, and
 * interrupts to approve. An entry's card disappears when the entry leaves `pending` (answered
 * here, in another view, or from Python).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { isObject } from "../wire";
import type { PendingInterrupt, PendingTool, ToolSpec, ViewRequest } from "../wire";
import { useView } from "./context";
import { jsonOrText, prettyValue } from "./format";
import { FoldedText } from "./Json";
import { useNotices, useTrait } from "./hooks";
import { insertLineBreak, isComposing } from "./keys";
import { SchemaForm } from "./SchemaForm";
import { choiceLabel, fieldsOf } from "./schema";

const keyOf = (p: { kind: string; toolCallId?: string | null; interruptId?: string }) =>
  p.kind === "interrupt" ? `i:${p.interruptId}` : `t:${p.toolCallId}`;

export function PendingPanel() {
  const { conn } = useView();
  const pending = useTrait("pending");
  const tools = useTrait("frontend_tools");
  const notices = useNotices();
  // Entries answered from this view: their buttons stay disabled until the entry leaves
  // `pending`, or until the kernel says something went wrong (a warning or error notice).
  const [answered, setAnswered] = useState<ReadonlySet<string>>(new Set());
  const lastNotice = useRef(0);

  useEffect(() => {
    const live = new Set(pending.map(keyOf));
    const kept = [...answered].filter((k) => live.has(k));
    if (kept.length !== answered.size) setAnswered(new Set(kept));
  }, [pending]);

  useEffect(() => {
    const latest = notices[notices.length - 1];
    if (latest && latest.id > lastNotice.current) {
      lastNotice.current = latest.id;
      if (latest.level !== "info" && answered.size > 0) setAnswered(new Set());
    }
  }, [notices]);

  if (pending.length === 0) return null;

  const answer = (key: string, request: ViewRequest) => {
    setAnswered(new Set([...answered, key]));
    conn.send(request);
  };

  return (
    <section class="agui-pending" aria-label="Waiting for you">
      {pending.map((entry) => {
        const key = keyOf(entry);
        const done = answered.has(key);
        if (entry.kind === "interrupt") {
          return <InterruptCard key={key} entry={entry} done={done} onAnswer={(r) => answer(key, r)} />;
        }
        const spec = tools.find((t) => t.name === entry.name);
        return <ToolCard key={key} entry={entry} spec={spec} done={done} onAnswer={(r) => answer(key, r)} />;
      })}
    </section>
  );
}

type CardProps<E> = { entry: E; done: boolean; onAnswer: (request: ViewRequest) => void };

function ToolCard({ entry, spec, done, onAnswer }: CardProps<PendingTool> & { spec: ToolSpec | undefined }) {
  const reply = (result: unknown) => onAnswer({ kind: "tool_result", toolCallId: entry.toolCallId, result });
  switch (spec?.ui) {
    case "handler":
      return (
        <div class="agui-card" data-ui="handler">
          <div class="agui-card-title">
            Running <span class="agui-tool-name">{entry.name}</span>…
          </div>
        </div>
      );
    case "confirm":
      return (
        <div class="agui-card" data-ui="confirm">
          <div class="agui-card-title">
            Run <span class="agui-tool-name">{entry.name}</span>?
          </div>
          {spec.description && <div class="agui-card-desc">{spec.description}</div>}
          <Args text={entry.argsText} />
          <div class="agui-actions">
            <button type="button" class="agui-btn agui-btn-primary" disabled={done} onClick={() => reply({ approved: true })}>
              Approve
            </button>
            <button type="button" class="agui-btn" disabled={done} onClick={() => reply({ approved: false })}>
              Deny
            </button>
          </div>
        </div>
      );
    case "ask":
      return <AskCard entry={entry} spec={spec} done={done} onReply={reply} />;
    case "form":
      return <FormCard entry={entry} spec={spec} done={done} onReply={reply} />;
    default:
      return <ManualCard entry={entry} spec={spec} done={done} onReply={reply} />;
  }
}

function Args({ text }: { text: string }) {
  if (!text || text === "{}" || text === "null") return null;
  return (
    <details class="agui-card-args" open>
      <summary>Arguments</summary>
      <FoldedText {...jsonOrText(text)} />
    </details>
  );
}

type ReplyProps = { entry: PendingTool; spec: ToolSpec | undefined; done: boolean; onReply: (result: unknown) => void };

function questionOf(entry: PendingTool, spec: ToolSpec | undefined): string {
  const args = isObject(entry.args) ? entry.args : {};
  for (const key of ["question", "prompt", "message", "text"]) {
    if (typeof args[key] === "string" && args[key]) return args[key] as string;
  }
  return spec?.description || entry.name;
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
      <div class="agui-card-title">{questionOf(entry, spec)}</div>
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

function InterruptCard({ entry, done, onAnswer }: CardProps<PendingInterrupt>) {
  const resume = (payload: unknown) => onAnswer({ kind: "resume", interruptId: entry.interruptId, status: "resolved", payload });
  const form = interruptForm(entry.responseSchema);
  const argsText = entry.args === null || entry.args === undefined ? "" : prettyValue(entry.args);
  const deny = () => {
    // Without an `approved` field to say no with, Deny cancels the interrupt.
    if (form && !form.hasApproved) onAnswer({ kind: "resume", interruptId: entry.interruptId, status: "cancelled" });
    else resume({ approved: false });
  };
  const denyButton = (
    <button type="button" class="agui-btn" disabled={done} onClick={deny}>
      Deny
    </button>
  );
  return (
    <div class="agui-card" data-ui="interrupt">
      <div class="agui-card-title">{entry.message || entry.reason || "Approval needed"}</div>
      {entry.name && (
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
          onSubmit={(value) => resume(form.hasApproved ? { ...value, approved: true } : value)}
        >
          {denyButton}
        </SchemaForm>
      ) : (
        <div class="agui-actions">
          <button type="button" class="agui-btn agui-btn-primary" disabled={done} onClick={() => resume({ approved: true })}>
            Approve
          </button>
          {denyButton}
        </div>
      )}
    </div>
  );
}
