/** Clear's confirmation: it says the shared state is kept, offers to reset it too, and leaves the
 * focus in the message box. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { doc } from "./dom";
import { button, connected, maybeButton, press, textbox, until } from "./mount";

const conversation = [
  { id: "u1", role: "user", content: "a question" },
  { id: "a1", role: "assistant", content: "an answer" },
];

async function confirming() {
  const view = await connected(conversation, undefined, { step: 2 });
  button(view.el, "Clear conversation").click();
  await until(() => view.el.querySelector(".agui-confirm") !== null, "clear's confirmation");
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
    await until(() => doc.activeElement === el.querySelector('textarea[aria-label="Message"]'), "the focus in the message box, not on the page");
  });

  it("Clear and reset state asks the kernel to reset the state, and puts the focus in the message box", async () => {
    const { model, el } = await confirming();
    button(el, "Clear and reset state").click();
    assert.deepEqual(model.sentOf("clear"), [{ kind: "clear", resetState: true }]);
    model.kernel({ kind: "messages", start: 0, messages: [] });
    await until(() => maybeButton(el, "Clear and reset state") === null, "the confirmation gone");
    assert.equal(doc.activeElement, textbox(el, "Message"));
  });

  it("Cancel and Escape send nothing and give the focus back to Clear", async () => {
    const { model, el } = await confirming();
    const clear = () => maybeButton(el, "Clear conversation");
    button(el, "Cancel").click();
    await until(() => clear() !== null && doc.activeElement === clear(), "the focus back on Clear after Cancel");
    button(el, "Clear conversation").click();
    await until(() => maybeButton(el, "Clear and reset state") !== null, "clear's confirmation again");
    press(button(el, "Clear and reset state"), "Escape");
    await until(() => clear() !== null && doc.activeElement === clear(), "the focus back on Clear after Escape");
    assert.equal(model.sentOf("clear").length, 0);
  });
});
