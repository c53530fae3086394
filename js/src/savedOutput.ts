/**
 * A displayed chat also leaves an output that keeps the conversation as Markdown, for viewers of
 * the saved notebook without a kernel (docs/threads.md). Where the chat itself is on the page,
 * that copy would only repeat it, so the chat's views hide it: one style rule per chat, kept while
 * at least one of its views is shown. Without a live view (no kernel, a closed widget) the copy
 * shows again.
 */

/** The attribute on the kept block (agui_widget/_export.py, SAVED_OUTPUT_ATTRIBUTE). */
export const SAVED_OUTPUT_ATTRIBUTE = "data-agui-transcript";

const SAFE_ID = /^[A-Za-z0-9_-]{1,200}$/;
const hidden = new Map<string, { style: HTMLStyleElement; views: number }>();

/** Hides the kept conversation with display id `id` while the returned release is not called. */
export function hideSavedOutput(id: string, doc: Document = document): () => void {
  if (!SAFE_ID.test(id)) return () => {};
  let entry = hidden.get(id);
  if (entry === undefined) {
    const style = doc.createElement("style");
    style.setAttribute("data-agui-hides", id);
    const block = `[${SAVED_OUTPUT_ATTRIBUTE}="${id}"]`;
    // Two rules: a browser without :has() drops only the second, which hides the output's row
    // (its prompt and padding) in JupyterLab and Notebook 7.
    style.textContent = `${block}{display:none!important}\n.jp-OutputArea-child:has(${block}){display:none}`;
    doc.head.appendChild(style);
    entry = { style, views: 0 };
    hidden.set(id, entry);
  }
  const held = entry;
  held.views += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    held.views -= 1;
    if (held.views === 0) {
      held.style.remove();
      hidden.delete(id);
    }
  };
}
