/**
 * The A2UI renderer, loaded on demand as the Vega renderer is (../view/vega.ts): the first surface
 * of a page asks the kernel for static/a2ui.js over the comm (`asset` request) and imports it from
 * a Blob URL; every surface of every view in the page shares that one load.
 */
import { isObject } from "../kernel/wire";
import { type AssetChannel, moduleImporter, requestAsset } from "../view/vega";
import type { A2uiRenderer } from "./types";

const PAGE_KEY = Symbol.for("agui-widget.a2ui");
type Page = { [PAGE_KEY]?: Promise<A2uiRenderer> };

function asRenderer(module: unknown): A2uiRenderer {
  const renderer = isObject(module) && isObject(module.default) ? module.default : module;
  if (isObject(renderer) && typeof renderer.mount === "function") return renderer as unknown as A2uiRenderer;
  throw new Error("a2ui.js does not export mount()");
}

/** The renderer, loaded once per page; a failed load is forgotten, so a later surface tries again. */
export function loadA2ui(channel: AssetChannel): Promise<A2uiRenderer> {
  const page = globalThis as Page;
  const cached = page[PAGE_KEY];
  if (cached) return cached;
  const loading = requestAsset(channel, "a2ui")
    .then((source) => moduleImporter.import(source))
    .then(asRenderer);
  page[PAGE_KEY] = loading;
  loading.catch(() => {
    if (page[PAGE_KEY] === loading) delete page[PAGE_KEY];
  });
  return loading;
}

/** Forgets the page's renderer (tests start each case from a fresh page). */
export function forgetA2ui(): void {
  delete (globalThis as Page)[PAGE_KEY];
}
