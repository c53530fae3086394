/**
 * Syntax highlighting for fenced code: highlight.js core with a handful of languages (the ones
 * agents write most), registered once. No auto-detection: guessing among languages costs a full
 * parse per language and is re-run on every streamed token of an open block; a fence without a
 * known language is shown plain.
 *
 * The output is HTML (`<span class="hljs-…">`); it goes through the sanitiser with the rest of
 * the message (./sanitize.ts).
 */
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";

let registered = false;

function register(): void {
  if (registered) return;
  registered = true;
  const languages = { bash, css, javascript, json, markdown, python, sql, typescript, xml };
  for (const [name, language] of Object.entries(languages)) hljs.registerLanguage(name, language);
  // Names agents use that the grammars do not list as aliases.
  hljs.registerAliases(["shell", "console", "shellsession", "sh"], { languageName: "bash" });
  hljs.registerAliases(["py3", "python3", "ipython"], { languageName: "python" });
  hljs.registerAliases(["node"], { languageName: "javascript" });
}


/** Highlighted HTML for `code` in `language`, or null when the language is unknown. */
export function highlight(code: string, info: string): string | null {
  register();
  const name = info.trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  if (!name || !hljs.getLanguage(name)) return null;
  try {
    return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
  } catch {
    return null;
  }
}
