/**
 * Keeps a scroll box at its end while its content grows: the transcript, the event inspector.
 *
 * Following stops only on the user's own input: a wheel or touch scroll up, a scroll key
 * (PageUp, ArrowUp, Home, Shift+Space) outside a text field, or dragging the scrollbar up. A
 * scroll event alone says nothing about who scrolled: the box's own jump to the end fires its
 * event a frame later, when the content may have grown again and the box looks scrolled up.
 * Reaching the end again, by any means, follows again.
 */

/** How close to the end (px) counts as at the end: sub-pixel offsets and zoom rounding. */
export const END_SLACK = 8;
/** How long after a scroll input (ms) the box's scroll events are taken as the user's. */
export const GESTURE_MS = 600;

const UP_KEYS = new Set(["PageUp", "ArrowUp", "Home"]);
const SCROLL_KEYS = new Set(["PageUp", "PageDown", "ArrowUp", "ArrowDown", "Home", "End", " "]);

/** Keys typed here edit text or pick an option: they never scroll the box. */
function isEditable(target: EventTarget | null): boolean {
  const el = target as Element | null;
  return !!el?.closest?.("textarea, input, select, [contenteditable]:not([contenteditable=false])");
}

function scrollsVertically(el: Element): boolean {
  const overflow = el.ownerDocument.defaultView?.getComputedStyle(el).overflowY;
  return (overflow === "auto" || overflow === "scroll") && el.scrollHeight > el.clientHeight;
}

export class ScrollFollower {
  private following = true;
  private lastTop = 0;
  private gestureUntil = 0;
  private dragging = false;
  private touchY: number | null = null;

  constructor(
    private readonly box: HTMLElement,
    private readonly content: HTMLElement,
    private readonly onChange: (following: boolean) => void,
  ) {}

  get isFollowing(): boolean {
    return this.following;
  }

  /** Follow the end from now on, and go there. */
  follow(): void {
    this.gestureUntil = 0;
    this.set(true);
    this.toEnd();
  }

  /** Stop following: the user works on something above the end (an edit box), and growth
   * below must not pull it out of view. Reaching the end again follows again, as ever. */
  stop(): void {
    this.gestureUntil = 0;
    this.set(false);
  }

  /** Starts listening; returns the function that stops. */
  attach(): () => void {
    const { box } = this;
    const off: Array<() => void> = [];
    const listen = <K extends keyof HTMLElementEventMap>(target: EventTarget, type: K, fn: (e: HTMLElementEventMap[K]) => void) => {
      target.addEventListener(type, fn as EventListener, { passive: true });
      off.push(() => target.removeEventListener(type, fn as EventListener));
    };
    listen(box, "scroll", () => this.onScroll());
    listen(box, "wheel", (e) => this.onWheel(e));
    listen(box, "keydown", (e) => this.onKey(e));
    listen(box, "touchstart", (e) => this.onTouchStart(e));
    listen(box, "touchmove", (e) => this.onTouchMove(e));
    listen(box, "touchend", () => (this.touchY = null));
    listen(box, "pointerdown", (e) => this.onPointerDown(e));
    const view = box.ownerDocument.defaultView;
    if (view) {
      listen(view, "pointerup", () => this.endDrag());
      listen(view, "pointercancel", () => this.endDrag());
    }

    const grew = () => this.onResize();
    const Observer = view?.ResizeObserver ?? globalThis.ResizeObserver;
    if (typeof Observer !== "undefined") {
      // The content for growth, the box for a change of its own size (a panel, the resize handle).
      const observer = new Observer(grew);
      observer.observe(this.content);
      observer.observe(box);
      off.push(() => observer.disconnect());
    } else if (typeof MutationObserver !== "undefined") {
      const observer = new MutationObserver(grew);
      observer.observe(this.content, { childList: true, subtree: true, characterData: true });
      off.push(() => observer.disconnect());
    }
    this.lastTop = box.scrollTop;
    if (this.following) this.toEnd();
    return () => {
      for (const stop of off) stop();
    };
  }

  private set(following: boolean): void {
    if (following === this.following) return;
    this.following = following;
    this.onChange(following);
  }

  private distanceToEnd(): number {
    const { box } = this;
    return box.scrollHeight - box.scrollTop - box.clientHeight;
  }

  private toEnd(): void {
    this.box.scrollTop = this.box.scrollHeight;
    this.lastTop = this.box.scrollTop;
  }

  private userScrolling(): boolean {
    return this.dragging || this.touchY !== null || Date.now() < this.gestureUntil;
  }

  private gesture(): void {
    this.gestureUntil = Date.now() + GESTURE_MS;
  }

  /** The user asked to go up: stop following at once, before the scroll even happens, so the
   * next growth does not pull the box back down under them. Only when this box is the one that
   * will scroll: a code block inside it may take the input instead. */
  private userWentUp(target: EventTarget | null): void {
    this.gesture();
    if (this.box.scrollTop <= 0) return;
    for (let el = target as Element | null; el && el !== this.box; el = el.parentElement) {
      if (el.scrollTop > 0 && scrollsVertically(el)) return;
    }
    this.set(false);
  }

  private onWheel(e: WheelEvent): void {
    if (e.ctrlKey || e.deltaY === 0) return; // a pinch zoom, or sideways
    if (e.deltaY < 0) this.userWentUp(e.target);
    else this.gesture();
  }

  private onKey(e: KeyboardEvent): void {
    if (!SCROLL_KEYS.has(e.key) || isEditable(e.target)) return;
    if (e.key === " " && e.target !== this.box) return; // Space on a button presses it
    if (UP_KEYS.has(e.key) || (e.key === " " && e.shiftKey)) this.userWentUp(e.target);
    else this.gesture();
  }

  private onTouchStart(e: TouchEvent): void {
    this.touchY = e.touches[0]?.clientY ?? null;
  }

  private onTouchMove(e: TouchEvent): void {
    const y = e.touches[0]?.clientY;
    if (y === undefined) return;
    // A finger moving down drags the content down: the box scrolls up.
    if (this.touchY !== null && y > this.touchY) this.userWentUp(e.target);
    else this.gesture();
    this.touchY = y;
  }

  private onPointerDown(e: PointerEvent): void {
    // Only the box's own scrollbar (or padding) targets the box itself; content has its rows.
    if (e.target === this.box) this.dragging = true;
  }

  private endDrag(): void {
    if (!this.dragging) return;
    this.dragging = false;
    this.gesture(); // the scroll the drag started may still be settling
  }

  private onScroll(): void {
    const top = this.box.scrollTop;
    const movedUp = top < this.lastTop - 1;
    this.lastTop = top;
    // A hand on the scrollbar or the screen moves the box itself: any move up is theirs.
    if (movedUp && (this.dragging || this.touchY !== null)) this.set(false);
    // At the end, whoever moved it: content that shrank just after a wheel turn clamps the
    // offset, which is no reason to stop.
    else if (this.distanceToEnd() <= END_SLACK) this.set(true);
    else if (movedUp && this.userScrolling()) this.set(false);
  }

  private onResize(): void {
    if (this.following) this.toEnd();
    // Content that shrank to fit (or a box that grew) puts the end in view again.
    else if (!this.userScrolling() && this.distanceToEnd() <= END_SLACK) this.set(true);
  }
}
