/**
 * The grip on the chat's bottom edge: drag it (or focus it and use the arrow keys) to make the
 * chat taller or shorter; a double-click goes back to the default height. The height it sets is
 * this view's own: the kernel's `height` trait is never written from a view, and a new value of it
 * replaces what was dragged.
 *
 * In a container that sets the chat's height (a panel: JupyterLab's output view, a sidecar) the
 * chat fills that instead (hostHeight.ts), and there is no handle: the panel is what to resize.
 */
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { useFillContainer } from "./hostHeight";

export const MIN_HEIGHT = 160;
export const MAX_HEIGHT = 4000;
/** Pixels per arrow key press (times four with Shift, or for PageUp/PageDown). */
export const KEY_STEP = 24;

export function clampHeight(px: number): number {
  return Math.round(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, px)));
}

type Props = {
  /** the element whose height this handle changes */
  target: { current: HTMLElement | null };
  onResize: (px: number) => void;
  onReset: () => void;
};

export function ResizeHandle({ target, onResize, onReset }: Props) {
  const [height, setHeight] = useState(0);
  const drag = useRef<{ pointerId: number; startY: number; startHeight: number } | null>(null);
  const fills = useFillContainer(target);

  // aria-valuenow follows the height, whoever changed it (a drag, the trait, the window).
  useLayoutEffect(() => {
    const el = target.current;
    if (!el) return;
    const measure = () => setHeight(Math.round(el.getBoundingClientRect().height));
    measure();
    const Observer = el.ownerDocument.defaultView?.ResizeObserver;
    if (!Observer) return;
    const observer = new Observer(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [target]);

  const current = () => target.current?.getBoundingClientRect().height ?? height;

  const onPointerDown = (e: PointerEvent) => {
    if (e.button !== 0) return;
    e.preventDefault(); // no text selection while dragging
    const handle = e.currentTarget as HTMLElement;
    handle.setPointerCapture?.(e.pointerId);
    drag.current = { pointerId: e.pointerId, startY: e.clientY, startHeight: current() };
  };
  const onPointerMove = (e: PointerEvent) => {
    const d = drag.current;
    if (!d || d.pointerId !== e.pointerId) return;
    onResize(clampHeight(d.startHeight + e.clientY - d.startY));
  };
  const endDrag = (e: PointerEvent) => {
    if (drag.current?.pointerId !== e.pointerId) return;
    drag.current = null;
    (e.currentTarget as HTMLElement).releasePointerCapture?.(e.pointerId);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    const step = e.shiftKey ? KEY_STEP * 4 : KEY_STEP;
    const by: Record<string, number> = { ArrowDown: step, ArrowUp: -step, PageDown: KEY_STEP * 4, PageUp: -KEY_STEP * 4 };
    if (e.key in by) onResize(clampHeight(current() + (by[e.key] ?? 0)));
    else if (e.key === "Home") onResize(MIN_HEIGHT);
    else return;
    // Handled here: neither the page nor the notebook scrolls or moves between cells.
    e.preventDefault();
  };

  if (fills) return null;
  return (
    <div
      class="agui-resize"
      role="separator"
      aria-orientation="horizontal"
      aria-label="Resize chat"
      aria-valuemin={MIN_HEIGHT}
      aria-valuemax={MAX_HEIGHT}
      aria-valuenow={height || undefined}
      aria-valuetext={height ? `${height} pixels tall` : undefined}
      tabIndex={0}
      title="Drag to resize the chat (double-click: default height)"
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={endDrag}
      onPointerCancel={endDrag}
      onKeyDown={onKeyDown}
      onDblClick={onReset}
    />
  );
}
