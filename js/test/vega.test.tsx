/**
 * Vega-Lite charts in the view: the renderer is asked of the kernel once per page, stands in with
 * the bundle's image (or a placeholder) while it loads, and says why when it cannot draw.
 * jsdom cannot import a Blob URL nor run vega, so a stand-in module takes the fetched source's place;
 * the real renderer is drawn in tests/browser/test_vega.py.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { doc, FakeModel, until, untilCount, untilSent } from "./dom";
import { connected } from "./mount";
import { parseKernelMessage } from "../src/kernel/wire";
import { chosenType } from "../src/view/Bundle";
import { moduleImporter } from "../src/kernel/assets";
import { type DrawOptions, forgetVega } from "../src/view/vega";

const charts = (...els: HTMLElement[]) => els.flatMap((el) => [...el.querySelectorAll(".agui-vega")]);
/** Whether every chart in `els` is in `state` (data-chart: drawn, failed). */
const allCharts = (state: string, ...els: HTMLElement[]) => charts(...els).every((chart) => chart.getAttribute("data-chart") === state);

// A 1x1 transparent PNG.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
const SPEC = { mark: "bar", data: { values: [{ a: "x", b: 3 }] }, encoding: { x: { field: "a" }, y: { field: "b" } } };
const VL = "application/vnd.vegalite.v5+json";
const turn = [{ id: "u1", role: "user", content: "chart please" }];
const render = (key: string, bundle: Record<string, unknown>) => ({ kind: "render", key, bundle, error: null, after: null });

type Call = { spec: unknown; options: DrawOptions; el: HTMLElement };

/** A stand-in for static/vega.js: records its calls and draws an <svg> as vega-embed would. */
function fakeRenderer(refused: string[] = []) {
  const calls: Call[] = [];
  const imported: string[] = [];
  let finalized = 0;
  moduleImporter.import = async (source: string) => {
    imported.push(source);
    return {
      draw: async (el: HTMLElement, spec: unknown, options: DrawOptions) => {
        calls.push({ spec, options, el });
        el.innerHTML = `<svg class="marks" role="graphics-document"></svg>`;
        return { finalize: () => void finalized++, refused };
      },
    };
  };
  return { calls, imported, finalized: () => finalized };
}

const answer = (model: FakeModel, extra: Record<string, unknown>) =>
  model.kernel({ kind: "asset", name: "vega", source: null, error: null, ...extra });

const realImporter = moduleImporter.import;
beforeEach(() => forgetVega());
afterEach(() => {
  moduleImporter.import = realImporter;
  forgetVega();
  doc.body.removeAttribute("data-jp-theme-light");
});

describe("Vega-Lite charts", () => {
  it("are chosen before their own image, and only when the spec is an object", () => {
    assert.equal(chosenType({ [VL]: SPEC, "image/png": PNG, "text/html": "<div>" }), VL);
    assert.equal(chosenType({ [VL]: "not a spec", "image/png": PNG }), "image/png");
  });

  it("ask the kernel for the renderer once per page, show the image or a placeholder meanwhile, then draw", async () => {
    const fake = fakeRenderer();
    const first = await connected(turn);
    const second = await connected(turn); // another chat in the same page
    first.model.kernel(render("state:0", { [VL]: SPEC, "image/png": PNG, "text/plain": "bars" }));
    first.model.kernel(render("state:1", { [VL]: SPEC }));
    second.model.kernel(render("state:0", { "application/vnd.vegalite.v6+json": SPEC }));
    // The request goes out after the charts mount (an effect); every chart has mounted once all
    // three show their stand-in and the view's effects have run.
    await until(
      () => first.model.sentOf("asset").length + second.model.sentOf("asset").length > 0 && charts(first.el, second.el).length === 3,
      "the three charts shown and the renderer asked for",
    );

    const requests = [...first.model.sentOf("asset"), ...second.model.sentOf("asset")];
    assert.deepEqual(requests, [{ kind: "asset", name: "vega" }], "one request for all charts of the page");
    const [withImage, withoutImage] = [...first.el.querySelectorAll(".agui-vega")];
    assert.equal(withImage?.querySelector("img")?.getAttribute("src"), `data:image/png;base64,${PNG}`);
    assert.equal(withoutImage?.querySelector(".agui-vega-loading")?.textContent, "Loading chart…");
    assert.equal(second.el.querySelector(".agui-vega-loading")?.textContent, "Loading chart…");

    const asker = first.model.sentOf("asset").length ? first.model : second.model;
    answer(asker, { source: "export async function draw() {}" });
    await until(() => fake.calls.length === 3 && allCharts("drawn", first.el, second.el), "the three charts drawn");

    assert.deepEqual(fake.imported, ["export async function draw() {}"], "the source is imported once");
    assert.equal(fake.calls.length, 3);
    assert.deepEqual(fake.calls[0]?.spec, SPEC);
    assert.equal(fake.calls[0]?.options.dark, false);
    for (const view of [first, second]) {
      for (const chart of view.el.querySelectorAll(".agui-vega")) {
        assert.equal(chart.getAttribute("data-chart"), "drawn");
        assert.ok(chart.querySelector(".agui-vega-chart svg[role=graphics-document]"), "the chart is drawn");
        assert.equal(chart.querySelector("img, .agui-vega-loading, .agui-bundle-note"), null, "the stand-in is gone");
      }
    }

    // A chart shown later reuses the loaded renderer without asking again.
    second.model.kernel(render("state:1", { [VL]: SPEC }));
    await until(() => fake.calls.length === 4, "the later chart drawn");
    assert.equal(first.model.sentOf("asset").length + second.model.sentOf("asset").length, 1);

    first.cleanup();
    await until(() => fake.finalized() >= 2, "unmounting a view releases its charts");
    assert.equal(fake.finalized(), 2, "the other view's chart is kept");
  });

  it("keep the image, or show the spec, with a note when the kernel cannot send the renderer", async () => {
    fakeRenderer();
    const { model, el } = await connected(turn);
    model.kernel(render("state:0", { [VL]: SPEC, "image/png": PNG }));
    model.kernel(render("state:1", { [VL]: SPEC }));
    await until(() => model.sentOf("asset").length === 1 && charts(el).length === 2, "both charts shown and the renderer asked for");
    answer(model, { error: "vega.js is missing from the agui_widget package" });
    await until(() => allCharts("failed", el), "both charts failed");

    const [withImage, withoutImage] = [...el.querySelectorAll(".agui-vega")];
    for (const chart of [withImage, withoutImage]) {
      assert.equal(chart?.getAttribute("data-chart"), "failed");
      assert.equal(chart?.querySelector(".agui-vega-error")?.textContent, "Chart not drawn: vega.js is missing from the agui_widget package");
      assert.equal(chart?.querySelector(".agui-vega-chart")?.childElementCount, 0);
    }
    assert.ok(withImage?.querySelector("img"), "the image stays");
    assert.match(withoutImage?.textContent ?? "", /"mark": "bar"/, "without an image the spec is shown");

    // A failure is not kept: the next chart asks again.
    model.kernel(render("state:2", { [VL]: SPEC }));
    await until(() => model.sentOf("asset").length === 2, "the next chart asks again");
    answer(model, { error: "still missing" });
    await untilCount(el, ".agui-vega-error", 3, "the third chart's failure said");
  });

  it("say so when the fetched file is not the renderer", async () => {
    moduleImporter.import = async () => ({ somethingElse: 1 });
    const { model, el } = await connected(turn);
    model.kernel(render("state:0", { [VL]: SPEC }));
    await untilSent(model, "asset");
    answer(model, { source: "export const somethingElse = 1;" });
    await until(() => el.querySelector(".agui-vega-error") !== null, "the failure said");
    assert.equal(el.querySelector(".agui-vega-error")?.textContent, "Chart not drawn: vega.js does not export draw()");
  });

  it("draw dark in a dark notebook and note the external data a spec asked for", async () => {
    doc.body.setAttribute("data-jp-theme-light", "false");
    const fake = fakeRenderer(["https://example.com/data.csv"]);
    const { model, el } = await connected(turn);
    model.kernel(render("state:0", { [VL]: { ...SPEC, data: { url: "https://example.com/data.csv" } } }));
    await untilSent(model, "asset");
    answer(model, { source: "x" });
    await until(() => charts(el).length === 1 && allCharts("drawn", el), "the chart drawn");
    assert.equal(fake.calls[0]?.options.dark, true);
    assert.match(el.querySelector(".agui-vega .agui-bundle-note")?.textContent ?? "", /External data was not loaded \(https:\/\/example\.com\/data\.csv\)/);
  });

  it("ignore an asset answer that breaks the wire's rules", () => {
    assert.equal(parseKernelMessage({ kind: "asset", name: "vega", source: 1, error: null }), null);
    assert.equal(parseKernelMessage({ kind: "asset", name: "vega", source: null, error: null }), null);
    assert.ok(parseKernelMessage({ kind: "asset", name: "vega", source: "x", error: null }));
  });
});
