/**
 * Agent text as Markdown, rendered incrementally into an element Preact does not manage (see
 * ../markdown/incremental.ts). The element is the row's `.agui-text`; while the message
 * streams it carries `data-streaming`, which draws the caret.
 */
import { useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { warn } from "../util/log";
import { type CodeActionHost, handleCodeActions } from "../markdown/codeActions";
import { handleCopyClicks } from "../markdown/decorate";
import { IncrementalMarkdown } from "../markdown/incremental";
import { sharedMarkdown } from "../markdown/markdown";
import { useView } from "./context";

type MarkdownProps = {
  text: string;
  streaming?: boolean;
  /** An answer's Python code blocks get "Insert as a cell" and "Run in kernel"; Run goes here. */
  codeActions?: CodeActionHost;
};

export function Markdown({ text, streaming = false, codeActions }: MarkdownProps) {
  const ref = useRef<HTMLDivElement>(null);
  const renderer = useRef<IncrementalMarkdown | null>(null);
  const host = useRef(codeActions);
  host.current = codeActions;
  // Whether the blocks get the actions is settled when the message is first shown.
  const [withActions] = useState(() => codeActions !== undefined);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    renderer.current = new IncrementalMarkdown(el, sharedMarkdown(), { codeActions: withActions });
    const offCopy = handleCopyClicks(el);
    const offActions = withActions ? handleCodeActions(el, () => host.current ?? null) : () => undefined;
    return () => {
      offCopy();
      offActions();
      renderer.current = null;
    };
  }, []);

  useLayoutEffect(() => {
    const el = ref.current;
    const md = renderer.current;
    if (!el || !md) return;
    try {
      md.update(text, streaming);
    } catch (error) {
      // A renderer bug must not cost the message: show it as plain text.
      warn("could not render a message as Markdown:", error);
      md.reset();
      el.textContent = text;
    }
  }, [text, streaming]);

  // data-source-length: the length of the Markdown source shown (UTF-16 units, as `check`
  // counts), for tests and debugging: the rendered text differs from the source.
  return <div ref={ref} class="agui-text agui-md" data-streaming={streaming ? "true" : undefined} data-source-length={text.length} />;
}

/** What an answer's "Run in kernel" does once the user said Run: asks the kernel to run the code
 * (`run_code`) and follows the transcript to the card it adds. */
export function useCodeRunHost(): CodeActionHost {
  const { conn, follower } = useView();
  return useMemo(
    () => ({
      run(code: string): boolean {
        if (!conn.send({ kind: "run_code", code })) return false;
        follower.follow();
        return true;
      },
    }),
    [conn, follower],
  );
}
