/**
 * A chat in a container that sets its height (JupyterLab's "Create New View for Cell Output", a
 * sidecar, any panel of a fixed height) fills that height and follows it as the panel is resized,
 * so the message box is never below the panel's edge. In a notebook's output the container's
 * height comes from its content, the chat itself: there the chat keeps its own height (the
 * stylesheet's default, the `height` trait, the resize handle).
 *
 * Told by measuring, not from a list of known hosts (which would miss every other one): the chat
 * is given two heights in turn, within one task so that nothing is painted, and the first
 * ancestor whose height stays the same is the container that sets it. The chat fills it when
 * nothing else in it sits above or below the chat (a notebook cell holds its code above).
 */
import { useLayoutEffect, useState } from "preact/hooks";

/** Set on the chat's shell while it fills its container; the height is in FILL_HEIGHT_VAR. */
export const FILL_ATTR = "data-fills-container";
export const FILL_HEIGHT_VAR = "--agui-fill-height";
/** How much taller than its own height the chat is made to see whether a container follows. */
const PROBE_STEP = 64;

/** The container the chat is measured against, and the height that fills it (null: keep the chat's own). */
type Fit = { container: HTMLElement | null; px: number | null };

/** The element holding `node`, across a shadow root's boundary; null at the page's body. */
function parentOf(node: Element): HTMLElement | null {
  const parent = node.parentElement ?? ((node.getRootNode() as ShadowRoot).host as HTMLElement | undefined) ?? null;
  const doc = node.ownerDocument;
  return parent === doc.body || parent === doc.documentElement ? null : parent;
}

const heightOf = (el: Element) => el.getBoundingClientRect().height;

/** Whether something besides `el` (positioned in the flow, and shown) sits above or below it in its parent. */
function hasStackedSibling(el: HTMLElement, parent: HTMLElement): boolean {
  const box = el.getBoundingClientRect();
  for (const other of parent.children) {
    if (other === el) continue;
    const rect = other.getBoundingClientRect();
    if (rect.height === 0) continue;
    const position = getComputedStyle(other).position;
    if (position === "absolute" || position === "fixed") continue;
    if (rect.bottom <= box.top + 0.5 || rect.top >= box.bottom - 0.5) return true;
  }
  return false;
}

/** The room the container's content has, less what `top` (its child holding the chat) takes besides the chat. */
function fillingHeight(shell: HTMLElement, path: HTMLElement[], container: HTMLElement): number | null {
  for (let i = 0; i < path.length; i++) {
    if (hasStackedSibling(path[i] as HTMLElement, path[i + 1] ?? container)) return null;
  }
  const top = path[path.length - 1] as HTMLElement;
  const inside = getComputedStyle(container);
  const outside = getComputedStyle(top);
  const room = container.clientHeight - parseFloat(inside.paddingTop) - parseFloat(inside.paddingBottom);
  const taken = heightOf(top) + parseFloat(outside.marginTop) + parseFloat(outside.marginBottom);
  return Math.floor(heightOf(shell) + room - taken);
}

/** Finds the container that sets the chat's height, if any, and the height that fills it. */
export function measureFit(shell: HTMLElement): Fit {
  const ancestors: HTMLElement[] = [];
  for (let node = parentOf(shell); node; node = parentOf(node)) ancestors.push(node);
  const style = shell.style;
  const saved = ["height", "min-height"].map((name) => [name, style.getPropertyValue(name), style.getPropertyPriority(name)] as const);
  const filling = shell.hasAttribute(FILL_ATTR);
  shell.removeAttribute(FILL_ATTR);
  try {
    const own = heightOf(shell);
    const before = ancestors.map(heightOf);
    style.setProperty("min-height", "0", "important");
    style.setProperty("height", `${own + PROBE_STEP}px`, "important");
    if (Math.abs(heightOf(shell) - own) < 1) return { container: null, px: null }; // not laid out
    const after = ancestors.map(heightOf);
    // An element without a box of its own (display: contents) measures 0 either way: not a container.
    const at = ancestors.findIndex((_, i) => before[i] !== 0 && Math.abs((before[i] ?? 0) - (after[i] ?? 0)) < 0.5);
    if (at < 0) return { container: null, px: null };
    for (const [name, value, priority] of saved) style.setProperty(name, value, priority); // measured at its own height
    const container = ancestors[at] as HTMLElement;
    return { container, px: fillingHeight(shell, [shell, ...ancestors.slice(0, at)], container) };
  } finally {
    for (const [name, value, priority] of saved) style.setProperty(name, value, priority);
    if (filling) shell.setAttribute(FILL_ATTR, "");
  }
}

function apply(shell: HTMLElement, px: number | null): void {
  if (px === null) {
    shell.removeAttribute(FILL_ATTR);
    shell.style.removeProperty(FILL_HEIGHT_VAR);
  } else {
    shell.style.setProperty(FILL_HEIGHT_VAR, `${px}px`);
    shell.setAttribute(FILL_ATTR, "");
  }
}

/** Makes the chat fill a container that sets its height, kept up to date; returns whether it does. */
export function useFillContainer(target: { current: HTMLElement | null }): boolean {
  const [fills, setFills] = useState(false);
  useLayoutEffect(() => {
    const shell = target.current;
    const host = shell?.parentElement;
    const Observer = shell?.ownerDocument.defaultView?.ResizeObserver;
    if (!shell || !host || !Observer) return;
    let watched: HTMLElement | null = null;
    let hostWidth = -1;
    const containerObserver = new Observer(() => check());
    const check = () => {
      const { container, px } = measureFit(shell);
      apply(shell, px);
      setFills(px !== null);
      if (container === watched) return;
      if (watched) containerObserver.unobserve(watched);
      watched = container;
      if (container) containerObserver.observe(container);
    };
    // The chat's own element: it gets a width once it is shown (or moved); its height is ours.
    // Checked on the next frame: changing its height while its own resize is delivered would be
    // a resize loop the browser reports.
    const win = shell.ownerDocument.defaultView;
    let frame = 0;
    const hostObserver = new Observer(() => {
      const width = host.getBoundingClientRect().width;
      if (width === hostWidth) return;
      hostWidth = width;
      if (!win || frame) return;
      frame = win.requestAnimationFrame(() => {
        frame = 0;
        check();
      });
    });
    hostObserver.observe(host);
    check();
    return () => {
      if (frame) win?.cancelAnimationFrame(frame);
      hostObserver.disconnect();
      containerObserver.disconnect();
      apply(shell, null);
    };
  }, [target]);
  return fills;
}
