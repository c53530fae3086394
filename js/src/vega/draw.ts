/**
 * The chart renderer, built on its own into ../agui_widget/static/vega.js (vega, vega-lite and
 * vega-embed are several times the rest of the view). The view fetches it from the kernel over the
 * comm the first time it draws a Vega-Lite bundle and imports it from a Blob URL (view/vega.ts):
 * nothing is loaded from the network, and specs may not load anything either.
 */
import { loader as vegaLoader } from "vega";
import embed, { type EmbedOptions, type VisualizationSpec } from "vega-embed";
import { expressionInterpreter } from "vega-interpreter";
import type { DrawOptions, Drawn } from "../view/vega";

/** A vega loader that refuses every URL (data, images, links): a chart in the chat draws only
 * what its spec carries inline, so it works offline and never calls a server. */
function inlineOnlyLoader(refused: string[]) {
  const refuse = async (uri: unknown): Promise<never> => {
    const text = String(uri).slice(0, 200);
    refused.push(text);
    throw new Error(`agui-widget: the chat does not load external data (${text}); put the data in the spec`);
  };
  return { ...vegaLoader(), load: refuse, sanitize: refuse, http: refuse, file: refuse };
}

/**
 * Draws a Vega-Lite spec into `el` as SVG, without vega-embed's export menu. Expressions in the
 * spec (an agent may have written it) are interpreted, never compiled to JavaScript, which also
 * keeps charts working under a Content-Security-Policy without 'unsafe-eval'.
 */
export async function draw(el: HTMLElement, spec: unknown, options: DrawOptions): Promise<Drawn> {
  const refused: string[] = [];
  const embedOptions: EmbedOptions = {
    mode: "vega-lite",
    renderer: "svg",
    actions: false,
    defaultStyle: false,
    ast: true,
    expr: expressionInterpreter,
    loader: inlineOnlyLoader(refused) as unknown as EmbedOptions["loader"],
    ...(options.dark ? { theme: "dark" as const } : {}),
  };
  // The bundle's MIME type says Vega-Lite; older schema versions (Altair 5 writes v5) draw the
  // same, so their `$schema` is dropped rather than warned about on every chart.
  const { $schema: _schema, ...rest } = spec as Record<string, unknown>;
  const result = await embed(el, rest as VisualizationSpec, embedOptions);
  return { finalize: () => result.finalize(), refused };
}
