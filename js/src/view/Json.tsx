/** JSON shown as text with its tokens coloured (spans of text: nothing here is parsed as HTML),
 * and long text that folds. */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { hasLongText, prettyValue } from "../logic/format";

const TOKEN = /("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;
/** Past this size the text is shown without colours (tokenising costs more than it helps). */
const MAX_COLOURED = 20000;

/** `text` (pretty JSON, or anything) with JSON tokens wrapped in classed spans. */
export function JsonText({ text }: { text: string }) {
  if (text.length > MAX_COLOURED) return <>{text}</>;
  const parts: ComponentChildren[] = [];
  let at = 0;
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m !== null; m = TOKEN.exec(text)) {
    if (m.index > at) parts.push(text.slice(at, m.index));
    if (m[1] !== undefined) {
      parts.push(<span class={m[2] ? "agui-j-key" : "agui-j-str"}>{m[1]}</span>);
      if (m[2]) parts.push(m[2]);
    } else if (m[3] !== undefined) {
      parts.push(<span class="agui-j-lit">{m[3]}</span>);
    } else {
      parts.push(<span class="agui-j-num">{m[4]}</span>);
    }
    at = m.index + m[0].length;
  }
  if (at < text.length) parts.push(text.slice(at));
  return <>{parts}</>;
}

const FOLD_CHARS = 1500;
const FOLD_LINES = 16;

function lineCount(text: string): number {
  let n = 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) n++;
  return n;
}

/** A `pre` that shows the first lines of long text, with a button to show all of it. The
 * whole text is always in the element (folding is visual). */
export function FoldedText({ text, json = false, error = false }: { text: string; json?: boolean; error?: boolean }) {
  const [open, setOpen] = useState(false);
  const lines = lineCount(text);
  const long = text.length > FOLD_CHARS || lines > FOLD_LINES;
  const cls = `agui-code${error ? " agui-code-error" : ""}${long && !open ? " agui-folded" : ""}`;
  return (
    <>
      <pre class={cls}>{json ? <JsonText text={text} /> : text}</pre>
      {long && (
        <button type="button" class="agui-btn agui-btn-quiet agui-fold" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? "Show less" : `Show all (${lines} ${lines === 1 ? "line" : "lines"})`}
        </button>
      )}
    </>
  );
}

/**
 * A JSON value for reading: pretty JSON, except that long or multi-line strings are shown as text
 * of their own (line breaks as line breaks, not `\n`), each under its key.
 */
export function JsonValue({ value, depth = 0 }: { value: unknown; depth?: number }) {
  if (typeof value === "string" && hasLongText(value)) return <FoldedText text={value} />;
  if (depth > 32 || value === null || typeof value !== "object" || !hasLongText(value)) {
    return <FoldedText text={typeof value === "string" ? JSON.stringify(value) : prettyValue(value)} json />;
  }
  const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((item, i) => [String(i), item]) : Object.entries(value);
  return (
    <dl class="agui-kv">
      {entries.map(([key, item]) => (
        <div class="agui-kv-row" key={key}>
          <dt class="agui-kv-key">{key}</dt>
          <dd class="agui-kv-value">
            <JsonValue value={item} depth={depth + 1} />
          </dd>
        </div>
      ))}
    </dl>
  );
}
