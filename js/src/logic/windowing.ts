/**
 * The transcript's windowing as arithmetic, without the DOM: where each row is, which rows a
 * scroll position needs, and where to scroll so that the row at the top of the view stays put
 * when rows above it change height. ../view/Windowed.tsx does the DOM part (rendering the rows this
 * chooses, measuring them, listening to the scroll box).
 *
 * Every row has an *extent*: the room it takes in the transcript's column, its margins and the
 * column's gap after it included, so that row i starts at the sum of the extents before it. A
 * rendered row's extent is measured; the others' is their estimate times `scale`, the ratio of
 * measured to estimated extents over the rows measured so far (so a transcript whose rows are all
 * taller than estimated gets a scroll height near the truth before most rows were ever shown).
 * A row that renders nothing (a tool result shown in its call's card) measures 0.
 *
 * Rows are known by key, not by position: a measurement survives rows added before it, and an
 * anchor (the row at the top of the view, and how far into it the view begins) still names the
 * same row after a splice.
 */

/** A row's key and its estimated extent (px). */
export type RowSpec = { key: string; guess: number };

/** Rows [start, end). */
export type Span = { start: number; end: number };

/** The row at the top of the view, and how far (px) below that row's top the view begins. */
export type Anchor = { key: string; delta: number };

/** `scale` moves within these bounds, so one odd row cannot make every estimate absurd. */
const SCALE_MIN = 0.25;
const SCALE_MAX = 4;
/** How many measured rows `scale` waits for. */
const SCALE_SAMPLES = 4;

export class RowModel {
  private keys: string[] = [];
  private index = new Map<string, number>();
  private guesses: number[] = [];
  /** measured extents, by key */
  private sizes = new Map<string, number>();
  /** the measured rows counted in `scale`: their extent and the estimate they had */
  private counted = new Map<string, { extent: number; guess: number }>();
  private measuredSum = 0;
  private guessedSum = 0;
  private samples = 0;
  private _scale = 1;
  /** starts[i]: where row i begins; starts[n]: the total. Right up to index `valid`. */
  private starts: Float64Array = new Float64Array(1);
  private valid = 0;

  get count(): number {
    return this.keys.length;
  }

  get scale(): number {
    return this._scale;
  }

  keyAt(i: number): string | undefined {
    return this.keys[i];
  }

  indexOf(key: string): number | undefined {
    return this.index.get(key);
  }

  /**
   * The rows, in order. Measurements of rows still there are kept; those of rows gone are
   * forgotten. Only what changed from the first differing row on is summed again, so appending
   * a row costs O(1) here besides the comparison.
   */
  setRows(rows: readonly RowSpec[]): void {
    const n = rows.length;
    let first = Math.min(n, this.keys.length);
    for (let i = 0; i < first; i++) {
      const row = rows[i] as RowSpec;
      if (row.key !== this.keys[i] || row.guess !== this.guesses[i]) {
        first = i;
        break;
      }
    }
    const before = this.keys.length;
    this.keys = rows.map((r) => r.key);
    this.guesses = rows.map((r) => r.guess);
    if (first === before) {
      // Rows appended (or none changed): the index only grows.
      for (let i = before; i < n; i++) this.index.set(this.keys[i] as string, i);
    } else {
      this.index = new Map(this.keys.map((k, i) => [k, i]));
      for (const key of [...this.sizes.keys()]) if (!this.index.has(key)) this.forget(key);
    }
    if (this.starts.length < n + 1) {
      const grown = new Float64Array(Math.max(n + 1, this.starts.length * 2));
      grown.set(this.starts.subarray(0, this.valid + 1));
      this.starts = grown;
    }
    this.invalidate(first);
  }

  /** The extent of row i: measured, or estimated times `scale`. */
  extentAt(i: number): number {
    const key = this.keys[i];
    if (key === undefined) return 0;
    const size = this.sizes.get(key);
    return size !== undefined ? size : (this.guesses[i] as number) * this._scale;
  }

  /** The measured extent of a row, if it has one. */
  measured(key: string): number | undefined {
    return this.sizes.get(key);
  }

  /** A row's measured extent; returns whether it changed. Unknown keys are ignored. */
  measure(key: string, extent: number): boolean {
    const i = this.index.get(key);
    if (i === undefined) return false;
    const before = this.sizes.get(key);
    if (before !== undefined && Math.abs(before - extent) < 0.25) return false;
    this.forget(key);
    this.sizes.set(key, extent);
    const guess = this.guesses[i] as number;
    if (extent > 0 && guess > 0) {
      this.counted.set(key, { extent, guess });
      this.measuredSum += extent;
      this.guessedSum += guess;
      this.samples++;
    }
    this.invalidate(i);
    return true;
  }

  /** Forgets every measurement (the column's width changed: every row wraps anew). */
  forgetSizes(): void {
    this.sizes.clear();
    this.counted.clear();
    this.measuredSum = this.guessedSum = 0;
    this.samples = 0;
    this.invalidate(0);
  }

  /**
   * Takes the ratio of measured to estimated extents as the new `scale` (when it moved by more
   * than 2 %). Called when the rows are drawn anew, never between: the spacers in the page were
   * drawn with the scale in force, and the model must keep agreeing with them. Returns whether
   * the scale changed.
   */
  rescale(): boolean {
    const next = this.nextScale();
    if (next === null) return false;
    this._scale = next;
    this.invalidate(0);
    return true;
  }

  /** Would `rescale()` change the scale now? */
  get rescaleDue(): boolean {
    return this.nextScale() !== null;
  }

  private nextScale(): number | null {
    if (this.samples < SCALE_SAMPLES || this.guessedSum <= 0) return null;
    const next = Math.min(SCALE_MAX, Math.max(SCALE_MIN, this.measuredSum / this.guessedSum));
    return Math.abs(next - this._scale) <= 0.02 * this._scale ? null : next;
  }

  /** Where row i begins (i = count: the total). */
  startOf(i: number): number {
    const n = this.keys.length;
    const at = Math.max(0, Math.min(i, n));
    if (at > this.valid) {
      const starts = this.starts;
      for (let j = this.valid; j < at; j++) starts[j + 1] = (starts[j] as number) + this.extentAt(j);
      this.valid = at;
    }
    return this.starts[at] as number;
  }

  /** The extents of rows [from, to). */
  between(from: number, to: number): number {
    return to <= from ? 0 : this.startOf(to) - this.startOf(from);
  }

  get total(): number {
    return this.startOf(this.keys.length);
  }

  /** The row that holds offset y: the last row that begins at or before y (clamped to the rows). */
  indexAt(y: number): number {
    const n = this.keys.length;
    if (n === 0) return 0;
    this.startOf(n);
    const starts = this.starts;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= y) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The rows that meet [top - overscan, top + height + overscan]. */
  spanFor(top: number, height: number, overscan: number): Span {
    const n = this.keys.length;
    if (n === 0) return { start: 0, end: 0 };
    const start = this.indexAt(Math.max(0, top - overscan));
    const end = Math.min(n, this.indexAt(top + height + overscan) + 1);
    return { start, end };
  }

  /** The rows a view of `height` px at the very end needs (following the newest message). */
  tailSpan(height: number, overscan: number): Span {
    return this.spanFor(Math.max(0, this.total - height), height, overscan);
  }

  /** The anchor for a view whose top is at `top`: the row there, and how far into it. */
  anchorAt(top: number): Anchor | null {
    const key = this.keys[this.indexAt(Math.max(0, top))];
    if (key === undefined) return null;
    return { key, delta: top - this.startOf(this.index.get(key) as number) };
  }

  /** Where the view's top belongs for `anchor` to hold, or null when its row is gone. */
  topFor(anchor: Anchor): number | null {
    const i = this.index.get(anchor.key);
    return i === undefined ? null : this.startOf(i) + anchor.delta;
  }

  private forget(key: string): void {
    this.sizes.delete(key);
    const counted = this.counted.get(key);
    if (counted === undefined) return;
    this.counted.delete(key);
    this.measuredSum -= counted.extent;
    this.guessedSum -= counted.guess;
    this.samples--;
  }

  private invalidate(from: number): void {
    if (from < this.valid) this.valid = Math.max(0, from);
  }
}

/**
 * The rows to draw: `span`, and each of `extra` (rows kept in the page wherever the view is: the
 * one holding the focus, a card waiting for an answer), as sorted, disjoint spans.
 */
export function spansWith(span: Span, extra: Iterable<number>, count: number): Span[] {
  const points = [...extra].filter((i) => i >= 0 && i < count && (i < span.start || i >= span.end)).sort((a, b) => a - b);
  const spans: Span[] = [];
  const push = (s: Span) => {
    if (s.end <= s.start) return;
    const last = spans[spans.length - 1];
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else spans.push({ ...s });
  };
  let placed = false;
  for (const i of points) {
    if (!placed && i >= span.start) {
      push(span);
      placed = true;
    }
    push({ start: i, end: i + 1 });
  }
  if (!placed) push(span);
  return spans;
}

// ---------------------------------------------------------------------------------------------
// Estimates
// ---------------------------------------------------------------------------------------------

/** What an estimate needs to know of the page: the column's width, the font and line heights,
 * and the column's gap between rows (px). */
export type Metrics = { width: number; font: number; line: number; gap: number };

/** Until the page is measured. */
export const DEFAULT_METRICS: Readonly<Metrics> = Object.freeze({ width: 640, font: 13, line: 19.5, gap: 7.8 });

/** How many lines `text` wraps to at `perLine` characters a line (each line break starts one). */
export function wrappedLines(text: string, perLine: number): number {
  const width = Math.max(8, perLine);
  let lines = 0;
  let from = 0;
  for (;;) {
    const at = text.indexOf("\n", from);
    const end = at === -1 ? text.length : at;
    lines += Math.max(1, Math.ceil((end - from) / width));
    if (at === -1) return lines;
    from = at + 1;
  }
}

/** Characters a line of the message column holds (bubbles are at most 48em wide; an average
 * character is about half an em). */
export function charsPerLine(m: Metrics): number {
  return Math.floor(Math.min(m.width, 48 * m.font) / (0.5 * m.font)) - 2;
}

/**
 * A Markdown text's height (px), roughly: wrapped lines of prose, a paragraph's margin for each
 * blank line, code blocks line by line in the smaller code font with their padding.
 */
export function markdownHeight(text: string, m: Metrics): number {
  if (text === "") return 0;
  let prose = "";
  let code = 0;
  let blocks = 0;
  let blank = 0;
  let inCode = false;
  for (const line of text.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) {
      if (!inCode) blocks++;
      inCode = !inCode;
      continue;
    }
    if (inCode) code++;
    else if (line.trim() === "") blank++;
    else prose += `${line}\n`;
  }
  const proseLines = prose === "" ? 0 : wrappedLines(prose.slice(0, -1), charsPerLine(m));
  return proseLines * m.line + blank * 0.5 * m.font + code * m.line * 0.92 + blocks * 2 * m.font;
}

const guesses = new WeakMap<object, { metrics: Metrics; value: number }>();

/** `compute()` once per object and metrics object (messages are immutable: a changed one is a
 * new object; the windowing makes a new metrics object when the page's metrics change). */
export function memoGuess(of: object, m: Metrics, compute: () => number): number {
  const known = guesses.get(of);
  if (known && known.metrics === m) return known.value;
  const value = compute();
  guesses.set(of, { metrics: m, value });
  return value;
}
