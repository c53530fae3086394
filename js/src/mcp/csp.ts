/**
 * The Content-Security-Policy an MCP App runs under. The app's iframe is sandboxed without
 * `allow-same-origin` (an opaque origin: it cannot reach the page, the notebook's cookies or the
 * Jupyter server as the page), and a `<meta http-equiv>` policy, injected as the first thing of
 * the document's head, keeps it off the network: the spec's default policy, which a resource's
 * `_meta.ui.csp` widens by named https/wss origins only.
 */
import type { ResourceCsp } from "./protocol";

/** The MCP Apps spec's default policy (no network, inline script and style). */
export const DEFAULT_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'";

/** An origin a resource may name: https or wss, a host (a leading `*.` for its subdomains), a port. */
const ORIGIN = /^(?:https|wss):\/\/(?:\*\.)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*(?::\d{1,5})?$/i;

/** The origins of `list` a policy may name; anything else (a keyword, a path, `*`, a quote) is dropped. */
export function safeOrigins(list: readonly unknown[] | undefined): string[] {
  return (list ?? []).filter((d): d is string => typeof d === "string" && ORIGIN.test(d));
}

/** The policy for an app whose resource asks for `csp` (null: the default). */
export function policyFor(csp: ResourceCsp | null | undefined): string {
  const resources = safeOrigins(csp?.resourceDomains).join(" ");
  const connect = safeOrigins(csp?.connectDomains).join(" ");
  const frames = safeOrigins(csp?.frameDomains).join(" ");
  const bases = safeOrigins(csp?.baseUriDomains).join(" ");
  const more = (list: string) => (list === "" ? "" : ` ${list}`);
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline'${more(resources)}`,
    `style-src 'self' 'unsafe-inline'${more(resources)}`,
    `img-src 'self' data:${more(resources)}`,
    `media-src 'self' data:${more(resources)}`,
    ...(resources === "" ? [] : [`font-src 'self'${more(resources)}`]),
    `connect-src ${connect === "" ? "'none'" : connect}`,
    `frame-src ${frames === "" ? "'none'" : frames}`,
    `base-uri ${bases === "" ? "'self'" : bases}`,
    "form-action 'none'",
  ].join("; ");
}

/** What may come before the policy: a BOM, white space and the doctype (which closes at the first
 * `>`, quoted or not). Nothing else is skipped: a comment or a tag could hide where it ends. */
const PROLOGUE = /^\uFEFF?\s*(?:<!doctype[^>]*>)?/i;

/**
 * `html` with `policy` as a `<meta http-equiv="Content-Security-Policy">` before anything the
 * document holds but its doctype: the parser opens the head for it, so the policy holds for every
 * script, style and image the document names, even one placed before its own `<head>`.
 */
export function withPolicy(html: string, policy: string): string {
  const attribute = policy.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  const meta = `<meta http-equiv="Content-Security-Policy" content="${attribute}">`;
  const prologue = PROLOGUE.exec(html)?.[0] ?? "";
  return prologue + meta + html.slice(prologue.length);
}
