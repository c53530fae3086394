/** The Context panel: what the agent gets beside the conversation, from the `frontend_tools` and
 * `agent_context` traits, following them as they change. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeModel } from "./dom";
import { button, connected, until } from "./mount";

const panelOf = (el: Element) => el.querySelector('section[aria-label="What the agent gets"]') as HTMLElement | null;
/** Each item of a list as the words of its parts (a details' summary and text, one part each). */
const itemsOf = (panel: Element, list: string) =>
  [...panel.querySelectorAll(`ul[aria-label="${list}"] > li`)].map((li) =>
    [...li.children]
      .flatMap((part) => (part.tagName === "DETAILS" ? [...part.children] : [part]))
      .map((part) => part.textContent?.trim())
      .join(" "),
  );

describe("the Context panel", () => {
  it("lists the tools and context the agent gets, with a count on its toggle", async () => {
    const model = new FakeModel({
      frontend_tools: [{ name: "pick_color", description: "Ask for a colour", parameters: {}, ui: "ask", handler: null, approve: false }],
      agent_context: [
        { description: "the course", preview: "week 4", length: 6, live: false },
        { description: "the sales table", preview: "", length: 0, live: true },
      ],
    });
    const { el } = await connected([], model);
    const toggle = button(el, "Show context 3");
    assert.match(toggle.textContent ?? "", /Context\s*3/);
    assert.equal(panelOf(el), null, "closed until asked for");
    toggle.click();
    await until(() => panelOf(el) !== null, "the Context panel open");
    const panel = panelOf(el) as HTMLElement;
    assert.deepEqual(itemsOf(panel, "Tools"), ["pick_color asks you Ask for a colour"]);
    assert.deepEqual(itemsOf(panel, "Context"), [
      "the course 6 characters Show the text week 4",
      "the sales table read when the next run starts",
    ]);
  });

  it("follows the traits: a live entry read by a run, tools taken away", async () => {
    const model = new FakeModel({
      frontend_tools: [{ name: "flash", description: "", parameters: {}, ui: "handler", handler: "return 1", approve: false }],
      agent_context: [{ description: "the data", preview: "", length: 0, live: true }],
    });
    const { el } = await connected([], model);
    button(el, "Show context 2").click();
    await until(() => panelOf(el) !== null, "the Context panel open");
    model.set("agent_context", [{ description: "the data", preview: "3 rows <b>x</b>", length: 15, live: true }]);
    model.set("frontend_tools", []);
    await until(
      () => /15 characters/.test(panelOf(el)?.textContent ?? "") && /No tools from the notebook/.test(panelOf(el)?.textContent ?? ""),
      "the panel showing the changed traits",
    );
    const panel = panelOf(el) as HTMLElement;
    assert.deepEqual(itemsOf(panel, "Context"), ["the data 15 characters, read at each run Show the text 3 rows <b>x</b>"]);
    assert.equal(panel.querySelector("b"), null, "a preview is text, never markup");
    assert.match(panel.textContent ?? "", /No tools from the notebook/);
  });
});
