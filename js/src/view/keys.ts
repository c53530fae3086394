/** Keyboard helpers: the view's text boxes, and keys kept from the notebook around the chat. */

/**
 * Inserts a line break at the caret of `box` ourselves (and cancels the browser's own).
 *
 * JupyterLab cancels the `insertLineBreak` input of any element inside a notebook cell (it takes
 * Shift+Enter to mean "run the cell"), so a plain textarea in a cell's output cannot get a new
 * line from the keyboard. Inserting it as text avoids that; `execCommand` keeps it undoable where
 * the browser supports it.
 */
export function insertLineBreak(event: KeyboardEvent, box: HTMLTextAreaElement): void {
  event.preventDefault();
  let done = false;
  try {
    done = typeof document.execCommand === "function" && document.activeElement === box && document.execCommand("insertText", false, "\n");
  } catch {
    done = false;
  }
  if (!done) {
    box.setRangeText("\n", box.selectionStart, box.selectionEnd, "end");
    box.dispatchEvent(new Event("input", { bubbles: true }));
  }
}

export function isComposing(event: KeyboardEvent): boolean {
  return event.isComposing || event.keyCode === 229;
}

/**
 * Undo (Ctrl/Cmd+Z) and redo (Ctrl/Cmd+Shift+Z, Ctrl+Y) in one of the view's text boxes, done
 * here. Inside a notebook JupyterLab cancels the browser's own undo of any element under its
 * document (it undoes cell edits instead), from a listener it puts on the box itself, so keeping
 * the key from bubbling is not enough. `execCommand` runs the browser's native undo; when it has
 * nothing to undo (or is missing) the key is left to the browser. Returns whether it was such a key.
 */
export function undoOrRedo(event: KeyboardEvent): boolean {
  const key = event.key.toLowerCase();
  const accel = event.ctrlKey || event.metaKey;
  if (!accel || event.altKey || isComposing(event)) return false;
  const redo = (key === "z" && event.shiftKey) || (key === "y" && event.ctrlKey && !event.shiftKey);
  if (key !== "z" && !redo) return false;
  event.stopPropagation(); // the notebook's own Undo must not take the key either
  let done = false;
  try {
    done = typeof document.execCommand === "function" && document.execCommand(redo ? "redo" : "undo");
  } catch {
    done = false;
  }
  if (done) event.preventDefault();
  return true;
}

/**
 * Keys pressed in the chat belong to the chat, not to the notebook around it: typing cannot run,
 * add, move or delete cells, in JupyterLab as in Notebook 7.
 *
 * JupyterLab and Notebook 7 (Lumino's keymap) skip a shortcut when the element the key was pressed
 * on, or an ancestor on the way up to the one that meets the shortcut's selector, is marked
 * `data-lm-suppress-shortcuts`; the chat's root carries that mark. But the notebook's command-mode
 * shortcuts (arrows, A, B, C, X, M, Y, Z, O, Shift+arrows, D D deleting a cell, 0 0 restarting the
 * kernel, I I interrupting it...) have selectors such as
 * `.jp-Notebook.jp-mod-commandMode:not(.jp-mod-readWrite) :focus`, which a focused control meets
 * itself (a button, a select, a slider, the transcript's scroll box, a live widget's handle), so
 * the walk never reaches the root. JupyterLab runs such a shortcut after the control saw the key
 * and cancels the browser's own action (an arrow no longer scrolls); Notebook 7 listens in the
 * capture phase and runs it before the control sees the key at all. Text boxes are spared by the
 * notebook itself (`jp-mod-readWrite`), and below by `keepKeysInTheChat`.
 *
 * So for the length of one key's dispatch the focused element itself is marked, from a listener
 * on the window's capture phase, which runs before either. Keys with Ctrl, Cmd or Alt are left to
 * the notebook (Ctrl+S saves it), as are keys pressed outside a chat.
 */
const SUPPRESS = "data-lm-suppress-shortcuts";

/** The element every chat view is drawn in (./App.tsx); live widgets are inside it. */
const CHAT_ROOT = ".agui-shell";

/** Marks the element a key was pressed on, inside a chat, as one whose keys the notebook's
 * shortcuts leave alone, until this key's dispatch is over. Returns whether it did. */
export function markKeyAsTheChats(event: KeyboardEvent): boolean {
  if (event.ctrlKey || event.metaKey || event.altKey) return false;
  const target = event.target as Element | null;
  if (typeof target?.closest !== "function" || !target.closest(CHAT_ROOT) || target.hasAttribute(SUPPRESS)) return false;
  target.setAttribute(SUPPRESS, "true");
  // After the dispatch (a microtask would run between two listeners of this one key)
  setTimeout(() => target.removeAttribute(SUPPRESS), 0);
  return true;
}

const listening = new WeakMap<Window, number>();

/** Marks keys pressed in a chat (`markKeyAsTheChats`) while any chat of the page is shown: one
 * listener for the page, before the notebook's. Returns how to stop, for this caller. */
export function keepKeysFromTheNotebook(win: Window): () => void {
  const count = listening.get(win) ?? 0;
  if (count === 0) win.addEventListener("keydown", markKeyAsTheChats, true);
  listening.set(win, count + 1);
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    const left = (listening.get(win) ?? 1) - 1;
    listening.set(win, left);
    if (left === 0) win.removeEventListener("keydown", markKeyAsTheChats, true);
  };
}

/** Text-editing keys typed in the chat's boxes, with Ctrl or Cmd, that stay in the box. */
const EDITING_COMBOS = new Set(["a", "c", "v", "x", "z", "y", "backspace", "delete", "home", "end", "arrowleft", "arrowright", "arrowup", "arrowdown"]);

/**
 * The chat root's own key handler. Text-editing keys typed in our boxes stop there, before they
 * bubble to JupyterLab's listeners (Lab also cancels the browser's line breaks and undo inside a
 * notebook, from a listener it puts on the box itself: the boxes do those themselves, above).
 * Other Ctrl/Cmd combinations go through with the root's mark lifted for that key's dispatch, so
 * Ctrl+S still saves the notebook.
 */
export function keepKeysInTheChat(event: KeyboardEvent): void {
  const target = event.target as Element | null;
  const editing = !!target?.closest?.("textarea, input, select, [contenteditable]");
  const modified = event.ctrlKey || event.metaKey;
  if (editing && (!modified || event.key === "Enter" || EDITING_COMBOS.has(event.key.toLowerCase()))) {
    event.stopPropagation();
    return;
  }
  if (modified && event.key !== "Enter") {
    const node = event.currentTarget as HTMLElement;
    node.removeAttribute(SUPPRESS);
    setTimeout(() => node.setAttribute(SUPPRESS, "true"), 0);
  }
}
