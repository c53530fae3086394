/**
 * What the open (last, still streaming) block of a message shows while it streams.
 *
 * Markdown cut in the middle renders differently from the same text finished: `**bo` is two
 * stars and "bo" until the closing `**` arrives, a table header is a paragraph of pipes until
 * its delimiter row arrives, a lone `-` is a paragraph until it becomes a list item. Rendered
 * as is, the text jumps (markers appear, then vanish). `healTail` returns the text to render
 * for display instead: unfinished inline markers are closed (or, with nothing after them yet,
 * held back), a trailing line made only of markup is held back, a table is held back until its
 * delimiter row is complete, and an unfinished link shows its text. Only display changes: the
 * message text is untouched, and once the block is complete it is rendered from its own source.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** A partial last line that is only markup so far: "-", "1.", "##", "|", ">", "```", "**"… */
const MARKUP_ONLY = /^ {0,3}(?:[-+*=_>#~`|:]+|\d{1,9}[.)]?)\s*$/;
const TABLE_ROW = /^ {0,3}\|/;
/** The start of a table delimiter row ("|---|:-", "| - |"…). */
const DELIMITER_PREFIX = /^ {0,3}\|?\s*:?-*:?\s*(?:\|\s*:?-*:?\s*)*\|?\s*$/;

/** The marker of the fenced code block `lines` end in, or null. */
function openFence(lines: readonly string[]): string | null {
  let fence: string | null = null;
  for (const line of lines) {
    const m = FENCE.exec(line);
    if (!m) continue;
    const marker = m[1] as string;
    if (fence === null) fence = marker;
    else if (marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
  }
  return fence;
}

/** Returns `text` (the open tail of a streaming message) as it should be displayed. */
export function healTail(text: string): string {
  if (!text) return text;
  const lines = text.split("\n");
  // lines[i] is complete (a newline follows it) for every i < lines.length - 1.
  const lastIndex = lines.length - 1;
  const last = lines[lastIndex] as string;

  const fence = openFence(lines);
  if (fence !== null) {
    // Inside code: only hold back what may be the start of the closing fence.
    if (/^ {0,3}(`+|~+)\s*$/.test(last) && last.trim()[0] === fence[0] && !FENCE.test(last)) lines[lastIndex] = "";
    return lines.join("\n");
  }

  if (MARKUP_ONLY.test(last)) lines[lastIndex] = "";

  // The last block: the lines after the last blank line.
  let start = lastIndex;
  while (start > 0 && (lines[start - 1] as string).trim() !== "") start--;

  // A table is held back until its delimiter row is complete: until then its header shows as a
  // paragraph of pipes. Its rows are the trailing run of lines that start with "|".
  const end = lines[lastIndex] === "" ? lastIndex : lines.length; // lines[start..end) hold text
  let first = end;
  while (first > start && TABLE_ROW.test(lines[first - 1] as string)) first--;
  if (first < end) {
    const second = first + 1 < end ? (lines[first + 1] as string) : undefined;
    const secondComplete = first + 1 < lastIndex;
    if (second === undefined || (!secondComplete && DELIMITER_PREFIX.test(second))) {
      if (first === 0) return "";
      return first === start ? `${lines.slice(0, first).join("\n")}\n` : `${healBlock(lines.slice(0, first), start)}\n`;
    }
  }
  return healBlock(lines, start);
}

/** `lines` joined, the inline markers of the block from line `start` on healed. */
function healBlock(lines: readonly string[], start: number): string {
  const healed = healInline(lines.slice(start).join("\n"));
  return start > 0 ? `${lines.slice(0, start).join("\n")}\n${healed}` : healed;
}

type Opener = { at: number; marker: string };

const OPENS_AFTER = /[\s([{"'*_~>|:;,.!?-]/;

/** A left-to-right pass over one block: the text (cut short where the rest is held back) and the markers open so far. */
type Scan = { text: string; openers: Opener[]; lineStart: boolean };

/** Returned by a step of the scan instead of an index: nothing after this point needs reading. */
const DONE = -1;

/**
 * Closes the inline markers left open at the end of `text` (one block, outside code fences):
 * code spans, `**`, `~~`, `*`, and links. A marker with nothing after it yet is removed instead.
 * Conservative: a marker opens only after a space, punctuation or the start of the text, so
 * `a*b` or `2 * 3` are left alone.
 */
export function healInline(text: string): string {
  const scan: Scan = { text: withoutUnfinishedLink(text), openers: [], lineStart: true };
  let i = 0;
  while (i !== DONE && i < scan.text.length) {
    const c = scan.text[i] as string;
    if ((c === "$" && scan.text[i + 1] !== "$" && scan.text[i - 1] !== "$") || (c === "\\" && scan.text[i + 1] === "(")) {
      const next = skipMath(scan, i);
      if (next !== null) {
        i = next;
        continue;
      }
    }
    if (c === "\\") {
      i += 2;
      scan.lineStart = false;
    } else if (c === "\n") {
      i++;
      scan.lineStart = true;
    } else if (c === "`") {
      i = codeSpan(scan, i);
    } else if (c === "*" || c === "~") {
      i = emphasis(scan, i, c);
    } else {
      if (c !== " " && c !== "\t" && c !== ">") scan.lineStart = false;
      i++;
    }
  }
  return closeOpeners(scan.text, scan.openers);
}

/** An unfinished link shows its text ("[docs](https://exa" -> "docs"); an unfinished image
 * nothing. Only a bracket after a space or punctuation: "array[i" is not a link. */
function withoutUnfinishedLink(text: string): string {
  const link = /(!?)\[([^[\]\n]*)(?:\]\([^()\s]*|\])?$/.exec(text);
  if (link && (link.index === 0 || OPENS_AFTER.test(text[link.index - 1] as string))) {
    return text.slice(0, link.index) + (link[1] === "!" ? "" : (link[2] ?? ""));
  }
  return text;
}

/**
 * Inline math (`$…$` or `\(…\)`) opening at `i`: the index after its closing delimiter, DONE
 * when the formula is still being typed (it is cut off), or null when this does not open math.
 *
 * Inline math being typed on the last line ("$c(n) = a +") shows as source, then turns into a
 * formula: it is held back until its closing delimiter arrives. Only when it reads as math (after
 * a space, then a letter or a backslash): "$5" is a price.
 */
function skipMath(scan: Scan, i: number): number | null {
  const text = scan.text;
  const c = text[i] as string;
  const open = c === "$" ? 1 : 2;
  const next = text[i + open] ?? "";
  const before = i === 0 ? " " : (text[i - 1] as string);
  const close = c === "$" ? /(?<![\s\\])\$(?!\d)/g : /\\\)/g;
  close.lastIndex = i + open;
  const found = close.exec(text);
  if (found) {
    scan.lineStart = false;
    return found.index + found[0].length; // the formula's inside is not Markdown
  }
  if (!text.includes("\n", i) && OPENS_AFTER.test(before) && (next === "" || /[A-Za-z\\]/.test(next))) {
    scan.text = text.slice(0, i);
    return DONE;
  }
  return null;
}

/** The code span whose backtick run starts at `i`: the index after its closing run, or DONE when
 * it is still open (the rest is inside it). */
function codeSpan(scan: Scan, i: number): number {
  const text = scan.text;
  let n = 1;
  while (text[i + n] === "`") n++;
  const run = "`".repeat(n);
  let close = -1; // a run of exactly the same length closes the span
  for (let j = text.indexOf(run, i + n); j !== -1; j = text.indexOf(run, j + 1)) {
    if (text[j - 1] !== "`" && text[j + n] !== "`") {
      close = j;
      break;
    }
  }
  if (close === -1) {
    // A closing run being typed ("`` x `" of "`` x ``") is held back.
    const tail = /`+$/.exec(text);
    if (tail && tail.index > i + n && tail[0].length < n) scan.text = text.slice(0, tail.index);
    scan.openers.push({ at: i, marker: run });
    return DONE;
  }
  scan.lineStart = false;
  return close + n;
}

/** The run of `c` ("*" or "~") at `i`, which may open or close emphasis or strikethrough: the
 * index after it, or DONE when it is the first half of a closing marker (it is cut off). */
function emphasis(scan: Scan, i: number, c: string): number {
  const text = scan.text;
  const openers = scan.openers;
  let n = 1;
  while (text[i + n] === c) n++;
  const before = i === 0 ? " " : (text[i - 1] as string);
  const after = text[i + n] ?? "";
  const bullet = scan.lineStart && c === "*" && n === 1 && after === " ";
  const marker = c === "~" ? (n === 2 ? "~~" : "") : n === 1 ? "*" : n === 2 ? "**" : "";
  const top = openers[openers.length - 1];
  if (after === "" && top && n < top.marker.length && top.marker.startsWith(c.repeat(n)) && !/\s/.test(before)) {
    // The first half of a closing "**" or "~~": held back until the rest arrives.
    scan.text = text.slice(0, i);
    return DONE;
  }
  if (marker && !bullet) {
    if (top && top.marker === marker && !/\s/.test(before)) openers.pop();
    else if ((after === "" || !/\s/.test(after)) && OPENS_AFTER.test(before)) openers.push({ at: i, marker });
  }
  scan.lineStart = false;
  return i + n;
}

/** `text` with its open markers closed, innermost first; markers with nothing after them yet are dropped. */
function closeOpeners(text: string, openers: readonly Opener[]): string {
  let out = text;
  let closers = "";
  for (let k = openers.length - 1; k >= 0; k--) {
    const { at, marker } = openers[k] as Opener;
    if (closers === "" && out.slice(at + marker.length).trim() === "") out = out.slice(0, at);
    else closers += marker;
  }
  return closers ? out.replace(/\s+$/, "") + closers : out;
}
