/**
 * Vega-Lite charts, loaded on demand. The renderer (vega, vega-lite, vega-embed: ../vega/draw.ts,
 * built into static/vega.js) is not part of the view's bundle: the first chart of a page asks the
 * kernel for it over the comm (`asset` request and answer, docs/wire.md) and imports it from a
 * Blob URL. The module is kept per page, so every chart of every view in the page shares one load.
 */
import { type AssetChannel, forgetAsset, loadAsset } from "../kernel/assets";
import { isObject } from "../kernel/wire";

export type DrawOptions = { dark: boolean };
/** A drawn chart: `finalize` releases it; `refused` lists the URLs the spec asked for and did not get. */
export type Drawn = { finalize(): void; refused: string[] };
/** What static/vega.js exports. */
export type VegaModule = { draw(el: HTMLElement, spec: unknown, options: DrawOptions): Promise<Drawn> };

function asVegaModule(module: unknown): VegaModule {
  if (isObject(module) && typeof module.draw === "function") return module as unknown as VegaModule;
  throw new Error("vega.js does not export draw()");
}

/** The chart renderer, loaded once per page (../kernel/assets.ts). */
export function loadVega(channel: AssetChannel): Promise<VegaModule> {
  return loadAsset(channel, "vega", asVegaModule);
}

/** Forgets the page's renderer (tests start each case from a fresh page). */
export function forgetVega(): void {
  forgetAsset("vega");
}

/**
 * True when the chat is drawn on a dark background: JupyterLab says so on <body>
 * (`data-jp-theme-light`); elsewhere the text colour the chat inherits is light.
 */
export function isDarkTheme(el: Element): boolean {
  const light = el.ownerDocument.body?.getAttribute("data-jp-theme-light");
  if (light === "false") return true;
  if (light === "true") return false;
  const view = el.ownerDocument.defaultView;
  const channels = view?.getComputedStyle(el).color.match(/[\d.]+/g)?.map(Number);
  if (!channels || channels.length < 3) return false;
  const [r, g, b] = channels as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 128;
}
