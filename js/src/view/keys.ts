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
