/**
 * The chat's accent colour, set as `--agui-accent` on each view's root (js/src/styles.css).
 *
 * The kernel keeps it (the synced `accent`: `chat.accent` in Python, or a browser tool's
 * `ctx.setAccent`), so every view shows it, in every tab and after a reload. A tool's change shows
 * at once in the views of the page that ran it and goes to the kernel (`set_accent`), whose value
 * then reaches every view; the kernel's value is the truth whenever it changes.
 */
import type { Connection } from "../kernel/connection";
import { perChat } from "../kernel/perChat";
import { warn } from "../util/log";
import type { ViewRequest } from "../kernel/wire";

export const ACCENT_VAR = "--agui-accent";

type Shared = {
  roots: Set<HTMLElement>;
  /** what a tool in this page set and the kernel has not sent back yet ("" resets), or null */
  local: string | null;
};
const sharedOf = perChat<Shared>(() => ({ roots: new Set(), local: null }));

function paint(root: HTMLElement, color: string): void {
  if (color) root.style.setProperty(ACCENT_VAR, color);
  else root.style.removeProperty(ACCENT_VAR);
}

/** Whether the browser takes `value` as a colour (always true where it cannot say: the kernel checks too). */
function isColor(value: string): boolean {
  const css = (globalThis as { CSS?: { supports?: (property: string, value: string) => boolean } }).CSS;
  return typeof css?.supports !== "function" || css.supports("color", value);
}

/** Shows the chat's accent on `root`, now and whenever the kernel's changes; returns the cleanup. */
export function showAccent(conn: Connection, root: HTMLElement): () => void {
  const shared = sharedOf(conn.model);
  shared.roots.add(root);
  paint(root, shared.local ?? conn.traits.get("accent"));
  const off = conn.traits.subscribe("accent", () => {
    shared.local = null;
    paint(root, conn.traits.get("accent"));
  });
  return () => {
    off();
    shared.roots.delete(root);
  };
}

/** Sets the chat's accent (an empty value brings back the theme's): at once in this page's views,
 * and in the kernel, which shows it in every view. Throws when `color` is not a CSS colour, so a
 * tool's handler answers with the reason. */
export function setAccent(conn: Connection, color: string | null | undefined): void {
  const value = color == null ? "" : String(color).trim();
  if (value !== "" && !isColor(value)) throw new Error(`setAccent: ${JSON.stringify(value)} is not a CSS colour`);
  const shared = sharedOf(conn.model);
  shared.local = value;
  for (const root of shared.roots) paint(root, value);
  const request: ViewRequest = { kind: "set_accent", color: value };
  // Through the model, as a tool's result: it counts even if this view closed meanwhile.
  try {
    conn.model.send(request);
  } catch (error) {
    warn("could not send the accent to the kernel:", error);
  }
}
