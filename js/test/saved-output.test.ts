/**
 * The conversation a displayed chat keeps in the notebook is hidden where the chat itself is on
 * the page, and shown again when its last view goes (docs/threads.md).
 */
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { doc, FakeModel, until } from "./dom";
import { mount } from "./mount";
import { SAVED_OUTPUT_ATTRIBUTE, hideSavedOutput } from "../src/page/savedOutput";

const ID = "agui-transcript-0123abcd";

/** A notebook output area as JupyterLab builds it: the chat's row, then the kept conversation's row. */
function outputArea(id = ID): HTMLElement {
  const area = doc.createElement("div");
  area.className = "jp-OutputArea";
  area.innerHTML =
    `<div class="jp-OutputArea-child"><div class="jp-OutputArea-output chat"></div></div>` +
    `<div class="jp-OutputArea-child"><div class="jp-OutputArea-output jp-RenderedMarkdown">` +
    `<div ${SAVED_OUTPUT_ATTRIBUTE}="${id}"><p>User: hi</p></div></div></div>`;
  doc.body.appendChild(area);
  return area;
}

const kept = (area: HTMLElement) => area.querySelector(`[${SAVED_OUTPUT_ATTRIBUTE}]`) as HTMLElement;
const shown = (el: HTMLElement) => doc.defaultView!.getComputedStyle(el).display !== "none";
const rules = () => [...doc.head.querySelectorAll("style[data-agui-hides]")];

afterEach(() => {
  doc.body.innerHTML = "";
});

/** An output as VS Code's notebook webview renders Markdown: inside a shadow root of `.output`. */
function vsCodeOutput(id = ID): HTMLElement {
  const container = doc.createElement("div");
  container.className = "output_container";
  const output = doc.createElement("div");
  output.className = "output";
  container.appendChild(output);
  doc.body.appendChild(container);
  output.attachShadow({ mode: "open" }).innerHTML = `<div ${SAVED_OUTPUT_ATTRIBUTE}="${id}"><p>User: hi</p></div>`;
  return output;
}

describe("the kept conversation in VS Code's webview", () => {
  const win = doc.defaultView as unknown as { jupyter_vscode_rendererContext?: unknown };
  afterEach(() => {
    delete win.jupyter_vscode_rendererContext;
  });

  it("is hidden inside its output's shadow root, also when the output comes later, and shown again after", async () => {
    win.jupyter_vscode_rendererContext = {};
    const first = vsCodeOutput();
    const other = vsCodeOutput("agui-transcript-other");
    const release = hideSavedOutput(ID);
    assert.ok(!shown(first), "a style rule cannot reach into the shadow root: the output itself is hidden");
    assert.ok(shown(other), "another chat's copy stays");
    first.remove();
    const rewritten = vsCodeOutput(); // the copy rewritten after a turn
    await until(() => !shown(rewritten), "the rewritten copy hidden (looked for again after its mutation)");
    release();
    assert.ok(shown(rewritten));
  });

  it("is not looked for in shadow roots outside VS Code", () => {
    const output = vsCodeOutput();
    const release = hideSavedOutput(ID);
    assert.ok(shown(output), "JupyterLab renders no output in a shadow root: nothing to scan");
    release();
  });
});

describe("the kept conversation", () => {
  it("is hidden while a view of its chat is shown, and shown again after", () => {
    const area = outputArea();
    assert.ok(shown(kept(area)));
    const release = hideSavedOutput(ID);
    assert.ok(!shown(kept(area)));
    assert.match(rules()[0]!.textContent ?? "", /\.jp-OutputArea-child:has\(\[data-agui-transcript="agui-transcript-0123abcd"\]\)/);
    release();
    assert.ok(shown(kept(area)));
    assert.deepEqual(rules(), []);
  });

  it("stays hidden until the chat's last view goes", () => {
    const area = outputArea();
    const first = hideSavedOutput(ID);
    const second = hideSavedOutput(ID);
    assert.equal(rules().length, 1, "one rule per chat, however many views");
    first();
    first(); // releasing twice counts once
    assert.ok(!shown(kept(area)));
    second();
    assert.ok(shown(kept(area)));
  });

  it("of another chat stays visible", () => {
    const other = outputArea("agui-transcript-other");
    const release = hideSavedOutput(ID);
    assert.ok(shown(kept(other)));
    release();
  });

  it("is left alone when the id is not a plain token", () => {
    const release = hideSavedOutput('x"] , body {display:none} [x="');
    assert.deepEqual(rules(), []);
    release();
  });

  it("is hidden by a rendered chat and shown once the view is removed", () => {
    const area = outputArea();
    const view = mount(new FakeModel({ saved_output_id: ID }));
    assert.ok(!shown(kept(area)));
    view.cleanup();
    assert.ok(shown(kept(area)));
  });
});
