/**
 * The A2UI surface renderer, built on its own into ../agui_widget/static/a2ui.js (@a2ui/lit and
 * @a2ui/web_core: about as large as the rest of the view). The view fetches it from the kernel
 * over the comm the first time it shows an A2UI surface (./load.ts) and imports it from a Blob URL.
 *
 * A surface draws only the components of A2UI's basic catalogue, with A2UI's own Lit renderer.
 * Nothing in it runs script: the renderer is given no Markdown renderer, so a Text's content is
 * text (Lit escapes it), and the operations are checked first (./check.ts): an unknown component,
 * or a media URL that is not http(s) or an image's data URL, refuses the whole surface.
 */
import { Catalog, MessageProcessor, injectBasicCatalogStyles, type A2uiClientAction, type A2uiMessage } from "@a2ui/web_core/v0_9";
import { basicCatalog } from "@a2ui/lit/v0_9"; // registers <a2ui-surface>
import { checkOperations } from "./check";
import type { A2uiRenderer, MountOptions, Mounted, UserAction } from "./types";

/** The id the A2UI middleware gives the basic catalogue when the agent names none (the spec's
 * earlier URL); the same components answer to it. */
const MIDDLEWARE_BASIC_CATALOG = "https://a2ui.org/specification/v0_9/basic_catalog.json";
const catalogs = [
  basicCatalog,
  new Catalog(MIDDLEWARE_BASIC_CATALOG, [...basicCatalog.components.values()], [...basicCatalog.functions.values()]),
];

/** The chat's theme as A2UI's CSS variables (they reach into the components' shadow roots). */
const THEME: Record<string, string> = {
  "--a2ui-color-background": "var(--agui-bg, Canvas)",
  "--a2ui-color-on-background": "var(--agui-fg, CanvasText)",
  "--a2ui-color-surface": "var(--agui-bg-alt, Canvas)",
  "--a2ui-color-on-surface": "var(--agui-fg, CanvasText)",
  "--a2ui-color-primary": "var(--agui-accent-color, #1976d2)",
  "--a2ui-color-on-primary": "var(--agui-on-accent, #fff)",
  "--a2ui-color-border": "var(--agui-border, #b9b9b9)",
  "--a2ui-border": "1px solid var(--agui-border, #b9b9b9)",
  "--a2ui-border-radius": "var(--agui-radius, 0.5em)",
  "--a2ui-color-input": "var(--agui-bg, Canvas)",
  "--a2ui-color-on-input": "var(--agui-fg, CanvasText)",
  "--a2ui-font-family": "var(--agui-font, inherit)",
  "--a2ui-font-family-title": "var(--agui-font, inherit)",
  "--a2ui-font-family-monospace": "var(--agui-mono, monospace)",
  "--a2ui-font-size": "var(--agui-font-size, 14px)",
};

/**
 * A2UI's default stylesheet is adopted by the whole document and sets `color-scheme: light dark`
 * on `:root` (at no specificity), which would turn the notebook's own form controls and scrollbars
 * dark under a dark system setting in a light notebook. That one declaration is undone by a sheet
 * of ours adopted after it, at the same specificity; a surface sets its own scheme (applyTheme).
 */
const pageScheme = typeof CSSStyleSheet === "function" && "replaceSync" in CSSStyleSheet.prototype ? new CSSStyleSheet() : null;
pageScheme?.replaceSync(":where(:root) { color-scheme: normal; }");

function keepThePageScheme(doc: Document): void {
  if (!pageScheme || !Array.isArray(doc.adoptedStyleSheets)) return;
  injectBasicCatalogStyles(); // A2UI's sheet first (it adds it once), then ours after it
  const sheets = doc.adoptedStyleSheets.filter((sheet) => sheet !== pageScheme);
  doc.adoptedStyleSheets = [...sheets, pageScheme];
}

function applyTheme(el: HTMLElement, dark: boolean): void {
  for (const [name, value] of Object.entries(THEME)) el.style.setProperty(name, value);
  el.style.colorScheme = dark ? "dark" : "light";
  el.classList.toggle("a2ui-dark", dark);
  el.classList.toggle("a2ui-light", !dark);
}

/** The action as the kernel takes it (`a2ui_action`): A2UI's client action, keys in its order. */
function asUserAction(action: A2uiClientAction): UserAction {
  return {
    name: action.name,
    surfaceId: action.surfaceId,
    sourceComponentId: action.sourceComponentId,
    timestamp: action.timestamp,
    context: action.context ?? {},
  };
}

/**
 * Draws the surfaces `operations` create into `el`. Throws (and draws nothing) when the operations
 * are malformed, name an unknown surface or component, or carry an unsafe URL.
 */
export function mount(el: HTMLElement, operations: unknown, options: MountOptions): Mounted {
  const checked = checkOperations(operations, (name) => basicCatalog.components.has(name));
  const processor = new MessageProcessor(catalogs, (action) => options.onAction(asUserAction(action)));
  const drawn: HTMLElement[] = [];
  const created = processor.onSurfaceCreated((surface) => {
    const surfaceEl = el.ownerDocument.createElement("a2ui-surface") as HTMLElement & { surface: unknown };
    surfaceEl.surface = surface;
    surfaceEl.setAttribute("data-surface-id", surface.id);
    drawn.push(surfaceEl);
  });
  try {
    processor.processMessages(checked as unknown as A2uiMessage[]);
  } finally {
    created.unsubscribe();
  }
  if (drawn.length === 0) throw new Error("the operations create no surface (createSurface is missing)");
  keepThePageScheme(el.ownerDocument);
  applyTheme(el, options.dark);
  el.replaceChildren(...drawn);
  return {
    surfaceIds: drawn.map((d) => d.getAttribute("data-surface-id") ?? ""),
    dispose() {
      el.replaceChildren();
      for (const id of [...processor.model.surfacesMap.keys()]) processor.model.deleteSurface(id);
    },
  };
}

const renderer: A2uiRenderer = { mount };
export default renderer;
