/**
 * A MIME bundle (what a Python renderer or a rich tool result produced), shown safely.
 *
 * One representation is shown, the first of BUNDLE_PREFERENCE the bundle has: images as `<img>`
 * (PNG/JPEG from base64; SVG sanitised, then as an image data URL, where scripts never run), HTML through the
 * same DOMPurify allow list as Markdown (no scripts, handlers, styles or forms), Markdown through
 * the Markdown pipeline, JSON as coloured text, plain text as preformatted text. Vega-Lite specs
 * are not drawn (no renderer fits the bundle budget): their PNG/SVG fallback is shown when the
 * bundle has one, else the spec as JSON.
 */
import { useLayoutEffect, useRef } from "preact/hooks";
import { sanitizeSvg, sanitizeToFragment } from "../markdown/sanitize";
import type { MimeBundle } from "../wire";
import { FoldedText } from "./Json";
import { Markdown } from "./Markdown";

export const BUNDLE_PREFERENCE = [
  "image/png",
  "image/jpeg",
  "image/svg+xml",
  // before HTML: a chart's HTML version needs scripts, which the sanitiser removes
  "application/vnd.vegalite.v6+json",
  "application/vnd.vegalite.v5+json",
  "application/vnd.vegalite.v4+json",
  "text/html",
  "text/markdown",
  "application/json",
  "text/plain",
] as const;

const BASE64 = /^[A-Za-z0-9+/=\s]+$/;

/** The type of a bundle the view shows, or null when it has none it knows. */
export function chosenType(bundle: MimeBundle): (typeof BUNDLE_PREFERENCE)[number] | null {
  for (const type of BUNDLE_PREFERENCE) {
    const value = bundle[type];
    if (value === undefined || value === null) continue;
    if (type.startsWith("image/") || type.startsWith("text/")) {
      if (typeof value !== "string") continue;
      if ((type === "image/png" || type === "image/jpeg") && !BASE64.test(value)) continue;
    }
    return type;
  }
  return null;
}

/** The bundle's text version (what a copy or a screen reader gets). */
export function bundleText(bundle: MimeBundle): string {
  for (const type of ["text/markdown", "text/plain"]) {
    const value = bundle[type];
    if (typeof value === "string" && value !== "") return value;
  }
  return "";
}

export function Bundle({ bundle }: { bundle: MimeBundle }) {
  const type = chosenType(bundle);
  const alt = bundleText(bundle).slice(0, 300) || "an image";
  switch (type) {
    case "image/png":
    case "image/jpeg":
      return (
        <div class="agui-bundle" data-mime={type}>
          <img class="agui-bundle-img" alt={alt} src={`data:${type};base64,${(bundle[type] as string).replace(/\s+/g, "")}`} />
        </div>
      );
    case "image/svg+xml": {
      const svg = sanitizeSvg(bundle[type] as string);
      return (
        <div class="agui-bundle" data-mime={type}>
          {svg ? (
            <img class="agui-bundle-img" alt={alt} src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`} />
          ) : (
            <div class="agui-bundle-note">(an SVG image that could not be shown safely)</div>
          )}
        </div>
      );
    }
    case "text/html":
      return <SanitizedHtml html={bundle[type] as string} fallback={bundleText(bundle)} />;
    case "text/markdown":
      return (
        <div class="agui-bundle" data-mime={type}>
          <Markdown text={bundle[type] as string} />
        </div>
      );
    case "application/json":
    case "application/vnd.vegalite.v6+json":
    case "application/vnd.vegalite.v5+json":
    case "application/vnd.vegalite.v4+json":
      return (
        <div class="agui-bundle" data-mime={type}>
          {type !== "application/json" && <div class="agui-bundle-note">Vega-Lite chart (shown as its spec)</div>}
          <FoldedText text={JSON.stringify(bundle[type], null, 2) ?? "null"} json />
        </div>
      );
    case "text/plain":
      return (
        <div class="agui-bundle" data-mime={type}>
          <FoldedText text={bundle[type] as string} />
        </div>
      );
    default:
      return <div class="agui-bundle agui-bundle-empty">(nothing this view can show)</div>;
  }
}

/** HTML through the sanitiser into an element Preact does not manage. */
function SanitizedHtml({ html, fallback }: { html: string; fallback: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.replaceChildren(sanitizeToFragment(html, fallback));
  }, [html, fallback]);
  return <div ref={ref} class="agui-bundle agui-bundle-html" data-mime="text/html" />;
}

/** The display bundle of a message, from `metadata.agui_widget.display` (rich tool results). */
export function displayOf(message: unknown): MimeBundle | null {
  const meta = (message as { metadata?: { agui_widget?: { display?: unknown } } } | undefined)?.metadata;
  const display = meta?.agui_widget?.display;
  return typeof display === "object" && display !== null && !Array.isArray(display) ? (display as MimeBundle) : null;
}
