/**
 * Live widgets in answers: a bundle naming a widget model is shown as that widget's view when the
 * page's widget manager has the model, and as its static parts otherwise.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { doc, FakeModel, until } from "./dom";
import { connected } from "./mount";
import { staticParts, WIDGET_VIEW, widgetManagerOf, widgetModelId } from "../src/view/LiveWidget";

type Listener = (...args: unknown[]) => void;

/** A widget model as ipywidgets' manager gives it: Backbone-like events, `comm_live`. */
class FakeWidgetModel {
  comm_live = true;
  private listeners = new Map<string, Set<Listener>>();
  on(event: string, callback: Listener) {
    if (!this.listeners.has(event)) this.listeners.set(event, new Set());
    this.listeners.get(event)?.add(callback);
  }
  off(event: string, callback: Listener) {
    this.listeners.get(event)?.delete(callback);
  }
  trigger(event: string) {
    for (const listener of [...(this.listeners.get(event) ?? [])]) listener();
  }
  listening(): number {
    return [...this.listeners.values()].reduce((n, set) => n + set.size, 0);
  }
}

/** A Lumino widget: attached through the static `attach` every widget class inherits. */
class FakeLumino {
  static attached: FakeLumino[] = [];
  disposed = false;
  constructor(readonly node: HTMLElement) {}
  static attach(widget: FakeLumino, host: HTMLElement) {
    if (!host.isConnected) throw new Error("Host is not attached.");
    host.appendChild(widget.node);
    FakeLumino.attached.push(widget);
  }
  dispose() {
    this.disposed = true;
    this.node.remove();
  }
}

/** An ipywidgets widget manager with the models it was given. */
class FakeWidgetManager {
  views: FakeLumino[] = [];
  asked: string[] = [];
  constructor(readonly models: Record<string, FakeWidgetModel> = {}) {}
  get_model(modelId: string): Promise<unknown> {
    this.asked.push(modelId);
    const model = this.models[modelId];
    return model ? Promise.resolve(model) : Promise.reject(new Error("widget model not found"));
  }
  async create_view(model: unknown): Promise<unknown> {
    assert.ok(Object.values(this.models).includes(model as FakeWidgetModel));
    const el = doc.createElement("div");
    el.className = "fake-slider";
    el.setAttribute("role", "slider");
    const luminoWidget = new FakeLumino(el);
    this.views.push(luminoWidget);
    return { el, luminoWidget };
  }
}

class ManagedModel extends FakeModel {
  constructor(readonly widget_manager: unknown) {
    super();
  }
}

const view = (modelId: string) => ({ version_major: 2, version_minor: 0, model_id: modelId });
const sliderBundle = (modelId = "m1") => ({ [WIDGET_VIEW]: view(modelId), "text/plain": "IntSlider(value=3)" });

const toolTurn = (bundle: Record<string, unknown>) => [
  { id: "u1", role: "user", content: "a slider" },
  { id: "a1", role: "assistant", toolCalls: [{ id: "c1", type: "function", function: { name: "make_slider", arguments: "{}" } }] },
  { id: "t1", role: "tool", toolCallId: "c1", content: "IntSlider(value=3)", metadata: { agui_widget: { display: bundle } } },
];

const liveState = (el: HTMLElement) => el.querySelector(".agui-live-widget")?.getAttribute("data-live");

describe("a live widget in an answer", () => {
  it("is the widget's own view when the page's widget manager has its model", async () => {
    const manager = new FakeWidgetManager({ m1: new FakeWidgetModel() });
    const { el } = await connected(toolTurn(sliderBundle()), new ManagedModel(manager));
    await until(() => liveState(el) === "live", "the widget shown live");
    assert.deepEqual(manager.asked, ["m1"]);
    assert.ok(el.querySelector(".agui-tool .agui-live-widget-host .fake-slider"), "the view is inside the tool's card");
    assert.ok(!(el.querySelector(".agui-live-widget")?.textContent ?? "").includes("IntSlider(value=3)"), "no static text beside it");
  });

  it("shows the static parts when the model is gone (a restarted kernel, a saved notebook)", async () => {
    const manager = new FakeWidgetManager({});
    const { el } = await connected(toolTurn(sliderBundle("gone")), new ManagedModel(manager));
    await until(() => liveState(el) === "static", "the static fallback");
    assert.match(el.querySelector(".agui-live-widget")?.textContent ?? "", /IntSlider\(value=3\)/);
    assert.equal(manager.views.length, 0);
  });

  it("shows the static parts, at once, where the page gives no widget manager", async () => {
    const { el } = await connected(toolTurn(sliderBundle()));
    assert.equal(liveState(el), "static");
    assert.match(el.querySelector(".agui-live-widget")?.textContent ?? "", /IntSlider\(value=3\)/);
  });

  it("shows the static parts while it waits for the model, then only the widget (no flicker)", async () => {
    let release: (model: unknown) => void = () => {};
    const model = new FakeWidgetModel();
    const manager = new FakeWidgetManager({ m1: model });
    manager.get_model = (modelId: string) => {
      manager.asked.push(modelId);
      return new Promise((resolve) => (release = resolve));
    };
    const { el } = await connected(toolTurn(sliderBundle()), new ManagedModel(manager));
    await until(() => manager.asked.length === 1, "the model asked for");
    assert.equal(liveState(el), "waiting");
    assert.match(el.querySelector(".agui-live-widget")?.textContent ?? "", /IntSlider\(value=3\)/);
    release(model);
    await until(() => liveState(el) === "live", "the widget shown live");
    assert.deepEqual(manager.asked, ["m1"], "asked once");
    assert.equal(manager.views.length, 1, "one view made");
  });

  it("is disposed when the chat's view goes, and stops listening to the model", async () => {
    const model = new FakeWidgetModel();
    const manager = new FakeWidgetManager({ m1: model });
    const { el, cleanup } = await connected(toolTurn(sliderBundle()), new ManagedModel(manager));
    await until(() => liveState(el) === "live", "the widget shown live");
    assert.ok(model.listening() > 0);
    cleanup();
    await until(() => manager.views[0]?.disposed === true, "the widget's view disposed");
    await until(() => model.listening() === 0, "no listener left on the model");
  });

  it("goes back to the static parts when its model closes or its kernel goes", async () => {
    for (const end of ["destroy", "comm_live_update"]) {
      const model = new FakeWidgetModel();
      const manager = new FakeWidgetManager({ m1: model });
      const { el } = await connected(toolTurn(sliderBundle()), new ManagedModel(manager));
      await until(() => liveState(el) === "live", "the widget shown live");
      model.comm_live = false;
      model.trigger(end);
      await until(() => liveState(el) === "static", `the static fallback after ${end}`);
      assert.equal(manager.views[0]?.disposed, true);
      assert.equal(el.querySelector(".fake-slider"), null);
    }
  });

  it("is live in a render_tool render too", async () => {
    const manager = new FakeWidgetManager({ m2: new FakeWidgetModel() });
    const messages = toolTurn({ "text/plain": "done" }).slice(0, 2);
    const { model, el } = await connected(messages, new ManagedModel(manager));
    model.kernel({ kind: "render", key: "tool:c1", bundle: sliderBundle("m2"), error: null, after: null });
    await until(() => el.querySelector(".agui-tool-rendered .fake-slider") !== null, "the render's widget shown live");
  });

  it("keeps the keys typed in it from a notebook's command-mode shortcuts, as the chat's own controls", async () => {
    const manager = new FakeWidgetManager({ m1: new FakeWidgetModel() });
    const { el } = await connected(toolTurn(sliderBundle()), new ManagedModel(manager));
    await until(() => liveState(el) === "live", "the widget shown live");
    const slider = el.querySelector(".fake-slider") as Element;
    const marked: boolean[] = [];
    const look = () => marked.push(slider.hasAttribute("data-lm-suppress-shortcuts"));
    doc.addEventListener("keydown", look, true);
    try {
      const key = (init: KeyboardEventInit = {}) =>
        slider.dispatchEvent(new (globalThis as any).KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true, ...init }));
      key();
      await until(() => !slider.hasAttribute("data-lm-suppress-shortcuts"), "the mark gone after the key");
      key({ ctrlKey: true });
      assert.deepEqual(marked, [true, false], "the notebook skips its shortcuts for the key; Ctrl+keys are its own");
    } finally {
      doc.removeEventListener("keydown", look, true);
    }
  });

  it("never shows a chat's own model inside a chat", async () => {
    const chatModel = Object.assign(new FakeWidgetModel(), {
      get: (name: string) => ({ saved_output_id: "out-1", agent_names: [] })[name],
    });
    const manager = new FakeWidgetManager({ itself: chatModel });
    const { el } = await connected(toolTurn(sliderBundle("itself")), new ManagedModel(manager));
    await until(() => liveState(el) === "static", "the static fallback");
    assert.equal(manager.views.length, 0, "no view of the chat made");
  });

  it("a view without Lumino is put in place as its element", async () => {
    const model = new FakeWidgetModel();
    const manager = new FakeWidgetManager({ m1: model });
    const removed: string[] = [];
    manager.create_view = async () => {
      const el = doc.createElement("div");
      el.className = "plain-view";
      return { el, remove: () => removed.push("m1"), trigger: () => {} };
    };
    const { el, cleanup } = await connected(toolTurn(sliderBundle()), new ManagedModel(manager));
    await until(() => el.querySelector(".agui-live-widget-host .plain-view") !== null, "the view's element shown");
    cleanup();
    await until(() => removed.length === 1, "the view removed");
    assert.deepEqual(removed, ["m1"]);
  });
});

describe("widget bundles", () => {
  it("name a model only with a non-empty model id", () => {
    assert.equal(widgetModelId(sliderBundle("m9")), "m9");
    assert.equal(widgetModelId({ [WIDGET_VIEW]: { model_id: "" } }), null);
    assert.equal(widgetModelId({ [WIDGET_VIEW]: "m9" }), null);
    assert.equal(widgetModelId({ "text/plain": "x" }), null);
  });

  it("keep their static parts without the widget view", () => {
    assert.deepEqual(staticParts(sliderBundle()), { "text/plain": "IntSlider(value=3)" });
  });

  it("are live only with a manager that can find models and make views", () => {
    assert.equal(widgetManagerOf(new FakeModel()), null);
    assert.equal(widgetManagerOf(new ManagedModel({ get_model: () => null })), null);
    assert.ok(widgetManagerOf(new ManagedModel(new FakeWidgetManager())));
  });
});
