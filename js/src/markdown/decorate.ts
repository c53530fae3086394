/**
 * What rendered Markdown gets after sanitising, built with DOM calls (never from HTML): a row of
 * buttons on every code block, a copy button always, and "Insert as a cell" and "Run in kernel"
 * on the Python blocks of an answer (./codeActions.ts). One click listener per message element
 * handles each kind.
 */
import { copyText } from "../util/clipboard";
import { addCodeActions } from "./codeActions";

/** What a render's code blocks get besides Copy. */
export interface DecorateOptions {
  /** Insert and Run on Python blocks: an assistant's answer, once the block is complete. */
  codeActions?: boolean;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** A small two-sheets icon, drawn with DOM calls (no markup parsing). */
function copyIcon(): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.setAttribute("class", "agui-icon");
  for (const [x, y] of [
    [5, 5],
    [2, 2],
  ]) {
    const rect = document.createElementNS(SVG_NS, "rect");
    rect.setAttribute("x", String(x));
    rect.setAttribute("y", String(y));
    rect.setAttribute("width", "9");
    rect.setAttribute("height", "9");
    rect.setAttribute("rx", "1.5");
    svg.appendChild(rect);
  }
  return svg;
}

/** Adds a "Copy code" button to each code block in `root`, and the code actions when asked. */
export function decorate(root: DocumentFragment | Element, options: DecorateOptions = {}): void {
  for (const block of Array.from(root.querySelectorAll(".agui-codeblock"))) {
    let tools = block.querySelector(":scope > .agui-code-tools");
    if (!tools) {
      tools = document.createElement("div");
      tools.className = "agui-code-tools";
      const button = document.createElement("button");
      button.type = "button";
      button.className = "agui-code-tool agui-copy-code";
      button.setAttribute("aria-label", "Copy code");
      button.title = "Copy code";
      button.appendChild(copyIcon());
      tools.appendChild(button);
      block.insertBefore(tools, block.firstChild);
    }
    if (options.codeActions) addCodeActions(block, tools);
  }
}

/** Handles clicks on the copy buttons inside `el`; returns the remover. */
export function handleCopyClicks(el: HTMLElement): () => void {
  const onClick = (event: Event) => {
    const target = event.target as Element | null;
    const button = target?.closest?.(".agui-copy-code") as HTMLButtonElement | null;
    if (!button || !el.contains(button)) return;
    const code = button.closest(".agui-codeblock")?.querySelector("pre")?.textContent ?? "";
    void copyText(code).then((ok) => {
      button.dataset.copied = ok ? "true" : "false";
      button.title = ok ? "Copied" : "Could not copy";
      setTimeout(() => {
        delete button.dataset.copied;
        button.title = "Copy code";
      }, 1500);
    });
  };
  el.addEventListener("click", onClick);
  return () => el.removeEventListener("click", onClick);
}
