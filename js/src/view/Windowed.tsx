/**
 * The transcript's rows, drawn only where the view is once there are many of them: the rows on
 * screen and a margin (OVERSCAN_PX) above and below, with spacers standing in for the rest. See
 * docs/architecture.md ("The transcript is windowed") for why, and ../logic/windowing.ts for the
 * arithmetic.
 *
 * - **Measuring.** Rows are measured as they are drawn (their border box, their margins and the
 *   column's gap), then by a ResizeObserver while they stay: a Markdown answer that streams, an
 *   image that loads, a card opened. The rows not drawn keep their estimates.
 * - **Anchoring.** Whatever changes height above the view (a row drawn and measured for the
 *   first time in place of its estimate, an image loading), the row at the top of the view stays
 *   where it was on screen. Browsers with CSS scroll anchoring (Chromium, Firefox) do that
 *   themselves, without cutting short a smooth scroll in progress as setting the offset would;
 *   elsewhere (Safari) the offset is moved by the difference here, before the frame is painted.
 * - **Following the end.** While the chat follows the newest message (ScrollFollower), the rows
 *   drawn are those at the end, whatever the scroll offset says at that moment, and the follower
 *   keeps the box at its end as they grow.
 * - **Rows kept.** The row holding the keyboard focus and the rows of `keep` (the last user
 *   message, which can be edited; a tool card waiting for an answer) stay in the page wherever
 *   the view is, so focus, an edit in progress and "Waiting for you" are never lost to a scroll.
 *
 * Below `windowFrom()` rows, every row is drawn, as before there was windowing: find-in-page and
 * the state of a row (a section opened, text selected) then hold for the whole transcript.
 */
import type { ComponentChild } from "preact";
import { useLayoutEffect, useReducer, useRef } from "preact/hooks";
import { DEFAULT_METRICS, type Anchor, type Metrics, RowModel, type Span, spansWith } from "../logic/windowing";

/** A row of the transcript: its key (a message's id, or the key of what sits after one), an
 * estimate of its extent for the given page metrics, and how to draw it. */
export type WindowRow = { key: string; guess: (m: Metrics) => number; render: () => ComponentChild };

/** Rows drawn beyond each edge of the view (px). */
export const OVERSCAN_PX = 800;
/** The view may come this close (px) to the edge of the rows drawn before more are drawn. */
const REDRAW_MARGIN_PX = 300;
/** The view's height until it is measured (a chat in a hidden output has none). */
const DEFAULT_VIEW_PX = 600;
/** Consecutive redraws without a scroll in between (estimates converging) before giving up. */
const MAX_REDRAWS = 8;

/**
 * Transcripts with at least this many rows are windowed (rows: messages, and the steps, errors
 * and state renders between them). Measured (benchmarks/browser_latency.py, part c): drawing
 * every row costs about 0.3 ms a row in Chromium, so 200 rows stay within about 60 ms; windowing
 * costs find-in-page and the state of rows scrolled far away. A page may set
 * `globalThis.aguiWidgetWindowFrom` (a number; Infinity never windows) for benchmarks.
 */
export const WINDOW_FROM = 200;

export function windowFrom(): number {
  const chosen = (globalThis as { aguiWidgetWindowFrom?: unknown }).aguiWidgetWindowFrom;
  return typeof chosen === "number" && !Number.isNaN(chosen) ? chosen : WINDOW_FROM;
}

type Props = {
  rows: readonly WindowRow[];
  /** draw every row, as a short transcript does */
  all: boolean;
  /** keys of rows kept in the page wherever the view is */
  keep: ReadonlySet<string>;
  /** the scroll box, and the transcript's column inside it (the rows' parent) */
  scroller: { current: HTMLElement | null };
  content: { current: HTMLElement | null };
  /** the chat follows the newest message */
  following: boolean;
};

export function WindowedRows({ rows, all, keep, scroller, content, following }: Props) {
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  const ref = useRef<RowWindow | null>(null);
  if (ref.current === null) ref.current = new RowWindow();
  const w = ref.current;
  w.redraw = () => redraw(undefined as never);
  w.following = following;
  const windowed = !all && rows.length > 0;

  useLayoutEffect(() => {
    const box = scroller.current;
    const column = content.current;
    if (!windowed || !box || !column) return;
    return w.attach(box, column);
  }, [windowed, scroller, content]);

  useLayoutEffect(() => {
    if (windowed) w.drawn();
  });

  if (!windowed) {
    return <>{rows.map((r) => r.render())}</>;
  }
  return <>{w.plan(rows, keep, scroller.current, content.current)}</>;
}

/** What the page has drawn, and the listeners that keep it right. One per transcript view. */
export class RowWindow {
  readonly model = new RowModel();
  redraw: () => void = () => {};
  following = true;

  private rows: readonly WindowRow[] = [];
  private metrics: Metrics = { ...DEFAULT_METRICS };
  private metricsKnown = false;
  private box: HTMLElement | null = null;
  private column: HTMLElement | null = null;
  /** the rows drawn: the span around the view, and all spans with the rows kept */
  private span: Span = { start: 0, end: 0 };
  private spans: Span[] = [];
  private anchor: Anchor | null = null;
  /** Home was pressed: the view stays at the very top while the rows there are measured (their
   * heights correcting the estimates would otherwise leave it a few pixels down), until the
   * user scrolls again. */
  private toTop = false;
  private origin = 0;
  private viewHeight = 0;
  private focused: string | null = null;
  private observer: ResizeObserver | null = null;
  private observed = new Set<Element>();
  private redraws = 0;
  private frame = 0;
  /** Does the browser keep the view on its rows itself (CSS `overflow-anchor`)? */
  private readonly nativeAnchoring = supportsScrollAnchoring();

  /** The rows to draw now, with spacers for the rest. */
  plan(rows: readonly WindowRow[], keep: ReadonlySet<string>, box: HTMLElement | null, column: HTMLElement | null): ComponentChild[] {
    if (!this.metricsKnown && column) this.readMetrics(column);
    if (rows !== this.rows) {
      this.rows = rows;
      this.model.setRows(rows.map((r) => ({ key: r.key, guess: r.guess(this.metrics) })));
    }
    this.model.rescale();
    const model = this.model;
    const height = this.viewHeight || box?.clientHeight || DEFAULT_VIEW_PX;
    const span = this.following ? model.tailSpan(height, OVERSCAN_PX) : model.spanFor(this.viewTop(box), height, OVERSCAN_PX);
    const extra: number[] = [];
    for (const key of keep) {
      const i = model.indexOf(key);
      if (i !== undefined) extra.push(i);
    }
    if (this.focused !== null) {
      // Its neighbours too: Tab and Shift+Tab go on to a row in the page at once, not to the
      // next focusable element after the spacer (the kept rows at the end) while the scroll that
      // focusing caused has not drawn the rows around it yet.
      const i = model.indexOf(this.focused);
      if (i !== undefined) extra.push(i - 1, i, i + 1);
    }
    this.span = span;
    this.spans = spansWith(span, extra, rows.length);
    const out: ComponentChild[] = [];
    let at = 0;
    for (const s of this.spans) {
      if (s.start > at) out.push(<Spacer key={at === 0 ? "spacer:top" : `spacer:${at}`} height={model.between(at, s.start)} />);
      for (let i = s.start; i < s.end; i++) out.push((rows[i] as WindowRow).render());
      at = s.end;
    }
    if (at < rows.length) out.push(<Spacer key="spacer:end" height={model.between(at, rows.length)} />);
    return out;
  }

  /** After the rows were drawn: measure them, keep the anchor, draw again if the view is not
   * covered yet (estimates that were too generous). */
  drawn(): void {
    const { box, column } = this;
    if (!box || !column) return;
    const metricsChanged = this.readMetrics(column);
    this.readOrigin(box, column);
    const elements = this.rowElements(column);
    for (const s of this.spans) {
      for (let i = s.start; i < s.end; i++) {
        const key = this.model.keyAt(i) as string;
        const el = elements.get(key);
        this.model.measure(key, el ? this.extentOf(el) : 0);
      }
    }
    this.observe(elements);
    this.restoreAnchor();
    if (metricsChanged) this.rows = []; // estimates for the new metrics, at the next plan
    if (metricsChanged || !this.covered() || this.model.rescaleDue) this.again();
    else this.redraws = 0;
  }

  /** Starts listening to the scroll box and the rows; returns the function that stops. */
  attach(box: HTMLElement, column: HTMLElement): () => void {
    this.box = box;
    this.column = column;
    const view = box.ownerDocument.defaultView;
    const onScroll = () => this.onScroll();
    const onKey = (e: KeyboardEvent) => {
      this.toTop = e.key === "Home" && !e.shiftKey && !e.ctrlKey && !e.metaKey && !isTextEntry(e.target);
      if (this.toTop) this.pinTop();
    };
    const onUser = () => (this.toTop = false);
    const onFocus = (e: FocusEvent) => {
      const key = this.rowOf(e.target as Node | null);
      if (key === this.focused) return;
      this.focused = key;
      if (key !== null && !this.neighboursDrawn(key)) this.redraw(); // before the next key is handled
    };
    const onBlur = (e: FocusEvent) => {
      if (this.rowOf(e.relatedTarget as Node | null) === null) this.focused = null;
    };
    box.addEventListener("scroll", onScroll, { passive: true });
    box.addEventListener("keydown", onKey);
    box.addEventListener("wheel", onUser, { passive: true });
    box.addEventListener("touchstart", onUser, { passive: true });
    box.addEventListener("pointerdown", onUser);
    column.addEventListener("focusin", onFocus);
    column.addEventListener("focusout", onBlur);
    const Observer = view?.ResizeObserver ?? globalThis.ResizeObserver;
    if (typeof Observer !== "undefined") {
      this.observer = new Observer((entries) => this.onResize(entries));
      this.observer.observe(box);
    }
    // A row may swap its own element (Edit opens a box in place of the message): observe the new one.
    const Mutations = view?.MutationObserver ?? globalThis.MutationObserver;
    const mutations = typeof Mutations !== "undefined" ? new Mutations(() => this.observe(this.rowElements(column))) : null;
    mutations?.observe(column, { childList: true });
    this.viewHeight = box.clientHeight;
    // Anchoring by hand: the browser must not move the offset as well.
    if (!this.nativeAnchoring) box.style.overflowAnchor = "none";
    return () => {
      if (!this.nativeAnchoring) box.style.overflowAnchor = "";
      box.removeEventListener("scroll", onScroll);
      box.removeEventListener("keydown", onKey);
      box.removeEventListener("wheel", onUser);
      box.removeEventListener("touchstart", onUser);
      box.removeEventListener("pointerdown", onUser);
      column.removeEventListener("focusin", onFocus);
      column.removeEventListener("focusout", onBlur);
      mutations?.disconnect();
      this.detached();
    };
  }

  /** Windowing stopped (a short transcript again, or the view went away). */
  detached(): void {
    this.observer?.disconnect();
    this.observer = null;
    this.observed.clear();
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.box = this.column = null;
    this.anchor = null;
    this.rows = [];
  }

  // -- listening --------------------------------------------------------------------------------

  private onScroll(): void {
    this.redraws = 0;
    this.pinTop();
    this.saveAnchor();
    if (!this.covered()) this.redraw();
  }

  private onResize(entries: readonly ResizeObserverEntry[]): void {
    const { box, column } = this;
    if (!box || !column) return;
    let changed = false;
    for (const entry of entries) {
      const el = entry.target as HTMLElement;
      if (el === box) {
        this.viewHeight = box.clientHeight;
        changed = true;
        continue;
      }
      const key = el.dataset.row;
      if (key === undefined || el.parentElement !== column) continue;
      if (this.model.measure(key, this.extentOf(el))) changed = true;
    }
    if (!changed) return;
    // Only the scroll offset moves here: changing sizes inside a ResizeObserver callback would
    // make the browser report a loop. The rows to draw are seen to in the next frame.
    this.restoreAnchor();
    this.later();
  }

  // -- geometry ---------------------------------------------------------------------------------

  /** The top of the view, in the rows' coordinates. */
  private viewTop(box: HTMLElement | null): number {
    return box ? box.scrollTop - this.origin : 0;
  }

  /** Does the rows drawn around the view still cover it, with a margin? */
  private covered(): boolean {
    const { box } = this;
    if (!box) return true;
    const model = this.model;
    const height = this.viewHeight || box.clientHeight || DEFAULT_VIEW_PX;
    const top = this.following ? Math.max(0, model.total - height) : this.viewTop(box);
    const from = model.startOf(this.span.start);
    const to = model.startOf(this.span.end);
    const needFrom = Math.max(0, top - REDRAW_MARGIN_PX);
    const needTo = Math.min(model.total, top + height + REDRAW_MARGIN_PX);
    return from <= needFrom + 0.5 && to >= needTo - 0.5;
  }

  private saveAnchor(): void {
    if (this.following || !this.box || this.nativeAnchoring) {
      this.anchor = null;
      return;
    }
    this.anchor = this.model.anchorAt(this.viewTop(this.box));
  }

  /** At the very top, and kept there (see ``toTop``). */
  private pinTop(): void {
    const { box } = this;
    if (box && this.toTop && !this.following && box.scrollTop !== 0) box.scrollTop = 0;
  }

  /** Puts the anchor row back where it was in the view. */
  private restoreAnchor(): void {
    const { box } = this;
    if (!box) return;
    if (this.toTop && !this.following) {
      this.pinTop();
      return;
    }
    if (this.following || this.anchor === null) {
      this.saveAnchor();
      return;
    }
    const top = this.model.topFor(this.anchor);
    if (top === null) {
      this.saveAnchor();
      return;
    }
    const want = top + this.origin;
    if (Math.abs(box.scrollTop - want) >= 1) box.scrollTop = want;
  }

  private readOrigin(box: HTMLElement, column: HTMLElement): void {
    const style = column.ownerDocument.defaultView?.getComputedStyle(column);
    const padding = style ? parseFloat(style.paddingTop) || 0 : 0;
    this.origin = column.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop + padding;
    this.viewHeight = box.clientHeight;
  }

  /** Reads the column's width, font and gap; returns whether they changed (measurements made
   * at another width are forgotten). */
  private readMetrics(column: HTMLElement): boolean {
    const style = column.ownerDocument.defaultView?.getComputedStyle(column);
    if (!style) return false;
    const font = parseFloat(style.fontSize) || DEFAULT_METRICS.font;
    const lineHeight = parseFloat(style.lineHeight);
    const next: Metrics = {
      width: Math.round(column.clientWidth) || DEFAULT_METRICS.width,
      font,
      line: Number.isFinite(lineHeight) && lineHeight > 0 ? lineHeight : font * 1.5,
      gap: parseFloat(style.rowGap) || 0,
    };
    const before = this.metrics;
    this.metricsKnown = true;
    if (next.width === before.width && next.font === before.font && next.line === before.line && next.gap === before.gap) return false;
    const widthChanged = next.width !== before.width;
    this.metrics = next;
    if (widthChanged) this.model.forgetSizes();
    return true;
  }

  /** A row's extent: its border box, its margins and the column's gap after it. */
  private extentOf(el: HTMLElement): number {
    const style = el.ownerDocument.defaultView?.getComputedStyle(el);
    const margins = style ? (parseFloat(style.marginTop) || 0) + (parseFloat(style.marginBottom) || 0) : 0;
    return el.getBoundingClientRect().height + margins + this.metrics.gap;
  }

  // -- the rows in the page ---------------------------------------------------------------------

  private rowElements(column: HTMLElement): Map<string, HTMLElement> {
    const found = new Map<string, HTMLElement>();
    for (const el of Array.from(column.children) as HTMLElement[]) {
      const key = el.dataset.row;
      if (key !== undefined) found.set(key, el);
    }
    return found;
  }

  private observe(elements: Map<string, HTMLElement>): void {
    const observer = this.observer;
    if (!observer) return;
    const now = new Set<Element>(elements.values());
    for (const el of this.observed) {
      if (!now.has(el)) {
        observer.unobserve(el);
        this.observed.delete(el);
      }
    }
    for (const el of now) {
      if (!this.observed.has(el)) {
        observer.observe(el);
        this.observed.add(el);
      }
    }
  }

  /** Are the rows next to row `key` in the page (or is it at an end of the transcript)? */
  private neighboursDrawn(key: string): boolean {
    const i = this.model.indexOf(key);
    if (i === undefined) return true;
    const drawn = (j: number) => j < 0 || j >= this.rows.length || this.spans.some((s) => s.start <= j && j < s.end);
    return drawn(i - 1) && drawn(i + 1);
  }

  /** The key of the row (a direct child of the column) that holds `node`, if any. */
  private rowOf(node: Node | null): string | null {
    const column = this.column;
    for (let el = node instanceof Element ? node : (node?.parentElement ?? null); el && column; el = el.parentElement) {
      if (el.parentElement === column) return (el as HTMLElement).dataset.row ?? null;
    }
    return null;
  }

  /** Draws again now, a bounded number of times in a row (estimates converging). */
  private again(): void {
    if (this.redraws >= MAX_REDRAWS) return;
    this.redraws++;
    this.redraw();
  }

  /** Draws again in the next frame if the view is no longer covered. */
  private later(): void {
    if (this.frame) return;
    const view = this.box?.ownerDocument.defaultView;
    const schedule = view?.requestAnimationFrame?.bind(view) ?? ((fn: FrameRequestCallback) => setTimeout(() => fn(0), 16) as unknown as number);
    this.frame = schedule(() => {
      this.frame = 0;
      const { box, column } = this;
      if (!box || !column) return;
      const resized = Math.round(column.clientWidth) !== this.metrics.width;
      if (resized || !this.covered() || this.model.rescaleDue) this.redraw();
    });
  }
}

function supportsScrollAnchoring(): boolean {
  const css = (globalThis as { CSS?: { supports?: (property: string, value: string) => boolean } }).CSS;
  return typeof css?.supports === "function" && css.supports("overflow-anchor", "auto");
}

/** Stands in for rows not drawn. Its bottom margin cancels the column's gap after it, so the next
 * row begins exactly `height` px after the spacer's top (styles.css). */
function Spacer({ height }: { height: number }) {
  return <div class="agui-spacer" aria-hidden="true" style={{ height: `${Math.max(0, height)}px` }} />;
}

/** Keys typed into a text field (the composer, an edit box) move its caret, not the transcript. */
function isTextEntry(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || typeof el.tagName !== "string") return false;
  return el.isContentEditable || el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT";
}
