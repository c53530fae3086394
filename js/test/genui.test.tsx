/**
 * Generative UI in the view: MIME bundles, tool and state renders, rich tool results, sub-agents,
 * activity cards, suggestion chips, and predictive state in the mirror.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeModel, until, untilCount } from "./dom";
import { captureWarnings, ev, events, readyMirror } from "./helpers";
import { button, connected, maybeButton } from "./mount";
import { Connection } from "../src/kernel/connection";
import { parsePartialJson } from "../src/mirror/mirror";
import { chosenType } from "../src/view/Bundle";

// A 1x1 transparent PNG.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

const toolTurn = (name = "get_weather", args = '{"city":"Lisbon"}') => [
  { id: "u1", role: "user", content: "go" },
  { id: "a1", role: "assistant", toolCalls: [{ id: "c1", type: "function", function: { name, arguments: args } }] },
];

const render = (key: string, bundle: Record<string, unknown> | null, extra: Record<string, unknown> = {}) => ({
  kind: "render",
  key,
  bundle,
  error: null,
  after: null,
  ...extra,
});

describe("MIME bundles", () => {
  it("choose a Vega-Lite chart first (its image stands in while it loads), then images, HTML, Markdown, JSON, plain text", () => {
    assert.equal(chosenType({ "text/plain": "t", "image/png": PNG, "text/html": "<b>x</b>" }), "image/png");
    assert.equal(chosenType({ "application/vnd.vegalite.v5+json": {}, "image/svg+xml": "<svg/>" }), "application/vnd.vegalite.v5+json");
    assert.equal(chosenType({ "application/vnd.vegalite.v5+json": {}, "text/html": "<div>" }), "application/vnd.vegalite.v5+json");
    assert.equal(chosenType({ "text/markdown": "# m", "application/json": {} }), "text/markdown");
    assert.equal(chosenType({ "application/json": { a: 1 }, "text/plain": "t" }), "application/json");
    assert.equal(chosenType({ "text/plain": "t" }), "text/plain");
    assert.equal(chosenType({ "image/png": "not base64 <>" }), null);
    assert.equal(chosenType({ "x/unknown": 1 }), null);
  });

  it("show a PNG as an image, SVG as an image data URL, HTML sanitised, Markdown rendered", async () => {
    const { model, el } = await connected(toolTurn());
    model.kernel(render("state:0", { "image/png": PNG, "text/plain": "a figure" }, { after: "a1" }));
    model.kernel(render("state:1", { "image/svg+xml": "<svg xmlns='http://www.w3.org/2000/svg'><circle r='3'/></svg>" }));
    model.kernel(render("state:2", { "text/html": "<table class='dataframe'><tr><th>city</th></tr><tr><td>Lisbon</td></tr></table><script>1</script>" }));
    model.kernel(render("state:3", { "text/markdown": "**bold** text" }));
    model.kernel(render("state:4", { "application/json": { answer: 42 } }));
    await untilCount(el, ".agui-state-render", 5, "the five renders shown");
    const [png, svg, html, md, json] = [...el.querySelectorAll(".agui-state-render")];
    const img = png?.querySelector("img");
    assert.equal(img?.getAttribute("src"), `data:image/png;base64,${PNG}`);
    assert.equal(img?.getAttribute("alt"), "a figure");
    assert.match(svg?.querySelector("img")?.getAttribute("src") ?? "", /^data:image\/svg\+xml;charset=utf-8,%3Csvg/);
    assert.equal(svg?.querySelector("svg"), null);
    assert.equal(html?.querySelector("td")?.textContent, "Lisbon");
    assert.equal(html?.querySelector("script"), null);
    assert.equal(md?.querySelector("strong")?.textContent, "bold");
    assert.match(json?.textContent ?? "", /"answer": 42/);
  });
});

describe("tool renders", () => {
  it("replace the default card, which stays one click away", async () => {
    const { model, el } = await connected(toolTurn());
    assert.ok(el.querySelector(".agui-tool"), "the default card before any render");
    model.kernel(render("tool:c1", { "text/markdown": "**Lisbon**: sunny" }));
    await until(() => el.querySelector(".agui-tool-rendered") !== null, "the tool's render shown");
    const rendered = el.querySelector(".agui-tool-rendered");
    assert.equal(rendered?.querySelector("strong")?.textContent, "Lisbon");
    assert.equal(el.querySelector(".agui-tool"), null, "the card is hidden");
    button(el, "details").click();
    await until(() => el.querySelector(".agui-tool-rendered .agui-tool") !== null, "details show the card");
    model.kernel(render("tool:c1", null));
    await until(() => el.querySelector(".agui-tool-rendered") === null, "the render withdrawn");
    assert.ok(el.querySelector(".agui-tool"));
  });

  it("show a renderer's error in place of the render", async () => {
    const { model, el } = await connected(toolTurn());
    model.kernel(render("tool:c1", null, { error: "weather failed: KeyError: 'city'" }));
    await until(() => el.querySelector(".agui-render-error") !== null, "the renderer's error shown");
    assert.match(el.querySelector(".agui-render-error")?.textContent ?? "", /KeyError/);
  });

  it("are forgotten on a new snapshot (the kernel sends them again after it)", async () => {
    const { model, el, viewId } = await connected(toolTurn());
    model.kernel(render("tool:c1", { "text/plain": "x" }));
    await until(() => el.querySelector(".agui-tool-rendered") !== null, "the tool's render shown");
    model.kernel({ kind: "snapshot", viewId, messages: toolTurn(), state: {}, events: [] });
    await until(() => el.querySelector(".agui-tool-rendered") === null, "the render forgotten");
  });
});

describe("rich tool results", () => {
  it("show a backend tool's figure as an image and its DataFrame as a table", async () => {
    const messages = [
      ...toolTurn("make_chart", "{}"),
      { id: "t1", role: "tool", toolCallId: "c1", content: "<Figure>", metadata: { agui_widget: { display: { "image/png": PNG, "text/plain": "<Figure>" } } } },
    ];
    const { model, el } = await connected(messages);
    assert.equal(el.querySelector(".agui-tool img")?.getAttribute("src"), `data:image/png;base64,${PNG}`);
    model.set("status", "running");
    model.kernel(events(ev.runStarted("r2"), ev.toolStart("c2", "make_table", "a2")));
    model.kernel(events(ev.toolEnd("c2"), {
      type: "TOOL_CALL_RESULT",
      messageId: "t2",
      toolCallId: "c2",
      content: "   n\n0  1",
      metadata: { agui_widget: { display: { "text/html": "<table><tr><td>1</td></tr></table>", "text/plain": "   n\n0  1" } } },
    }, ev.runFinished("r2")));
    model.set("status", "idle");
    await untilCount(el, ".agui-tool table", 1, "the DataFrame shown as a table");
    const tables = el.querySelectorAll(".agui-tool table");
    assert.equal(tables[0]?.querySelector("td")?.textContent, "1");
  });

  it("show an assistant message's display bundle instead of its text version", async () => {
    const { el } = await connected([
      { id: "a1", role: "assistant", content: "x\n0 1", metadata: { agui_widget: { display: { "text/html": "<table><tr><td>1</td></tr></table>" } } } },
    ]);
    assert.ok(el.querySelector(".agui-bubble-assistant table"));
  });
});

describe("state renders", () => {
  it("sit at the end while a run changes the state, then after the message they are pinned to", async () => {
    const { model, el } = await connected([
      { id: "u1", role: "user", content: "go" },
      { id: "a1", role: "assistant", content: "first" },
      { id: "u2", role: "user", content: "again" },
    ]);
    const rows = () => [...el.querySelectorAll(".agui-transcript > .agui-row")].map((r) => r.getAttribute("data-render") ?? r.className);
    model.kernel(render("state:0", { "text/markdown": "steps" }));
    await until(() => rows().at(-1) === "state:0", "the render at the end");
    model.kernel(render("state:0", { "text/markdown": "steps" }, { after: "a1" }));
    const pinned = () => rows().indexOf("state:0") === rows().findIndex((c) => c.includes("agui-row-assistant")) + 1;
    await until(pinned, "the render after the message it is pinned to");
  });
});

describe("sub-agents and activity", () => {
  it("show a sub-agent's messages nested under its name, with its outcome", async () => {
    const { model, el } = await connected([{ id: "u1", role: "user", content: "go" }]);
    model.set("status", "running");
    model.kernel(events(
      ev.runStarted(),
      { type: "SUBAGENT_STARTED", subagentRunId: "s1", name: "researcher", description: "looks things up" },
      { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant", subagentRunId: "s1" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "searching", subagentRunId: "s1" },
      { type: "TEXT_MESSAGE_END", messageId: "m1", subagentRunId: "s1" },
    ));
    await until(() => /searching/.test(el.querySelector(".agui-subagent")?.textContent ?? ""), "the sub-agent's message shown");
    const block = el.querySelector(".agui-subagent") as HTMLDetailsElement;
    assert.equal(block.querySelector(".agui-subagent-name")?.textContent, "researcher");
    assert.equal(block.getAttribute("data-status"), "running");
    assert.ok(block.open, "open while it works");
    assert.match(block.textContent ?? "", /searching/);
    model.kernel(events(
      { type: "SUBAGENT_FINISHED", subagentRunId: "s1" },
      ev.textStart("m2"),
      ev.text("m2", "the parent's answer"),
      ev.textEnd("m2"),
      ev.runFinished(),
    ));
    model.set("status", "idle");
    await until(() => block.getAttribute("data-status") === "finished" && /parent's answer/.test(el.textContent ?? ""), "the sub-agent finished and the parent's answer shown");
    assert.doesNotMatch(block.textContent ?? "", /parent's answer/);
    assert.match(el.textContent ?? "", /parent's answer/);
  });

  it("show a failed sub-agent's error", async () => {
    const { model, el } = await connected([{ id: "u1", role: "user", content: "go" }]);
    model.kernel(events(
      ev.runStarted(),
      { type: "SUBAGENT_STARTED", subagentRunId: "s1", name: "coder" },
      { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant", subagentRunId: "s1" },
      { type: "TEXT_MESSAGE_END", messageId: "m1", subagentRunId: "s1" },
      { type: "SUBAGENT_ERROR", subagentRunId: "s1", message: "compile error" },
    ));
    await until(() => el.querySelector(".agui-subagent")?.getAttribute("data-status") === "error", "the sub-agent failed");
    const block = el.querySelector(".agui-subagent") as HTMLDetailsElement;
    block.open = true;
    assert.equal(block.getAttribute("data-status"), "error");
    assert.match(block.textContent ?? "", /compile error/);
  });

  it("show an activity card labelled by its type, with Markdown content, updated by deltas", async () => {
    const { model, el } = await connected([{ id: "u1", role: "user", content: "go" }]);
    model.kernel(events(
      ev.runStarted(),
      { type: "ACTIVITY_SNAPSHOT", messageId: "act1", activityType: "progress", content: { markdown: "**0** of 3" } },
      { type: "ACTIVITY_DELTA", messageId: "act1", activityType: "progress", patch: [{ op: "replace", path: "/markdown", value: "**2** of 3" }] },
    ));
    await until(() => el.querySelector(".agui-activity strong") !== null, "the activity card shown");
    const card = el.querySelector(".agui-activity");
    assert.equal(card?.querySelector(".agui-activity-type")?.textContent, "progress");
    assert.equal(card?.querySelector("strong")?.textContent, "2");
  });

  it("show activity content without text as JSON", async () => {
    const { el } = await connected([{ id: "act", role: "activity", activityType: "search", content: { hits: 3 } }]);
    assert.match(el.querySelector(".agui-activity pre")?.textContent ?? "", /"hits": 3/);
  });
});

describe("suggestion chips", () => {
  const starters = [{ title: "Tell me a joke", message: "Tell me a joke" }, { title: "Plan a trip", message: "Plan a 3-day trip to Lisbon" }];

  it("show the starters in an empty, idle chat and send one when clicked", async () => {
    const model = new FakeModel({ suggestions: starters, suggestions_after: "" });
    const { el } = await connected([], model);
    button(el, "Plan a trip").click();
    assert.deepEqual(model.sentOf("send").at(-1), { kind: "send", text: "Plan a 3-day trip to Lisbon" });
  });

  it("are buttons, so Enter on a focused chip sends it too", async () => {
    const model = new FakeModel({ suggestions: starters });
    const { el } = await connected([], model);
    const chip = button(el, "Tell me a joke");
    assert.equal(chip.getAttribute("type"), "button");
    assert.equal(chip.tagName, "BUTTON");
  });

  it("hide while running and once the conversation has started, unless the agent gave them after its answer", async () => {
    const model = new FakeModel({ suggestions: starters });
    const { el } = await connected([], model);
    model.set("status", "running");
    await until(() => maybeButton(el, "Tell me a joke") === null, "the starters hidden while running");
    model.set("status", "idle");
    model.kernel({ kind: "messages", start: 0, messages: [{ id: "u1", role: "user", content: "hi" }, { id: "a1", role: "assistant", content: "hello" }] });
    await until(() => el.querySelector(".agui-bubble-assistant")?.textContent?.includes("hello") === true, "the conversation shown");
    assert.equal(maybeButton(el, "Tell me a joke"), null);
    model.set("suggestions", [{ title: "More", message: "tell me more" }]);
    model.set("suggestions_after", "a1");
    await until(() => maybeButton(el, "More") !== null, "the agent's suggestion after its answer");
    model.kernel({ kind: "messages", start: 2, messages: [{ id: "u2", role: "user", content: "tell me more" }] });
    await until(() => maybeButton(el, "More") === null, "the suggestion gone once asked");
  });
});

describe("predictive state in the mirror", () => {
  const argsEvents = (pieces: string[]) => [ev.runStarted(), ev.toolStart("c1", "write_document"), ...pieces.map((p) => ev.toolArgs("c1", p))];

  it("follows the streamed argument with the chat's rules", () => {
    const mirror = readyMirror([], { title: "T" });
    mirror.setPredictRules([{ stateKey: "document", tool: "write_document", toolArgument: "document" }]);
    const seen: unknown[] = [];
    mirror.subscribe("state", () => seen.push((mirror.state as Record<string, unknown>).document));
    for (const e of argsEvents(['{"docu', 'ment": "Hel', "lo wor", 'ld"}'])) mirror.handle(events(e));
    assert.deepEqual(seen, ["Hel", "Hello wor", "Hello world"]);
    assert.deepEqual(mirror.state, { title: "T", document: "Hello world" });
  });

  it("follows a run's PredictState event for that run only", () => {
    const mirror = readyMirror([], {});
    mirror.handle(events(ev.runStarted(), { type: "CUSTOM", name: "PredictState", value: [{ state_key: "args", tool: "write_document" }] }));
    mirror.handle(events(ev.toolStart("c1", "write_document", undefined), ev.toolArgs("c1", '{"a": [1, 2')));
    assert.deepEqual(mirror.state, { args: { a: [1, 2] } });
    mirror.handle(events(ev.toolEnd("c1"), ev.runFinished(), ev.runStarted("r2"), ev.toolStart("c2", "write_document"), ev.toolArgs("c2", '{"b": 1}')));
    assert.deepEqual(mirror.state, { args: { a: [1, 2] } });
  });

  it("takes the chat's rules from the predict_state trait, as they change", () => {
    const model = new FakeModel({ predict_state: [{ stateKey: "doc", tool: "write_document", toolArgument: "text" }] });
    const conn = new Connection(model);
    model.kernel({ kind: "snapshot", viewId: conn.viewId, messages: [], state: {}, events: [] });
    model.kernel(events(ev.runStarted(), ev.toolStart("c1", "write_document"), ev.toolArgs("c1", '{"text": "Hi')));
    assert.deepEqual(conn.mirror.state, { doc: "Hi" });
    model.set("predict_state", []);
    model.kernel(events(ev.toolStart("c2", "write_document"), ev.toolArgs("c2", '{"text": "Bye"}')));
    assert.deepEqual(conn.mirror.state, { doc: "Hi" });
    conn.dispose();
  });

  it("refuses a PredictState event the kernel refuses, keeping the run's rules, and takes camelCase rules", () => {
    const mirror = readyMirror([], {});
    const custom = (value: unknown) => ({ type: "CUSTOM", name: "PredictState", value });
    mirror.handle(events(ev.runStarted(), custom([{ stateKey: "doc", tool: "write_document", toolArgument: "text" }])));
    const warned = captureWarnings(() => {
      mirror.handle(events(custom([{ state_key: "other", tool: "write_document" }, { state_key: "", tool: "write_document" }])));
      mirror.handle(events(custom({ state_key: "other", tool: "write_document" })));
    });
    assert.equal(warned.filter((w) => w.includes("PredictState")).length, 2);
    mirror.handle(events(ev.toolStart("c1", "write_document"), ev.toolArgs("c1", '{"text": "Hi')));
    assert.deepEqual(mirror.state, { doc: "Hi" });
    mirror.handle(events(custom(null), ev.toolStart("c2", "write_document"), ev.toolArgs("c2", '{"text": "Bye"}')));
    assert.deepEqual(mirror.state, { doc: "Hi" }, "a null value clears the run's rules, as in the kernel");
  });

  it("parses unfinished JSON like the kernel does for strings, lists and objects", () => {
    assert.deepEqual(parsePartialJson('{"document": "Hel'), { document: "Hel" });
    assert.deepEqual(parsePartialJson('{"doc'), {});
    assert.equal(parsePartialJson(""), undefined);
  });
});
