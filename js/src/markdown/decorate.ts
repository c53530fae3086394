/**
 * What rendered Markdown gets after sanitising, built with DOM calls (never from HTML): a copy
 * button on every code block. One click listener per message element handles them all.
 */
import { copyText } from "../util/clipboard";

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

/** Adds a "Copy code" button to each code block in `root`. */
export function decorate(root: DocumentFragment | Element): void {
  for (const block of Array.from(root.querySelectorAll(".agui-codeblock"))) {
    if (block.querySelector(":scope > .agui-copy-code")) continue;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "agui-copy-code";
    button.setAttribute("aria-label", "Copy code");
    button.title = "Copy code";
    button.appendChild(copyIcon());
    block.insertBefore(button, block.firstChild);
  }
}

/** Handles clicks on the copy buttons inside `el`; returns the remover. */
export function handleCopyClicks(el: HTMLElement): () => void {
  const onClick = (event: Event) => {
    const target = event.target as Element | null;
    const button = target?.closest?.(".agui-copy-code") as HTMLButtonElement | null;
    if (!button || !el.contains(button)) return;
    const code = button.parentElement?.querySelector("pre")?.textContent ?? "";
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
