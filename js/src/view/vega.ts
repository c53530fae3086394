/**
 * Vega-Lite charts, loaded on demand. The renderer (vega, vega-lite, vega-embed: ../vega/draw.ts,
 * built into static/vega.js) is not part of the view's bundle: the first chart of a page asks the
 * kernel for it over the comm (`asset` request and answer, docs/wire.md) and imports it from a
 * Blob URL. The module is kept per page, so every chart of every view in the page shares one load.
 */
import type { AnyModel } from "../anywidget";
import { isObject, parseKernelMessage, type ViewRequest } from "../kernel/wire";

export type DrawOptions = { dark: boolean };
/** A drawn chart: `finalize` releases it; `refused` lists the URLs the spec asked for and did not get. */
export type Drawn = { finalize(): void; refused: string[] };
/** What static/vega.js exports. */
export type VegaModule = { draw(el: HTMLElement, spec: unknown, options: DrawOptions): Promise<Drawn> };

/** The part of a view's connection an asset request needs. */
export type AssetChannel = { model: AnyModel; send(request: ViewRequest): void };

/** How long the first chart waits for the kernel's answer before it gives up (a closed kernel). */
const ANSWER_TIMEOUT_MS = 60_000;
const PAGE_KEY = Symbol.for("agui-widget.vega");

async function importFromBlob(source: string): Promise<unknown> {
  const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
  try {
    return await import(/* webpackIgnore: true */ url);
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** How fetched source becomes a module. Replaceable because jsdom cannot import a Blob URL. */
export const moduleImporter: { import: (source: string) => Promise<unknown> } = { import: importFromBlob };

type Page = { [PAGE_KEY]?: Promise<VegaModule> };

/** Asks the kernel for an asset's source; resolves with it, rejects with the kernel's reason. */
export function requestAsset(channel: AssetChannel, name: Extract<ViewRequest, { kind: "asset" }>["name"]): Promise<string> {
  return new Promise((resolve, reject) => {
    const finish = () => {
      clearTimeout(timer);
      channel.model.off("msg:custom", onMessage);
    };
    const onMessage = (raw: unknown) => {
      if (!isObject(raw) || raw.kind !== "asset" || raw.name !== name) return;
      const msg = parseKernelMessage(raw);
      if (msg === null || msg.kind !== "asset") return;
      finish();
      if (typeof msg.source === "string") resolve(msg.source);
      else reject(new Error(msg.error || `the kernel has no ${name} asset`));
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error("the kernel did not answer"));
    }, ANSWER_TIMEOUT_MS);
    channel.model.on("msg:custom", onMessage);
    channel.send({ kind: "asset", name });
  });
}

function asVegaModule(module: unknown): VegaModule {
  if (isObject(module) && typeof module.draw === "function") return module as unknown as VegaModule;
  throw new Error("vega.js does not export draw()");
}

/**
 * The chart renderer, loaded once per page. A failed load is forgotten, so a later chart tries
 * again (after `npm run build`, say) while the charts that saw it fail keep their fallback.
 */
export function loadVega(channel: AssetChannel): Promise<VegaModule> {
  const page = globalThis as Page;
  const cached = page[PAGE_KEY];
  if (cached) return cached;
  const loading = requestAsset(channel, "vega")
    .then((source) => moduleImporter.import(source))
    .then(asVegaModule);
  page[PAGE_KEY] = loading;
  loading.catch(() => {
    if (page[PAGE_KEY] === loading) delete page[PAGE_KEY];
  });
  return loading;
}

/** Forgets the page's renderer (tests start each case from a fresh page). */
export function forgetVega(): void {
  delete (globalThis as Page)[PAGE_KEY];
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
