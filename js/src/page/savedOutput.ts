/**
 * A displayed chat also leaves an output that keeps the conversation as Markdown, for viewers of
 * the saved notebook without a kernel (docs/threads.md). Where the chat itself is on the page,
 * that copy would only repeat it, so the chat's views hide it: one style rule per chat, kept while
 * at least one of its views is shown. Without a live view (no kernel, a closed widget) the copy
 * shows again.
 *
 * VS Code renders a Markdown output inside a shadow root attached to its `.output` element, where
 * no page style rule reaches: there the view hides that `.output` element itself, looking again
 * whenever the notebook's outputs change.
 */

/** The attribute on the kept block (agui_widget/chat/_export.py, SAVED_OUTPUT_ATTRIBUTE). */
export const SAVED_OUTPUT_ATTRIBUTE = "data-agui-transcript";

const SAFE_ID = /^[A-Za-z0-9_-]{1,200}$/;
const hidden = new Map<string, { style: HTMLStyleElement; views: number; shadows?: (() => void) | null }>();

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
  held.shadows ??= inVsCode(doc) ? hideInShadowRoots(id, doc) : null;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    held.views -= 1;
    if (held.views === 0) {
      held.style.remove();
      held.shadows?.();
      hidden.delete(id);
    }
  };
}

/** Is this page VS Code's notebook webview? (Its Jupyter renderer leaves a context object; its
 * theme, `--vscode-*` variables.) */
export function inVsCode(doc: Document): boolean {
  const win = doc.defaultView as (Window & { jupyter_vscode_rendererContext?: unknown }) | null;
  if (win?.jupyter_vscode_rendererContext !== undefined) return true;
  return win !== null && win.getComputedStyle(doc.documentElement).getPropertyValue("--vscode-editor-background").trim() !== "";
}

/** Hides each element whose open shadow root holds the kept block; returns what shows them again. */
export function hideInShadowRoots(id: string, doc: Document = document): () => void {
  const block = `[${SAVED_OUTPUT_ATTRIBUTE}="${id}"]`;
  const hosts = new Set<HTMLElement>();
  const look = () => {
    for (const el of doc.querySelectorAll<HTMLElement>("*")) {
      if (!hosts.has(el) && el.shadowRoot?.querySelector(block)) {
        el.style.setProperty("display", "none", "important");
        hosts.add(el);
      }
    }
  };
  look();
  // Outputs are rendered (and re-rendered after each turn's rewrite) after the chat: look again,
  // at most once per frame's worth of changes.
  let pending = false;
  const observer = new MutationObserver(() => {
    if (pending) return;
    pending = true;
    setTimeout(() => {
      pending = false;
      look();
    }, 200);
  });
  observer.observe(doc.body, { childList: true, subtree: true });
  return () => {
    observer.disconnect();
    for (const host of hosts) host.style.removeProperty("display");
    hosts.clear();
  };
}
