/**
 * A MIME bundle (what a Python renderer or a rich tool result produced), shown safely.
 *
 * One representation is shown, the first of BUNDLE_PREFERENCE the bundle has: images as `<img>`
 * (PNG/JPEG from base64; SVG sanitised, then as an image data URL, where scripts never run), HTML through the
 * same DOMPurify allow list as Markdown (no scripts, handlers, styles or forms), Markdown through
 * the Markdown pipeline, JSON as coloured text, plain text as preformatted text. Vega-Lite specs
 * are drawn as SVG by a renderer the view loads from the kernel on first use (./vega.ts); until it
 * is there, or when it cannot be, the bundle's PNG/SVG is shown, else a placeholder or the spec.
 */
import { useContext, useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { sanitizeSvg, sanitizeToFragment } from "../markdown/sanitize";
import { widgetMark } from "../mirror/mirror";
import { isObject, type MimeBundle } from "../kernel/wire";
import { ViewCtx } from "./context";
import { FoldedText } from "./Json";
import { LiveWidget, staticParts, widgetModelId } from "./LiveWidget";
import { Markdown } from "./Markdown";
import { isDarkTheme, loadVega } from "./vega";

const VEGALITE_TYPES = [
  "application/vnd.vegalite.v6+json",
  "application/vnd.vegalite.v5+json",
  "application/vnd.vegalite.v4+json",
] as const;
type VegaLiteType = (typeof VEGALITE_TYPES)[number];
const IMAGE_TYPES = ["image/png", "image/jpeg", "image/svg+xml"] as const;
type ImageType = (typeof IMAGE_TYPES)[number];

export const BUNDLE_PREFERENCE = [
  // first: a chart's PNG/SVG is its fallback, and its HTML version needs scripts the sanitiser removes
  ...VEGALITE_TYPES,
  ...IMAGE_TYPES,
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
    if (type.startsWith("application/vnd.vegalite") && !isObject(value)) continue;
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
  // a widget (a slider, a FigureWidget, an anywidget) shown live, its static parts until then
  const modelId = widgetModelId(bundle);
  if (modelId === null) return <StaticBundle bundle={bundle} />;
  return (
    <LiveWidget modelId={modelId}>
      <StaticBundle bundle={staticParts(bundle)} />
    </LiveWidget>
  );
}

function StaticBundle({ bundle }: { bundle: MimeBundle }) {
  const type = chosenType(bundle);
  switch (type) {
    case "image/png":
    case "image/jpeg":
    case "image/svg+xml":
      return (
        <div class="agui-bundle" data-mime={type}>
          <BundleImage bundle={bundle} type={type} />
        </div>
      );
    case "application/vnd.vegalite.v6+json":
    case "application/vnd.vegalite.v5+json":
    case "application/vnd.vegalite.v4+json":
      return <VegaLiteChart bundle={bundle} type={type} />;
    case "text/html":
      return <SanitizedHtml html={bundle[type] as string} fallback={bundleText(bundle)} />;
    case "text/markdown":
      return (
        <div class="agui-bundle" data-mime={type}>
          <Markdown text={bundle[type] as string} />
        </div>
      );
    case "application/json":
      return (
        <div class="agui-bundle" data-mime={type}>
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

/** The image of a bundle (PNG/JPEG from base64; SVG sanitised, then as an image data URL). */
function BundleImage({ bundle, type }: { bundle: MimeBundle; type: ImageType }) {
  const alt = bundleText(bundle).slice(0, 300) || "an image";
  const source = bundle[type] as string;
  // Sanitising a large SVG is not free: once per image, not on every render of the row around it.
  const svg = useMemo(() => (type === "image/svg+xml" ? sanitizeSvg(source) : ""), [type, source]);
  if (type === "image/svg+xml") {
    return svg ? (
      <img class="agui-bundle-img" alt={alt} src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`} />
    ) : (
      <div class="agui-bundle-note">(an SVG image that could not be shown safely)</div>
    );
  }
  return <img class="agui-bundle-img" alt={alt} src={`data:${type};base64,${source.replace(/\s+/g, "")}`} />;
}

/** The image a chart's bundle carries besides its spec, if any. */
export function chartFallback(bundle: MimeBundle): ImageType | null {
  return IMAGE_TYPES.find((type) => chosenType({ [type]: bundle[type] }) === type) ?? null;
}

type ChartState = { kind: "loading" } | { kind: "drawn"; refused: string[] } | { kind: "failed"; why: string };

/**
 * A Vega-Lite spec drawn as SVG. While the renderer loads, and if it cannot, the bundle's image
 * stands in (else "Loading chart…", then the spec as JSON), with a note saying why.
 */
function VegaLiteChart({ bundle, type }: { bundle: MimeBundle; type: VegaLiteType }) {
  const view = useContext(ViewCtx);
  const chartRef = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<ChartState>({ kind: "loading" });
  const spec = bundle[type];
  useEffect(() => {
    const el = chartRef.current;
    if (!el) return;
    if (!view) {
      setState({ kind: "failed", why: "this view has no kernel to load the chart renderer from" });
      return;
    }
    let live = true;
    let finalize: (() => void) | null = null;
    setState({ kind: "loading" });
    loadVega(view.conn)
      .then((vega) => (live ? vega.draw(el, spec, { dark: isDarkTheme(el) }) : null))
      .then((drawn) => {
        if (drawn === null) return;
        if (!live) return drawn.finalize();
        finalize = () => drawn.finalize();
        setState({ kind: "drawn", refused: drawn.refused });
      })
      .catch((error: unknown) => {
        if (!live) return;
        el.replaceChildren();
        setState({ kind: "failed", why: error instanceof Error ? error.message : String(error) });
      });
    return () => {
      live = false;
      finalize?.();
      el.replaceChildren();
    };
  }, [spec, view]);
  const image = chartFallback(bundle);
  return (
    <div class="agui-bundle agui-vega" data-mime={type} data-chart={state.kind}>
      <div ref={chartRef} class="agui-vega-chart" />
      {state.kind !== "drawn" &&
        (image !== null ? (
          <BundleImage bundle={bundle} type={image} />
        ) : state.kind === "loading" ? (
          <div class="agui-bundle-note agui-vega-loading">Loading chart…</div>
        ) : (
          <FoldedText text={JSON.stringify(spec, null, 2) ?? "null"} json />
        ))}
      {state.kind === "failed" && <div class="agui-bundle-note agui-vega-error">Chart not drawn: {state.why}</div>}
      {state.kind === "drawn" && state.refused.length > 0 && (
        <div class="agui-bundle-note">
          External data was not loaded ({state.refused[0]}): a chart in the chat draws only the data inside its spec.
        </div>
      )}
    </div>
  );
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
  const display = widgetMark(message, "display");
  return isObject(display) ? display : null;
}
