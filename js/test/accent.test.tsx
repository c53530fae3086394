/** The chat's accent: the kernel's `accent` trait is what every view shows, and a browser tool's
 * `ctx.setAccent` asks the kernel to keep it (docs/wire.md, `set_accent`). */
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { FakeModel, untilSent } from "./dom";
import { connected } from "./mount";

const accentOf = (el: HTMLElement) => (el.querySelector(".agui-widget") as HTMLElement).style.getPropertyValue("--agui-accent");
const painter = (body: string) => ({ name: "paint", description: "", parameters: {}, ui: "handler", handler: body, approve: false });
const pendingPaint = (id: string, color: string) => ({
  kind: "tool",
  toolCallId: id,
  name: "paint",
  args: { color },
  argsText: JSON.stringify({ color }),
  claimedBy: null,
  kernel: null,
});
let chats = 0;
/** A chat of its own: views of one chat in one page share their accent (js/src/kernel/perChat.ts). */
const chatModel = (traits: Record<string, unknown> = {}) => new FakeModel({ saved_output_id: `agui-transcript-accent-${++chats}`, ...traits });

const g = globalThis as Record<string, unknown>;
afterEach(() => {
  delete g.CSS;
});

describe("the accent", () => {
  it("is the kernel's: a view shows the trait when it renders and whenever it changes", async () => {
    const model = chatModel({ accent: "navy" });
    const { el } = await connected([], model);
    assert.equal(accentOf(el), "navy", "a view that renders shows the kernel's accent");

    model.set("accent", "teal"); // chat.accent = "teal" in Python, or another tab's tool
    assert.equal(accentOf(el), "teal");
    model.set("accent", "");
    assert.equal(accentOf(el), "", "'' brings back the theme's accent");
  });

  it("is sent to the kernel by ctx.setAccent, shown at once in the page, and the kernel's value wins", async () => {
    const model = chatModel({ frontend_tools: [painter("ctx.setAccent(args.color); return { ok: true };")] });
    const one = await connected([], new Proxy(model, {}));
    const two = await connected([], new Proxy(model, {}));
    model.set("pending", [pendingPaint("c1", "tomato")]);
    await untilSent(model, "tool_result");

    assert.deepEqual(model.sentOf("set_accent"), [{ kind: "set_accent", color: "tomato" }], "the kernel is asked to keep it");
    assert.deepEqual(model.sentOf("tool_result"), [{ kind: "tool_result", toolCallId: "c1", result: { ok: true } }]);
    for (const view of [one, two]) assert.equal(accentOf(view.el), "tomato", "the page's views show it before the kernel answers");

    model.set("accent", "tomato"); // the kernel's echo
    model.set("accent", "gold"); // then a cell: chat.accent = "gold"
    for (const view of [one, two]) assert.equal(accentOf(view.el), "gold", "the kernel's later value wins");
  });

  it("refuses what the browser does not take as a colour, and the tool's answer says so", async () => {
    g.CSS = { supports: (property: string, value: string) => property === "color" && value !== "not a colour" };
    const model = chatModel({ frontend_tools: [painter("ctx.setAccent(args.color); return { ok: true };")] });
    const { el } = await connected([], model);
    model.set("pending", [pendingPaint("c1", "not a colour")]);
    await untilSent(model, "tool_result");

    assert.deepEqual(model.sentOf("set_accent"), [], "nothing to keep");
    const [answer] = model.sentOf("tool_result");
    assert.match(String((answer?.result as { error?: string }).error), /not a CSS colour/);
    assert.equal(accentOf(el), "");
  });
});
