/**
 * The one door from HTML to the DOM: every string of HTML the view builds from agent, tool or
 * state content (today: rendered Markdown) becomes nodes here, through DOMPurify with an allow
 * list, and nowhere else. Text that is not Markdown (tool arguments, results, state, events) is
 * rendered by Preact as text nodes and never parsed as HTML at all.
 *
 * The allow list is what ./markdown.ts produces, plus the MathML Temml writes: no `<script>`,
 * `<style>`, `<iframe>`, `<form>`, `<object>`, `<embed>`, `<svg>` or inputs; no `on*` attributes;
 * URLs only http(s), mailto, tel or relative (and raster `data:` images); links open in a new tab
 * with `rel="noopener noreferrer"`; images load lazily without a referrer. A `style` attribute is
 * kept only on MathML elements (Temml lays out matrices and boxes with it), and only with plain
 * values: no `url(…)`, no `expression`, no escapes.
 */
import createDOMPurify from "dompurify";
import type { Config, DOMPurify } from "dompurify";

const MATHML_NS = "http://www.w3.org/1998/Math/MathML";

const HTML_TAGS = [
  "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "div", "dl", "dt", "em", "h1", "h2",
  "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s",
  "samp", "small", "span", "strong", "sub", "sup", "table", "tbody", "td", "tfoot", "th", "thead",
  "tr", "u", "ul",
];
const MATHML_TAGS = [
  "math", "menclose", "merror", "mfrac", "mi", "mmultiscripts", "mn", "mo", "mover", "mpadded",
  "mphantom", "mprescripts", "mroot", "mrow", "ms", "mspace", "msqrt", "mstyle", "msub", "msubsup",
  "msup", "mtable", "mtd", "mtext", "mtr", "munder", "munderover", "mlabeledtr",
];
const ATTRIBUTES = [
  // HTML
  "href", "src", "alt", "title", "class", "start", "colspan", "rowspan", "data-lang", "width", "height",
  // MathML presentation attributes Temml writes
  "display", "mathvariant", "notation", "fence", "form", "stretchy", "separator", "lspace", "rspace",
  "depth", "voffset", "scriptlevel", "displaystyle", "movablelimits", "accent", "accentunder",
  "columnalign", "rowalign", "columnspacing", "rowspacing", "columnlines", "rowlines", "frame",
  "framespacing", "minsize", "maxsize", "symmetric", "largeop", "linethickness", "columnspan",
  "mathcolor", "mathbackground", "mathsize", "open", "close", "separators", "align", "side",
];
/** Elements never allowed, whatever a later change to the lists above says. */
const FORBIDDEN_TAGS = [
  "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "form", "input",
  "button", "textarea", "select", "option", "link", "meta", "base", "svg", "template", "noscript",
  "portal", "annotation-xml", "foreignobject",
];

/** Only these URL shapes: http(s), mailto, tel, or no scheme at all (relative, #anchor). */
const ALLOWED_URI = /^(?:(?:https?|mailto|tel):|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i;
const RASTER_DATA_URI = /^data:image\/(?:png|gif|jpe?g|webp);/i;

const STYLE_PROPERTIES = new Set([
  "color", "background-color", "display", "padding", "padding-left", "padding-right", "padding-top",
  "padding-bottom", "margin", "margin-left", "margin-right", "margin-top", "margin-bottom", "border",
  "border-left", "border-right", "border-top", "border-bottom", "border-color", "border-style",
  "border-width", "width", "height", "min-width", "vertical-align", "text-align", "white-space",
  "font-style", "font-weight", "font-family", "font-size", "line-height", "position", "top", "left",
  "letter-spacing", "math-depth", "math-style", "math-shift",
]);
const STYLE_VALUE = /^[#\w\s.,%()+-]*$/;

/** True for a style attribute made only of known properties with plain values. */
export function isPlainStyle(style: string): boolean {
  if (/url|expression|image|var\s*\(|attr\s*\(|\\|@|\/\*/i.test(style)) return false;
  for (const declaration of style.split(";")) {
    if (!declaration.trim()) continue;
    const colon = declaration.indexOf(":");
    if (colon === -1) return false;
    const property = declaration.slice(0, colon).trim().toLowerCase();
    const value = declaration.slice(colon + 1).trim();
    if (!STYLE_PROPERTIES.has(property) || !STYLE_VALUE.test(value)) return false;
  }
  return true;
}

const CONFIG: Config = {
  ALLOWED_TAGS: [...HTML_TAGS, ...MATHML_TAGS],
  ALLOWED_ATTR: ATTRIBUTES,
  FORBID_TAGS: FORBIDDEN_TAGS,
  FORBID_ATTR: ["style", "srcset", "action", "formaction", "xlink:href", "xmlns:xlink", "id", "name"],
  ALLOWED_URI_REGEXP: ALLOWED_URI,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  SAFE_FOR_TEMPLATES: false,
  WHOLE_DOCUMENT: false,
  RETURN_DOM_FRAGMENT: true,
};

let purifier: DOMPurify | null = null;
let purifierWindow: unknown = null;

function getPurifier(): DOMPurify | null {
  const win = (globalThis as { window?: unknown }).window;
  if (!win) return null;
  if (purifier && purifierWindow === win) return purifier;
  const instance = createDOMPurify(win as Parameters<typeof createDOMPurify>[0]);
  if (!instance.isSupported) return null;
  instance.addHook("uponSanitizeAttribute", (node, data) => {
    if (data.attrName !== "style") return;
    // Kept on MathML only, and only when plain; everywhere else FORBID_ATTR removes it.
    if ((node as Element).namespaceURI === MATHML_NS && isPlainStyle(data.attrValue)) data.forceKeepAttr = true;
    else data.keepAttr = false;
  });
  instance.addHook("afterSanitizeAttributes", (node) => {
    const el = node as Element;
    const tag = el.nodeName?.toLowerCase?.();
    if (tag === "a" && el.hasAttribute("href")) {
      el.setAttribute("target", "_blank");
      el.setAttribute("rel", "noopener noreferrer");
    } else if (tag === "img") {
      const src = el.getAttribute("src") ?? "";
      if (/^data:/i.test(src) && !RASTER_DATA_URI.test(src)) el.removeAttribute("src");
      el.setAttribute("loading", "lazy");
      el.setAttribute("decoding", "async");
      el.setAttribute("referrerpolicy", "no-referrer");
    }
  });
  purifier = instance;
  purifierWindow = win;
  return purifier;
}

/**
 * Sanitised nodes for `html`. Where DOMPurify cannot run (no DOM), nothing of the HTML is used:
 * the fragment holds `fallbackText` as plain text.
 */
export function sanitizeToFragment(html: string, fallbackText: string): DocumentFragment {
  const purify = getPurifier();
  if (!purify) {
    const fragment = document.createDocumentFragment();
    fragment.appendChild(document.createTextNode(fallbackText));
    return fragment;
  }
  return purify.sanitize(html, CONFIG) as unknown as DocumentFragment;
}

/** Sanitised HTML as a string (for tests and for comparing renders). */
export function sanitizeToHtml(html: string): string {
  const holder = document.createElement("div");
  holder.appendChild(sanitizeToFragment(html, ""));
  return holder.innerHTML;
}

const SVG_CONFIG: Config = {
  USE_PROFILES: { svg: true, svgFilters: true },
  FORBID_TAGS: ["script", "style", "foreignobject", "a", "image", "use", "animate", "set", "animatemotion", "animatetransform"],
  FORBID_ATTR: ["href", "xlink:href", "style"],
  ALLOW_DATA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  WHOLE_DOCUMENT: false,
};

/**
 * An SVG image (a bundle's `image/svg+xml`) without scripts, handlers, links, styles, foreign
 * content or animation, as text. The view shows it as an `<img>` data URL, where a browser runs
 * no script and loads nothing anyway; this is the second fence. "" where DOMPurify cannot run.
 */
export function sanitizeSvg(svg: string): string {
  const purify = getPurifier();
  if (!purify) return "";
  const clean = purify.sanitize(svg, SVG_CONFIG) as unknown as string;
  return /^\s*<svg[\s>]/i.test(clean) ? clean : "";
}
