/**
 * Markdown rendered as it streams, without re-parsing the whole message per token.
 *
 * The approach. A message is a sequence of top-level blocks (paragraphs, lists, tables, fences,
 * display math…). CommonMark decides block structure line by line: once a line is complete and
 * a later block has started on a complete line, nothing that arrives afterwards can change the
 * blocks before it. So the renderer keeps two parts in its element:
 *
 * - committed blocks: parsed, rendered, sanitised and inserted once, then never touched again;
 *   `committed` is how many characters of the text they cover;
 * - the open tail (the text after `committed`): re-parsed and re-rendered on each update. It is
 *   usually one block, so an update costs the size of that block, not of the message.
 *
 * On each update the tail is parsed with markdown-it; its top-level token groups are blocks.
 * Every group but the last is committed when the last group starts on a complete line (a
 * partial line may still turn out to continue the block above it: "para\n#" is a heading, but
 * "para\n#x" continues the paragraph). The rest is shown "healed" (./heal.ts) while it streams.
 * When the message ends, the tail is rendered as it is and everything is committed.
 *
 * Blocks are parsed alone, from a block boundary, which gives the same HTML as parsing the
 * whole text (the renderer's output for a token list is the concatenation of its groups'). The
 * one construct that reaches across blocks is a link reference definition (`[x]: https://…`
 * defines `[x]` anywhere in the text); a text that has one is rendered whole on every update.
 * A text that is not the previous one plus more (edited, replaced, cleared) starts over.
 */
import type { Token } from "markdown-it";
import { type DecorateOptions, decorate } from "./decorate";
import { healTail } from "./heal";
import { type Markdown, type RenderEnv, sharedMarkdown } from "./markdown";
import { sanitizeToFragment } from "./sanitize";

/** A link reference definition line: `[label]: destination`. */
const REFERENCE_DEFINITION = /^ {0,3}\[(?:[^\]\\\n]|\\.){1,999}\]:/m;

export type RenderStats = {
  /** markdown-it parses run, and the characters they covered */
  parses: number;
  parsedChars: number;
  /** blocks committed (each rendered exactly once) */
  committedBlocks: number;
  /** renders of the open tail */
  tailRenders: number;
  /** whole-text renders (reference definitions, or a text that changed) */
  fullRenders: number;
};

type Group = { tokens: Token[]; line: number };

/** Top-level blocks of a token stream, with the line each starts on (relative to the source). */
function groupsOf(tokens: Token[]): Group[] {
  const groups: Group[] = [];
  let current: Group | null = null;
  for (const token of tokens) {
    if (current === null) current = { tokens: [], line: token.map?.[0] ?? 0 };
    current.tokens.push(token);
    if (token.level === 0 && token.nesting <= 0) {
      groups.push(current);
      current = null;
    }
  }
  if (current !== null) groups.push(current);
  return groups;
}

/** The offset of the start of line `line` in `text`. */
function offsetOfLine(text: string, line: number): number {
  let at = 0;
  for (let i = 0; i < line; i++) {
    const nl = text.indexOf("\n", at);
    if (nl === -1) return text.length;
    at = nl + 1;
  }
  return at;
}

function countNewlines(text: string): number {
  let n = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) n++;
  return n;
}

export class IncrementalMarkdown {
  readonly stats: RenderStats = { parses: 0, parsedChars: 0, committedBlocks: 0, tailRenders: 0, fullRenders: 0 };
  private source = "";
  private streaming = false;
  private committed = 0;
  private tail: Node[] = [];

  /**
   * `options.codeActions`: the code blocks get Insert and Run (an assistant's answer); a block
   * gets them once complete (committed, or the message finished), never while it streams.
   */
  constructor(
    readonly el: HTMLElement,
    private readonly md: Markdown = sharedMarkdown(),
    private readonly options: DecorateOptions = {},
  ) {}

  /** Shows `text`; `streaming` says more may follow (the last block is then provisional). */
  update(text: string, streaming: boolean): void {
    if (text === this.source && streaming === this.streaming && (this.source !== "" || this.el.firstChild === null)) return;
    const appended = text.startsWith(this.source);
    this.streaming = streaming;
    if (REFERENCE_DEFINITION.test(text)) {
      this.renderWhole(text, streaming);
      return;
    }
    if (!appended || this.committed > text.length) this.reset();
    this.source = text;

    let rest = text.slice(this.committed);
    let tokens: Token[] | null = null;
    if (rest !== "") {
      tokens = this.parse(rest, {});
      const groups = groupsOf(tokens);
      // How many groups are final: all of them once the text is complete; while it streams,
      // those before the last group that starts on a complete line.
      let final = 0;
      if (!streaming) final = groups.length;
      else {
        const completeLines = countNewlines(rest);
        for (let k = groups.length - 1; k >= 1; k--) {
          if ((groups[k] as Group).line < completeLines) {
            final = k;
            break;
          }
        }
      }
      if (final > 0) {
        const html = this.md.renderer.render(groups.slice(0, final).flatMap((g) => g.tokens), this.md.options, {});
        const end = final < groups.length ? offsetOfLine(rest, (groups[final] as Group).line) : rest.length;
        this.insertCommitted(sanitizeToFragment(html, rest.slice(0, end)));
        this.stats.committedBlocks += final;
        this.committed += end;
        rest = rest.slice(end);
        tokens = null;
      }
    }
    this.renderTail(rest, streaming, tokens);
  }

  /** Forgets everything shown. */
  reset(): void {
    this.el.replaceChildren();
    this.source = "";
    this.committed = 0;
    this.tail = [];
  }

  private parse(text: string, env: RenderEnv): Token[] {
    this.stats.parses++;
    this.stats.parsedChars += text.length;
    return this.md.parse(text, env);
  }

  private insertCommitted(fragment: DocumentFragment): void {
    decorate(fragment, this.options);
    this.el.insertBefore(fragment, this.tail[0] ?? null);
  }

  /** Replaces the open tail's nodes. `parsed` are the tokens of `rest` when already parsed. */
  private renderTail(rest: string, streaming: boolean, parsed: Token[] | null): void {
    for (const node of this.tail) node.parentNode?.removeChild(node);
    this.tail = [];
    const shown = streaming ? healTail(rest) : rest;
    if (shown === "") return;
    const env: RenderEnv = { streaming };
    const tokens = parsed !== null && shown === rest ? parsed : this.parse(shown, env);
    this.showTail(this.md.renderer.render(tokens, this.md.options, env), shown, streaming);
    this.stats.tailRenders++;
  }

  private showTail(html: string, text: string, streaming: boolean): void {
    const fragment = sanitizeToFragment(html, text);
    decorate(fragment, streaming ? {} : this.options);
    this.tail = Array.from(fragment.childNodes);
    this.el.appendChild(fragment);
  }

  private renderWhole(text: string, streaming: boolean): void {
    this.reset();
    this.source = text;
    const env: RenderEnv = { streaming };
    // Nothing is committed: the next update renders the whole text again.
    this.showTail(this.md.renderer.render(this.parse(text, env), this.md.options, env), text, streaming);
    this.stats.fullRenders++;
  }
}
