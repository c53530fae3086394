/**
 * Markdown for agent text: markdown-it (CommonMark + GFM tables and strikethrough), TeX math as
 * MathML through Temml, fenced code highlighted by ./highlight.ts.
 *
 * Safety starts here and ends in ./sanitize.ts:
 * - `html: false`: HTML in the source is text, never markup (the agent cannot write tags);
 * - markdown-it's own link check refuses `javascript:`, `vbscript:`, `file:` and `data:` (but
 *   raster images) before a link or image is made;
 * - everything this module returns is HTML that still goes through DOMPurify before it reaches
 *   the page: nothing here is trusted on its own.
 */
import { tex } from "@mdit/plugin-tex";
import MarkdownItFactory from "markdown-it";
import type { Env, MarkdownIt, Token } from "markdown-it";
import temml from "temml";
import { highlight } from "./highlight";

/** What a render knows besides the source: whether its text is still streaming. */
export interface RenderEnv extends Env {
  /** An open block of a streaming message: unfinished math is shown as its source, not as an error. */
  streaming?: boolean;
}

export type Markdown = MarkdownIt;

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);

/** Fence languages kept in a class name: a short word, nothing that could read as another class. */
const SAFE_LANGUAGE = /^[A-Za-z0-9_+#.-]{1,32}$/;

// ---------------------------------------------------------------------------------------------
// Math
// ---------------------------------------------------------------------------------------------

/** Rendered formulas by source (a streaming tail re-renders the same formula many times). */
const mathCache = new Map<string, string>();
const MATH_CACHE_SIZE = 500;
/** Longest formula we hand to Temml; a longer one is shown as source. */
const MAX_TEX_LENGTH = 8000;

function renderMath(source: string, display: boolean, env: RenderEnv | undefined): string {
  const key = `${display ? "D" : "I"}${source}`;
  let html = mathCache.get(key);
  if (html === undefined) {
    let failure = "";
    try {
      if (source.length > MAX_TEX_LENGTH) throw new Error("formula too long");
      html = temml.renderToString(source, {
        displayMode: display,
        throwOnError: true,
        // No \href, \url, \includegraphics, \class, \style: nothing from the agent becomes a
        // link, a request or a style through math.
        trust: false,
        annotate: false,
        strict: false,
        maxExpand: 300,
        maxSize: [50, 50],
      });
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
    if (html === undefined) {
      const shown = escapeHtml(display ? `$$${source}$$` : `$${source}$`);
      // An open block of a streaming message is often a formula cut in the middle: show its
      // source quietly until the rest arrives.
      if (env?.streaming) return `<span class="agui-math-pending">${shown}</span>`;
      return `<code class="agui-math-error" title="${escapeHtml(failure.split("\n")[0] ?? "")}">${shown}</code>`;
    }
    if (mathCache.size >= MATH_CACHE_SIZE) mathCache.delete(mathCache.keys().next().value as string);
    mathCache.set(key, html);
  }
  return display ? `<div class="agui-math-display">${html}</div>\n` : html;
}

// ---------------------------------------------------------------------------------------------
// The parser
// ---------------------------------------------------------------------------------------------

function codeBlock(content: string, info: string): string {
  const word = info.trim().split(/\s+/)[0] ?? "";
  const language = SAFE_LANGUAGE.test(word) ? word.toLowerCase() : "";
  const label = word.slice(0, 32);
  const body = highlight(content, language) ?? escapeHtml(content);
  const cls = language ? `hljs language-${language}` : "hljs";
  const lang = label ? ` data-lang="${escapeHtml(label)}"` : "";
  return `<div class="agui-codeblock"${lang}><pre><code class="${cls}">${body}</code></pre></div>\n`;
}

/** GFM table alignment comes as `style="text-align:…"`; styles are not let through, classes are. */
function alignToClass(tokens: Token[]): void {
  for (const token of tokens) {
    if (token.type !== "th_open" && token.type !== "td_open") continue;
    const style = token.attrGet("style");
    if (typeof style !== "string") continue;
    token.attrs = (token.attrs ?? []).filter(([name]) => name !== "style");
    const align = /text-align:\s*(left|center|right)/.exec(style)?.[1];
    if (align) token.attrJoin("class", `agui-align-${align}`);
  }
}

/** A new markdown-it set up for agent text. */
export function createMarkdown(): Markdown {
  const md = new MarkdownItFactory({ html: false, linkify: true, breaks: true, typographer: false });
  // Only links with a scheme (https://…): "setup.py" and "README.md" are file names, not sites.
  md.linkify.set({ fuzzyLink: false, fuzzyEmail: false });
  // $…$, $$…$$, \(…\) and \[…\]: the delimiters models write. A `$` before a digit or after a
  // space does not close, so "$5 and $10" stays text.
  md.use(tex, { delimiters: "all", render: (content: string, display: boolean, env: RenderEnv) => renderMath(content, display, env) });
  md.renderer.rules.fence = (tokens, idx) => {
    const token = tokens[idx] as Token;
    return codeBlock(token.content, token.info ? md.utils.unescapeAll(token.info) : "");
  };
  md.renderer.rules.code_block = (tokens, idx) => codeBlock((tokens[idx] as Token).content, "");
  md.core.ruler.push("agui_table_align", (state) => {
    alignToClass(state.tokens);
  });
  return md;
}

let shared: Markdown | null = null;

/** The markdown-it every view of the page shares (it holds no per-message state). */
export function sharedMarkdown(): Markdown {
  return (shared ??= createMarkdown());
}

/** Whole-text render (the reference the incremental renderer must match). */
export function renderMarkdown(text: string, md: Markdown = sharedMarkdown()): string {
  return md.render(text, {} as RenderEnv);
}
