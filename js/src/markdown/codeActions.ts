/**
 * Code from an answer back into the notebook: each Python code block of an assistant message gets
 * "Insert as a cell" and "Run in kernel" beside its copy button, built with DOM calls like it
 * (./decorate.ts), and handled by one click listener per message element.
 *
 * - Insert as a cell dispatches `agui-widget:insert-cell` (bubbling, composed) from the button.
 *   In JupyterLab and Notebook 7, agui-widget's extension (js/labextension/) puts the code in a
 *   new cell below the chat's cell and marks the event handled. Where nothing handles it (marimo,
 *   Voilà, VS Code, a chat in the sidebar), the code is copied instead and a note says why.
 * - Run in kernel first asks, under the block ("Run this code in the kernel?" Run / Cancel); Run
 *   hands the code to the view (`run_code`), which the kernel runs as the agent's `run_python`
 *   would, its output in a tool card.
 */
import { INSERT_CELL_EVENT, type InsertCellDetail } from "../../labextension/src/event";
import { copyText } from "../util/clipboard";

const SVG_NS = "http://www.w3.org/2000/svg";

/** Fence labels whose code runs as a cell. An unlabelled block counts too, unless it is plainly
 * something else (`looksRunnable`); `bash`, `json`, `text`... get only Copy:
 * as a cell they would not run, or would run as something they are not. */
const PYTHON_LABELS = new Set(["python", "py", "ipython", "python3", "py3"]);

/** How long a note under a block ("Copied: ...") stays, in ms. */
export const NOTE_MS = 6000;

export const COPIED_NOTE = "Copied: this front end cannot add cells";
export const INSERTED_NOTE = "Added as a new cell below the chat";
export const CONFIRM_QUESTION = "Run this code in the kernel?";

/** What the message element's owner does for a block: run its code in the kernel. */
export interface CodeActionHost {
  /** Sends the code to the kernel to run; false when it could not go (the kernel is gone). */
  run(code: string): boolean;
}

/** Whether a block with this fence label and code gets Insert and Run. */
export function runsAsCell(label: string, code: string): boolean {
  const word = label.trim().toLowerCase();
  if (word !== "") return PYTHON_LABELS.has(word);
  return looksRunnable(code);
}

/** An unlabelled block is taken for Python unless it is JSON or a shell session. */
function looksRunnable(code: string): boolean {
  const text = code.trim();
  if (text === "") return false;
  if (/^\$ /m.test(text.split("\n", 1)[0] ?? "")) return false;
  if (text.startsWith("{") || text.startsWith("[")) {
    try {
      JSON.parse(text);
      return false;
    } catch {
      // a dict or a list literal that is not JSON: Python
    }
  }
  return true;
}

function icon(paths: string[]): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.setAttribute("class", "agui-icon");
  for (const d of paths) {
    const path = document.createElementNS(SVG_NS, "path");
    path.setAttribute("d", d);
    svg.appendChild(path);
  }
  return svg;
}

function toolButton(className: string, label: string, paths: string[]): HTMLButtonElement {
  const button = document.createElement("button");
  button.type = "button";
  button.className = `agui-code-tool ${className}`;
  button.setAttribute("aria-label", label);
  button.title = label;
  button.appendChild(icon(paths));
  return button;
}

/** Adds "Insert as a cell" and "Run in kernel" to `tools` (a block's button row), before Copy. */
export function addCodeActions(block: Element, tools: Element): void {
  if (tools.querySelector(".agui-insert-code")) return;
  const code = codeOf(block);
  if (!runsAsCell(block.getAttribute("data-lang") ?? "", code)) return;
  block.setAttribute("data-actions", "true");
  // A cell with a line under it and an arrow into it; a play triangle.
  const insert = toolButton("agui-insert-code", "Insert as a cell", ["M2.5 2.5h11v4h-11z", "M8 9v5 M5.5 11.5L8 14l2.5-2.5"]);
  const run = toolButton("agui-run-code", "Run in kernel", ["M5 3.5v9l7-4.5z"]);
  tools.insertBefore(run, tools.firstChild);
  tools.insertBefore(insert, run);
}

/** The code a block shows (its `pre`'s text). */
export function codeOf(block: Element): string {
  return block.querySelector("pre")?.textContent ?? "";
}

/** A block's code as a cell's source: without the line break a block ends with. */
export function cellSource(code: string): string {
  return code.replace(/\n+$/, "");
}

/** Dispatches the insert event from `from`; true when a front end put the code in a cell. */
export function insertAsCell(code: string, from: Element): boolean {
  const detail: InsertCellDetail = { code, handled: false };
  const event = new CustomEvent<InsertCellDetail>(INSERT_CELL_EVENT, { detail, bubbles: true, composed: true, cancelable: true });
  const notCancelled = from.dispatchEvent(event);
  return detail.handled === true || !notCancelled;
}

const noteTimers = new WeakMap<Element, ReturnType<typeof setTimeout>>();

/** Shows `text` under the block for a few seconds (a polite status, so it is read out). */
export function showNote(block: Element, text: string): void {
  let note = block.querySelector(":scope > .agui-code-note");
  if (!note) {
    note = document.createElement("div");
    note.className = "agui-code-note";
    note.setAttribute("role", "status");
    block.appendChild(note);
  }
  note.textContent = text;
  const shown = note;
  clearTimeout(noteTimers.get(shown));
  noteTimers.set(
    shown,
    setTimeout(() => shown.remove(), NOTE_MS),
  );
}

async function insertOrCopy(block: Element, button: HTMLElement): Promise<void> {
  const code = cellSource(codeOf(block));
  if (insertAsCell(code, button)) {
    showNote(block, INSERTED_NOTE);
    return;
  }
  const copied = await copyText(code);
  showNote(block, copied ? COPIED_NOTE : "This front end cannot add cells, and the code could not be copied: select it and copy it");
}

/** Asks under the block whether to run its code; Run hands it to `host`. */
export function askToRun(block: Element, button: HTMLElement, host: CodeActionHost): void {
  const open = block.querySelector<HTMLElement>(":scope > .agui-code-confirm");
  if (open) {
    open.querySelector<HTMLButtonElement>(".agui-btn-primary")?.focus();
    return;
  }
  const card = document.createElement("div");
  card.className = "agui-code-confirm";
  card.setAttribute("role", "group");
  card.setAttribute("aria-label", CONFIRM_QUESTION);
  const question = document.createElement("span");
  question.className = "agui-code-confirm-question";
  question.textContent = CONFIRM_QUESTION;
  const runButton = document.createElement("button");
  runButton.type = "button";
  runButton.className = "agui-btn agui-btn-primary agui-btn-small";
  runButton.textContent = "Run";
  const cancelButton = document.createElement("button");
  cancelButton.type = "button";
  cancelButton.className = "agui-btn agui-btn-small";
  cancelButton.textContent = "Cancel";
  card.append(question, runButton, cancelButton);

  const close = () => {
    card.remove();
    button.focus();
  };
  runButton.addEventListener("click", () => {
    const code = codeOf(block);
    card.remove();
    if (!host.run(code)) {
      showNote(block, "Could not reach the kernel: the code did not run");
      button.focus();
    }
  });
  cancelButton.addEventListener("click", close);
  card.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    event.stopPropagation();
    close();
  });
  block.insertBefore(card, block.querySelector(":scope > .agui-code-note"));
  runButton.focus();
}

/** Handles clicks on the Insert and Run buttons inside `el`; `host()` is read at each click (null:
 * the message offers no Run). Returns the remover. */
export function handleCodeActions(el: HTMLElement, host: () => CodeActionHost | null): () => void {
  const onClick = (event: Event) => {
    const target = event.target as Element | null;
    const button = target?.closest?.(".agui-insert-code, .agui-run-code") as HTMLButtonElement | null;
    if (!button || !el.contains(button)) return;
    const block = button.closest(".agui-codeblock");
    if (!block) return;
    if (button.classList.contains("agui-insert-code")) {
      void insertOrCopy(block, button);
      return;
    }
    const actions = host();
    if (actions) askToRun(block, button, actions);
  };
  el.addEventListener("click", onClick);
  return () => el.removeEventListener("click", onClick);
}
