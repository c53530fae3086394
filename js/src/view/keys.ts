/** Keyboard helpers for the view's text boxes. */

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
