/**
 * A2UI surfaces in the view, drawn by A2UI's real Lit renderer (./src/a2ui/render.ts, what
 * static/a2ui.js holds) under jsdom: the demo agent's form is drawn, typing in it and pressing
 * Submit sends the kernel an `a2ui_action` with the values; a surface that cannot be drawn says why
 * above the generic activity card, and the chat goes on. The browser test
 * (tests/browser/test_a2ui.py) draws the same surfaces in Chromium, from the kernel.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { after, before, beforeEach, describe, it } from "node:test";
import { doc, until, untilSent } from "./dom";
import { connected } from "./mount";
import { ev } from "./helpers";
import { moduleImporter } from "../src/kernel/assets";
import { forgetA2ui } from "../src/a2ui/load";
import { checkOperations } from "../src/a2ui/check";
import type { A2uiRenderer, UserAction } from "../src/a2ui/types";
import { XSS_PAYLOADS } from "./xss-payloads";

const root = process.env.AGUI_JS_ROOT ?? process.cwd();
const fixture = JSON.parse(readFileSync(resolve(root, "test", "a2ui-middleware.json"), "utf8")) as { demoOperations: unknown[] };
const FORM = fixture.demoOperations;
const win = doc.defaultView as unknown as Record<string, unknown>;

// What Lit needs of a browser beyond what ./dom gives every test.
for (const name of ["customElements", "ShadowRoot", "CSSStyleSheet", "HTMLSlotElement", "Document", "getComputedStyle"]) {
  if (!(name in globalThis)) (globalThis as Record<string, unknown>)[name] = win[name];
}

let renderer: A2uiRenderer;
const realImporter = moduleImporter.import;
before(async () => {
  renderer = (await import("../src/a2ui/render")).default;
});
beforeEach(() => {
  forgetA2ui();
  moduleImporter.import = async () => ({ default: renderer });
});
after(() => {
  moduleImporter.import = realImporter;
  forgetA2ui();
});

/** Every element under `node`, shadow roots included. */
function deepAll(node: ParentNode, selector: string): Element[] {
  const found: Element[] = [];
  const walk = (n: ParentNode) => {
    found.push(...n.querySelectorAll(selector));
    for (const el of n.querySelectorAll("*")) if (el.shadowRoot) walk(el.shadowRoot);
  };
  walk(node);
  return found;
}

const surfaceMessage = (content: unknown, id = "a2ui-surface-call-1") => ({ id, role: "activity", activityType: "a2ui-surface", content });

describe("an A2UI surface, drawn by the renderer itself", () => {
  it("draws the demo form and reports a submit with the values typed", async () => {
    const el = doc.createElement("div");
    doc.body.append(el);
    const actions: UserAction[] = [];
    const mounted = renderer.mount(el, FORM, { dark: true, onAction: (a) => actions.push(a) });
    assert.deepEqual(mounted.surfaceIds, ["demo-form"]);
    assert.equal(el.style.colorScheme, "dark");
    assert.match(el.style.getPropertyValue("--a2ui-color-primary"), /--agui-accent-color/);
    await until(() => deepAll(el, "input").length > 0 && deepAll(el, "button").length > 0, "the field and the button drawn");
    const input = deepAll(el, "input")[0] as HTMLInputElement;
    input.value = "Ada";
    input.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
    const submit = deepAll(el, "button").find((b) => b.textContent?.includes("Submit") || deepAll(b, "*").some((c) => c.textContent === "Submit"));
    (submit ?? deepAll(el, "button").at(-1))!.dispatchEvent(new MouseEvent("click", { bubbles: true, composed: true }));
    await until(() => actions.length === 1, "the action reported");
    assert.equal(actions[0]!.name, "submit");
    assert.equal(actions[0]!.surfaceId, "demo-form");
    assert.equal(actions[0]!.sourceComponentId, "submit");
    assert.deepEqual(actions[0]!.context, { name: "Ada", drink: ["tea"] });
    mounted.dispose();
    assert.equal(el.childElementCount, 0);
  });

  it("shows agent text as text: no payload becomes an element or runs", async () => {
    const w = win as { __xss?: (n: unknown) => void };
    const calls: unknown[] = [];
    w.__xss = (n) => calls.push(n);
    // A payload that is itself a script URL refuses the whole surface (tested below); the rest are drawn.
    const refused = (p: string) => {
      try {
        checkOperations([{ version: "v0.9", updateDataModel: { surfaceId: "s", value: p } }], () => true);
        return false;
      } catch {
        return true;
      }
    };
    const payloads = XSS_PAYLOADS.filter((p) => !refused(p));
    assert.ok(payloads.length > XSS_PAYLOADS.length - 10, `most payloads are drawn (${payloads.length} of ${XSS_PAYLOADS.length})`);
    const texts = payloads.map((text, i) => ({ id: `t${i}`, component: "Text", text }));
    const labels = payloads.map((label, i) => ({ id: `f${i}`, component: "TextField", label, value: { path: `/v/${i}` } }));
    const ids = [...texts, ...labels].map((c) => c.id);
    const operations = [
      { version: "v0.9", createSurface: { surfaceId: "x", catalogId: "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json" } },
      { version: "v0.9", updateComponents: { surfaceId: "x", components: [{ id: "root", component: "Column", children: ids }, ...texts, ...labels] } },
      { version: "v0.9", updateDataModel: { surfaceId: "x", path: "/", value: { v: payloads } } },
    ];
    const el = doc.createElement("div");
    doc.body.append(el);
    const mounted = renderer.mount(el, operations, { dark: false, onAction: () => {} });
    await until(() => deepAll(el, "input").length === payloads.length, "every field drawn");
    for (const node of deepAll(el, "*")) {
      node.dispatchEvent(new Event("error"));
      node.dispatchEvent(new Event("load"));
      node.dispatchEvent(new MouseEvent("mouseover"));
    }
    assert.deepEqual(calls, [], "no handler ran");
    assert.equal(deepAll(el, "script, img, svg, iframe, object, embed, a[href], marquee, details, video, body").length, 0, "no payload became an element");
    assert.equal(deepAll(el, "[onerror], [onload], [onmouseover], [onfocus]").length, 0);
    const shown = deepAll(el, ".a2ui-text").map((t) => t.textContent);
    assert.ok(shown.includes(payloads[0]!), "a payload is shown as its text");
    const values = (deepAll(el, "input") as HTMLInputElement[]).map((i) => i.value);
    assert.deepEqual(values, payloads.map((p) => p.replace(/[\r\n]/g, "")), "bound values are the fields' text (one line)");
    mounted.dispose();
    el.remove();
    delete w.__xss;
  });

  it("refuses what is not a drawable surface, saying why", () => {
    const known = (name: string) => name !== "Script";
    const bad: Array<[unknown, RegExp]> = [
      ["not a list", /not a list/],
      [[{ version: "v0.9" }], /no A2UI operation/],
      [[{ version: "v0.9", createSurface: {} }], /names no surfaceId/],
      [[{ version: "v0.9", updateComponents: { surfaceId: "s", components: [{ id: "root", component: "Script" }] } }], /"Script" is not in the basic catalogue/],
      [[{ version: "v0.9", updateDataModel: { surfaceId: "s", value: { u: " JavaScript:alert(1)" } } }], /could run script/],
      [[{ version: "v0.9", updateComponents: { surfaceId: "s", components: [{ id: "card", component: "Card", child: "t" }] } }], /has the id "root"/],
      [[{ version: "v0.9", updateComponents: { surfaceId: "s", components: [{ id: "root", component: "Image", url: "java\tscript:alert(1)" }] } }], /could run script/],
    ];
    for (const [operations, why] of bad) assert.throws(() => checkOperations(operations, known), why);
    const el = doc.createElement("div");
    // an updateComponents for a surface never created
    assert.throws(() => renderer.mount(el, [FORM[1]], { dark: false, onAction: () => {} }), /Surface not found/);
    assert.equal(el.childElementCount, 0);
  });
});

describe("an A2UI surface in the chat", () => {
  it("is drawn from its activity message, and Submit sends the kernel an a2ui_action", async () => {
    const { model, el, cleanup } = await connected([{ id: "u1", role: "user", content: "a2ui" }, surfaceMessage({ a2ui_operations: FORM })]);
    const [ask] = await untilSent(model, "asset");
    assert.deepEqual(ask, { kind: "asset", name: "a2ui" });
    model.kernel({ kind: "asset", name: "a2ui", source: "export default {}", error: null });
    await until(() => el.querySelector("[data-a2ui=drawn]") !== null && deepAll(el, "input").length > 0, "the surface drawn");
    const input = deepAll(el, "input")[0] as HTMLInputElement;
    input.value = "Grace";
    input.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
    deepAll(el, "button").at(-1)!.dispatchEvent(new MouseEvent("click", { bubbles: true, composed: true }));
    const [sent] = await untilSent(model, "a2ui_action");
    const action = (sent as { action: UserAction }).action;
    assert.deepEqual({ ...action, timestamp: "" }, { name: "submit", surfaceId: "demo-form", sourceComponentId: "submit", timestamp: "", context: { name: "Grace", drink: ["tea"] } });
    cleanup();
  });

  it("shows why and the generic card when a surface cannot be drawn, and the chat goes on", async () => {
    const unknownSurface = surfaceMessage({ a2ui_operations: [FORM[1]] }, "a2ui-surface-a");
    const unknownComponent = surfaceMessage({ a2ui_operations: [FORM[0], { version: "v0.9", updateComponents: { surfaceId: "demo-form", components: [{ id: "root", component: "Marquee" }] } }] }, "a2ui-surface-b");
    const noOperations = surfaceMessage({ nonsense: true }, "a2ui-surface-c");
    const building = surfaceMessage({ status: "building" }, "a2ui-surface-d");
    const { model, el, cleanup } = await connected([{ id: "u1", role: "user", content: "hi" }, unknownSurface, unknownComponent, noOperations, building]);
    await untilSent(model, "asset");
    model.kernel({ kind: "asset", name: "a2ui", source: "export default {}", error: null });
    await until(() => el.querySelectorAll(".agui-a2ui-error").length === 3, "three notices");
    const notices = [...el.querySelectorAll(".agui-a2ui-error")].map((n) => n.textContent);
    assert.match(notices[0]!, /Surface not found/);
    assert.match(notices[1]!, /"Marquee" is not in the basic catalogue/);
    assert.match(notices[2]!, /has no a2ui_operations/);
    assert.equal(el.querySelectorAll(".agui-a2ui-failed .agui-activity[data-activity-type=a2ui-surface]").length, 3, "each with the generic card");
    assert.match(el.querySelector("[data-a2ui=building]")?.textContent ?? "", /Building the surface/);
    // the chat goes on: a message still renders after them
    model.kernel({ kind: "messages", start: 5, messages: [{ id: "a1", role: "assistant", content: "still here" }] });
    await until(() => el.textContent?.includes("still here") ?? false, "a later message shown");
    cleanup();
  });

  it("follows the middleware's snapshots: building, then the surface in its place; a failure says why", async () => {
    const { model, el, cleanup } = await connected([{ id: "u1", role: "user", content: "a form" }]);
    const snapshot = (messageId: string, content: unknown) => ({ type: "ACTIVITY_SNAPSHOT", messageId, activityType: "a2ui-surface", content, replace: true });
    model.kernel({ kind: "events", events: [ev.runStarted(), snapshot("a2ui-surface-c1", { status: "building", progressTokens: 40 })] });
    await until(() => el.querySelector("[data-a2ui=building]")?.textContent?.includes("Building the surface") ?? false, "building shown");
    model.kernel({ kind: "events", events: [snapshot("a2ui-surface-c1", { status: "retrying", attempt: 2, maxAttempts: 3, errors: [] })] });
    await until(() => el.querySelector("[data-a2ui=retrying]")?.textContent?.includes("attempt 2 of 3") ?? false, "retrying shown");
    model.kernel({ kind: "events", events: [snapshot("a2ui-surface-c1", { a2ui_operations: FORM })] });
    await untilSent(model, "asset");
    model.kernel({ kind: "asset", name: "a2ui", source: "export default {}", error: null });
    await until(() => el.querySelector("[data-a2ui=drawn]") !== null && deepAll(el, "input").length > 0, "the surface drawn in the same row");
    assert.equal(el.querySelectorAll("[data-a2ui]").length, 1, "one row: the snapshot replaced the status");
    model.kernel({ kind: "events", events: [snapshot("a2ui-surface-c2", { status: "failed", error: "the components were invalid", attempts: [] }), ev.runFinished()] });
    await until(() => el.querySelector("[data-a2ui=failed]")?.textContent?.includes("could not build the surface: the components were invalid") ?? false, "the failure shown");
    cleanup();
  });

  it("keeps the generic card with the kernel's reason when the renderer cannot be loaded", async () => {
    const { model, el, cleanup } = await connected([surfaceMessage({ a2ui_operations: FORM })]);
    await untilSent(model, "asset");
    model.kernel({ kind: "asset", name: "a2ui", source: null, error: "a2ui.js is missing from the agui_widget package" });
    await until(() => el.querySelector(".agui-a2ui-error") !== null, "the notice");
    assert.match(el.querySelector(".agui-a2ui-error")!.textContent!, /a2ui.js is missing/);
    assert.ok(el.querySelector(".agui-a2ui-failed .agui-activity"));
    cleanup();
  });
});
