/** The chat from the keyboard: editing any user message (the box in view, focused, the transcript
 * staying put), where the focus goes after Regenerate, Retry and "Save and send", undo and redo in
 * the text boxes, and the empty chat's hint for the demo agent. */
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import type { ToolSpec } from "../src/kernel/wire";
import { doc, FakeModel } from "./dom";
import { button, connected, idle, maybeButton, press, textbox, type, until } from "./mount";

const conversation = [
  { id: "u1", role: "user", content: "first question" },
  { id: "a1", role: "assistant", content: "first answer" },
  { id: "u2", role: "user", content: "second question" },
  { id: "a2", role: "assistant", content: "second answer" },
];

const messageBox = (el: HTMLElement) => textbox(el, "Message") as HTMLTextAreaElement;
const editBox = (el: HTMLElement) => textbox(el, "Edited message") as HTMLTextAreaElement;
const editButtonOf = (el: HTMLElement, id: string) => button(el.querySelector(`[data-row="${id}"]`) as HTMLElement, "Edit message");

/** The elements scrolled into view. jsdom lays nothing out and has no scrollIntoView: here it
 * brings the element to the top of the transcript's box, as a browser would above a long answer. */
const scrolled: Element[] = [];
const proto = (globalThis as unknown as { window: { HTMLElement: typeof HTMLElement } }).window.HTMLElement.prototype;
beforeEach(() => {
  scrolled.length = 0;
  proto.scrollIntoView = function (this: Element) {
    scrolled.push(this);
    const box = this.closest(".agui-scroll");
    if (box) box.scrollTop = 0;
  };
});

/** Gives the transcript's box 2000 px of content in 200 px, scrolled to its end. */
function tallTranscript(el: HTMLElement): HTMLElement {
  const box = el.querySelector(".agui-scroll") as HTMLElement;
  let top = 1800;
  Object.defineProperty(box, "clientHeight", { configurable: true, get: () => 200 });
  Object.defineProperty(box, "scrollHeight", { configurable: true, get: () => 2000 });
  Object.defineProperty(box, "scrollTop", { configurable: true, get: () => top, set: (v: number) => (top = Math.min(1800, Math.max(0, v))) });
  return box;
}
afterEach(() => {
  delete (proto as { scrollIntoView?: unknown }).scrollIntoView;
});

describe("editing a message", () => {
  it("offers Edit on every user message", async () => {
    const { el } = await connected(conversation);
    editButtonOf(el, "u1");
    editButtonOf(el, "u2");
    assert.equal(el.querySelectorAll('button[aria-label="Edit message"]').length, 2);
  });

  it("opens the box in view and focused, and the transcript stops following the end", async () => {
    const { el } = await connected(conversation);
    const scroller = tallTranscript(el);
    assert.equal(maybeButton(el, "Jump to latest ↓"), null, "the chat follows the end at first");
    const edit = editButtonOf(el, "u2");
    edit.focus();
    edit.click(); // what Enter on a focused button does
    await until(() => doc.activeElement === el.querySelector('textarea[aria-label="Edited message"]'), "the edit box focused");
    const box = editBox(el);
    assert.deepEqual(scrolled, [box], "the edit box is scrolled into view");
    el.querySelector(".agui-transcript")?.appendChild(doc.createElement("p")); // the transcript changes
    await idle(); // the follower hears of it (a mutation observer) and the view re-renders, if it would
    assert.equal(scroller.scrollTop, 0, "the transcript did not jump to its end");
    button(el, "Jump to latest ↓");
  });

  it("edits an earlier message: the run starts from it, and the keyboard goes to the message box", async () => {
    const { model, el } = await connected(conversation);
    editButtonOf(el, "u1").click();
    await until(() => doc.activeElement === el.querySelector('textarea[aria-label="Edited message"]'), "the edit box focused");
    const box = editBox(el);
    assert.equal(box.value, "first question");
    type(box, "first question, reworded");
    press(box, "Enter");
    assert.deepEqual(model.sentOf("edit"), [{ kind: "edit", messageId: "u1", text: "first question, reworded" }]);
    assert.equal(doc.activeElement, messageBox(el));
  });

  it("offers no Edit while a run is active", async () => {
    const { model, el } = await connected(conversation);
    model.set("status", "running");
    await until(() => maybeButton(el, "Edit message") === null, "no Edit while the run is active");
  });
});

describe("the focus after a button that starts a run", () => {
  it("is in the message box after Regenerate", async () => {
    const { model, el } = await connected(conversation);
    const regenerate = button(el, "Regenerate");
    regenerate.focus();
    regenerate.click();
    assert.deepEqual(model.sentOf("regenerate"), [{ kind: "regenerate" }]);
    assert.equal(doc.activeElement, messageBox(el));
  });

  it("is in the message box after Retry", async () => {
    const model = new FakeModel({ status: "error", error: "It broke" });
    const { el } = await connected(conversation, model);
    const retry = button(el, "Retry");
    retry.focus();
    retry.click();
    assert.equal(doc.activeElement, messageBox(el));
  });
});

describe("undo and redo in the text boxes", () => {
  const commands: string[] = [];
  let answer = true;
  const original = doc.execCommand;
  beforeEach(() => {
    commands.length = 0;
    answer = true;
    doc.execCommand = (command: string) => {
      commands.push(command);
      return answer;
    };
  });
  afterEach(() => {
    doc.execCommand = original;
  });

  /** Presses keys in `box`; returns whether each was cancelled, and the keys the document saw. */
  function pressAll(box: HTMLElement, keys: Array<[string, KeyboardEventInit]>) {
    const reached: string[] = [];
    const listener = (e: Event) => reached.push((e as KeyboardEvent).key);
    doc.addEventListener("keydown", listener);
    try {
      return { cancelled: keys.map(([key, init]) => press(box, key, init).defaultPrevented), reached };
    } finally {
      doc.removeEventListener("keydown", listener);
    }
  }

  const KEYS: Array<[string, KeyboardEventInit]> = [
    ["z", { ctrlKey: true }],
    ["Z", { ctrlKey: true, shiftKey: true }],
    ["z", { metaKey: true }],
    ["z", { metaKey: true, shiftKey: true }],
    ["y", { ctrlKey: true }],
  ];

  it("does them in the message box, where the notebook never sees the keys", async () => {
    const { el } = await connected();
    const box = messageBox(el);
    box.focus();
    const { cancelled, reached } = pressAll(box, KEYS);
    assert.deepEqual(commands, ["undo", "redo", "undo", "redo", "redo"]);
    assert.deepEqual(cancelled, [true, true, true, true, true], "the browser's own undo (which JupyterLab cancels) does not run as well");
    assert.deepEqual(reached, []);
  });

  it("does them in the edit box", async () => {
    const { el } = await connected(conversation);
    editButtonOf(el, "u1").click();
    await until(() => el.querySelector('textarea[aria-label="Edited message"]') !== null, "the edit box");
    const { cancelled, reached } = pressAll(editBox(el), KEYS.slice(0, 2));
    assert.deepEqual(commands, ["undo", "redo"]);
    assert.deepEqual(cancelled, [true, true]);
    assert.deepEqual(reached, []);
  });

  it("leaves the key to the browser when there is nothing to undo", async () => {
    const { el } = await connected();
    answer = false;
    const { cancelled, reached } = pressAll(messageBox(el), [["z", { ctrlKey: true }]]);
    assert.deepEqual(commands, ["undo"]);
    assert.deepEqual(cancelled, [false]);
    assert.deepEqual(reached, []);
  });
});

describe("the empty chat's hint", () => {
  const accent: ToolSpec = {
    name: "set_accent_color",
    description: "Change the chat's accent colour. Takes any CSS colour.",
    parameters: {},
    ui: "handler",
    handler: "ctx.setAccent(args.color); return { ok: true, color: args.color };",
    approve: false,
  };
  const hint = async (traits: Record<string, unknown>) => {
    const { el } = await connected([], new FakeModel(traits));
    return el.querySelector(".agui-empty")?.textContent ?? "";
  };

  it("says the demo agent answers help", async () => {
    assert.match(await hint({ frontend_tools: [accent] }), /No messages yet\. .*The demo agent answers help/);
  });

  it("says nothing of help for another agent", async () => {
    assert.doesNotMatch(await hint({}), /help/);
    assert.doesNotMatch(await hint({ frontend_tools: [{ ...accent, handler: "return 1;" }] }), /help/);
    assert.doesNotMatch(await hint({ frontend_tools: [accent], agent_names: ["demo", "other"], agent_name: "other" }), /help/);
  });
});
