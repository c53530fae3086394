/**
 * The A2UI renderer, loaded on demand as the Vega renderer is (../kernel/assets.ts): the first
 * surface of a page asks the kernel for static/a2ui.js; every surface of every view in the page
 * shares that one load.
 */
import { type AssetChannel, forgetAsset, loadAsset } from "../kernel/assets";
import { isObject } from "../kernel/wire";
import type { A2uiRenderer } from "./types";

function asRenderer(module: unknown): A2uiRenderer {
  const renderer = isObject(module) && isObject(module.default) ? module.default : module;
  if (isObject(renderer) && typeof renderer.mount === "function") return renderer as unknown as A2uiRenderer;
  throw new Error("a2ui.js does not export mount()");
}

/** The renderer, loaded once per page; a failed load is forgotten, so a later surface tries again. */
export function loadA2ui(channel: AssetChannel): Promise<A2uiRenderer> {
  return loadAsset(channel, "a2ui", asRenderer);
}

/** Forgets the page's renderer (tests start each case from a fresh page). */
export function forgetA2ui(): void {
  forgetAsset("a2ui");
}
