/** Text shown as text (pre-wrap): user messages, queued messages, notes. Never HTML; agent
 * text that is Markdown goes through ./Markdown.tsx instead. */
import { useState } from "preact/hooks";

export function PlainText({ text }: { text: string }) {
  return <div class="agui-text">{text}</div>;
}

/** Past this many lines or characters a message is shown folded (a pasted log, a file). */
export const FOLD_LINES = 12;
export const FOLD_CHARS = 1200;

export function isLongText(text: string): boolean {
  if (text.length > FOLD_CHARS) return true;
  let lines = 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) if (++lines > FOLD_LINES) return true;
  return false;
}

let folds = 0;

/** Plain text that folds when long: its first lines with a fade, and "Show more" / "Show less".
 * The whole text is always in the element (folding is visual), so copying and finding work. */
export function FoldingText({ text }: { text: string }) {
  const [open, setOpen] = useState(false);
  const [id] = useState(() => `agui-fold-${++folds}`);
  if (!isLongText(text)) return <PlainText text={text} />;
  return (
    <>
      <div id={id} class="agui-text agui-text-long" data-folded={open ? undefined : "true"}>
        {text}
      </div>
      <button type="button" class="agui-more" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        {open ? "Show less" : "Show more"}
      </button>
    </>
  );
}
