/**
 * Agent text as Markdown, rendered incrementally into an element Preact does not manage (see
 * ../markdown/incremental.ts). The element is the row's `.agui-text`; while the message
 * streams it carries `data-streaming`, which draws the caret.
 */
import { useLayoutEffect, useRef } from "preact/hooks";
import { warn } from "../util/log";
import { handleCopyClicks } from "../markdown/decorate";
import { IncrementalMarkdown } from "../markdown/incremental";

export function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  const renderer = useRef<IncrementalMarkdown | null>(null);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    renderer.current = new IncrementalMarkdown(el);
    const off = handleCopyClicks(el);
    return () => {
      off();
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
