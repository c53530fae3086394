/** Clear's confirmation: it says the shared state is kept, offers to reset it too, and leaves the
 * focus in the message box. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { doc } from "./dom";
import { button, connected, maybeButton, press, settle, textbox } from "./mount";

const conversation = [
  { id: "u1", role: "user", content: "a question" },
  { id: "a1", role: "assistant", content: "an answer" },
];

async function confirming() {
  const view = await connected(conversation, undefined, { step: 2 });
  button(view.el, "Clear conversation").click();
  await settle();
  return view;
}

describe("clear's confirmation", () => {
  it("says that the shared state is kept, and offers to reset it", async () => {
    const { el } = await confirming();
    assert.match(el.querySelector(".agui-confirm")?.textContent ?? "", /Clear the whole conversation\? The shared state is kept\./);
    for (const name of ["Yes, clear", "Clear and reset state", "Cancel"]) button(el, name);
    assert.equal(doc.activeElement, button(el, "Cancel"), "Cancel is the safe default");
  });

  it("Yes, clear keeps the state and puts the focus in the message box", async () => {
    const { model, el } = await confirming();
    button(el, "Yes, clear").click();
    assert.deepEqual(model.sentOf("clear"), [{ kind: "clear" }]);
    model.kernel({ kind: "messages", start: 0, messages: [] });
    await settle();
    assert.equal(doc.activeElement, textbox(el, "Message"), "the focus should be in the message box, not on the page");
  });

  it("Clear and reset state asks the kernel to reset the state, and puts the focus in the message box", async () => {
    const { model, el } = await confirming();
    button(el, "Clear and reset state").click();
    assert.deepEqual(model.sentOf("clear"), [{ kind: "clear", resetState: true }]);
    model.kernel({ kind: "messages", start: 0, messages: [] });
    await settle();
    assert.equal(maybeButton(el, "Clear and reset state"), null, "the confirmation is gone");
    assert.equal(doc.activeElement, textbox(el, "Message"));
  });

  it("Cancel and Escape send nothing and give the focus back to Clear", async () => {
    const { model, el } = await confirming();
    button(el, "Cancel").click();
    await settle();
    assert.equal(doc.activeElement, button(el, "Clear conversation"));
    button(el, "Clear conversation").click();
    await settle();
    press(button(el, "Clear and reset state"), "Escape");
    await settle();
    assert.equal(doc.activeElement, button(el, "Clear conversation"));
    assert.equal(model.sentOf("clear").length, 0);
  });
});
