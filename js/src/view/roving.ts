/** One Tab stop for a long list of rows (the event inspector's): the rows are focusable by the
 * arrow keys, Home and End, and Tab goes past the whole list at once instead of stopping at each
 * of its hundreds of rows. The row last focused keeps the list's Tab stop (the first row before). */
import type { RefObject } from "preact";
import { useCallback, useLayoutEffect, useRef } from "preact/hooks";

const MOVES: Record<string, (index: number, count: number) => number> = {
  ArrowDown: (i, n) => Math.min(i + 1, n - 1),
  ArrowUp: (i) => Math.max(i - 1, 0),
  Home: () => 0,
  End: (_, n) => n - 1,
};

/** Gives the Tab stop to `current` when it is one of `rows`, else to the first row. Returns the row
 * that has it (null for no rows). */
export function assignTabStop(rows: readonly HTMLElement[], current: HTMLElement | null): HTMLElement | null {
  const holder = current && rows.includes(current) ? current : (rows[0] ?? null);
  for (const row of rows) row.tabIndex = row === holder ? 0 : -1;
  return holder;
}

/** Where an arrow key, Home or End moves the focus from `from` among `rows` (null: not such a key). */
export function nextRow(rows: readonly HTMLElement[], from: HTMLElement, key: string): HTMLElement | null {
  const move = MOVES[key];
  const index = rows.indexOf(from);
  if (!move || index < 0) return null;
  return rows[move(index, rows.length)] ?? null;
}

/** The container's handlers: arrow keys, Home and End move among the rows; a row that gets the
 * focus (a click, Tab) becomes the list's Tab stop. */
export type RovingHandlers = { onKeyDown: (event: KeyboardEvent) => void; onFocusIn: (event: FocusEvent) => void };

/** Keeps one Tab stop among the elements of `container` that match `selector`, after every render
 * of the calling component; returns the handlers to put on the container. */
export function useRovingTabStop(container: RefObject<HTMLElement | null>, selector: string): RovingHandlers {
  const current = useRef<HTMLElement | null>(null);
  const rowsOf = useCallback(() => [...(container.current?.querySelectorAll<HTMLElement>(selector) ?? [])], [container, selector]);
  useLayoutEffect(() => {
    current.current = assignTabStop(rowsOf(), current.current);
  });
  const onKeyDown = useCallback(
    (event: KeyboardEvent) => {
      const rows = rowsOf();
      const to = nextRow(rows, event.target as HTMLElement, event.key);
      if (!to) return;
      event.preventDefault();
      current.current = assignTabStop(rows, to);
      to.focus();
    },
    [rowsOf],
  );
  const onFocusIn = useCallback(
    (event: FocusEvent) => {
      const rows = rowsOf();
      if (rows.includes(event.target as HTMLElement)) current.current = assignTabStop(rows, event.target as HTMLElement);
    },
    [rowsOf],
  );
  return { onKeyDown, onFocusIn };
}
