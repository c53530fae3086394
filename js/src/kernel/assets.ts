/**
 * Bundles the view loads on demand (agui_widget/chat/_assets.py): a renderer too large for the
 * view's own bundle (vega.js, a2ui.js) is asked of the kernel over the comm the first time a page
 * needs it (`asset` request and answer, docs/wire.md) and imported from a Blob URL. Each is kept
 * per page, so every view in the page shares one load; a failed load is forgotten, so a later use
 * tries again (after `npm run build`, say).
 */
import type { AnyModel } from "../anywidget";
import { isObject, parseKernelMessage, type ViewRequest } from "./wire";

/** The part of a view's connection an asset request needs. */
export type AssetChannel = { model: AnyModel; send(request: ViewRequest): void };
/** The assets the kernel serves. */
export type AssetName = Extract<ViewRequest, { kind: "asset" }>["name"];

/** How long the first use waits for the kernel's answer before it gives up (a closed kernel). */
const ANSWER_TIMEOUT_MS = 60_000;

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

/** Asks the kernel for an asset's source; resolves with it, rejects with the kernel's reason. */
export function requestAsset(channel: AssetChannel, name: AssetName): Promise<string> {
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

const pageKey = (name: AssetName) => Symbol.for(`agui-widget.${name}`);

/** The asset `name` as a module `check` accepts (it throws otherwise), loaded once per page. */
export function loadAsset<T>(channel: AssetChannel, name: AssetName, check: (module: unknown) => T): Promise<T> {
  const page = globalThis as Record<symbol, Promise<T> | undefined>;
  const key = pageKey(name);
  const cached = page[key];
  if (cached) return cached;
  const loading = requestAsset(channel, name)
    .then((source) => moduleImporter.import(source))
    .then(check);
  page[key] = loading;
  loading.catch(() => {
    if (page[key] === loading) delete page[key];
  });
  return loading;
}

/** Forgets the page's copy of an asset (tests start each case from a fresh page). */
export function forgetAsset(name: AssetName): void {
  delete (globalThis as Record<symbol, unknown>)[pageKey(name)];
}
