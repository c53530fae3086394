/** A thumbs up or down under each finished answer, and an optional comment: the view asks the
 * kernel (`feedback`), which keeps the rating in the answer's metadata; the buttons show what the
 * kernel kept (aria-pressed), a rating can be changed or withdrawn, and the comment box takes
 * Enter (send) and Escape (close, the focus back on the rating). */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { doc } from "./dom";
import { button, connected, maybeButton, press, textbox, type, until } from "./mount";

const QUESTION = { id: "u1", role: "user", content: "weather in Paris?" };
const ANSWER = { id: "a1", role: "assistant", content: "Sunny, 21°C." };

function rated(rating: "up" | "down" | null, comment?: string) {
  if (rating === null) return ANSWER;
  return { ...ANSWER, metadata: { agui_widget: { feedback: comment ? { rating, comment } : { rating } } } };
}

/** What the kernel does with a `feedback` request: the answer, marked, goes to every view. */
function kernelKeeps(model: { kernel: (content: unknown) => void }, rating: "up" | "down" | null, comment?: string) {
  model.kernel({ kind: "messages", start: 1, messages: [rated(rating, comment)] });
}

const pressed = (el: HTMLElement, name: string) => button(el, name).getAttribute("aria-pressed");
const COMMENT = "Comment on this answer (optional)";
const commentBox = (el: HTMLElement) => el.querySelector(`input[aria-label="${COMMENT}"]`) as HTMLInputElement | null;

describe("feedback on an answer", () => {
  it("offers Good answer and Bad answer under a finished answer, not under the user's message", async () => {
    const { el } = await connected([QUESTION, ANSWER]);
    const row = el.querySelector('[data-row="a1"]') as HTMLElement;
    assert.equal(pressed(row, "Good answer"), "false");
    assert.equal(pressed(row, "Bad answer"), "false");
    assert.equal(maybeButton(el.querySelector('[data-row="u1"]') as HTMLElement, "Good answer"), null);
    assert.equal(row.querySelector('[role="group"]')?.getAttribute("aria-label"), "Rate this answer");
  });

  it("a click asks the kernel, shows what the kernel kept, and opens the comment box; Enter sends the comment", async () => {
    const { model, el } = await connected([QUESTION, ANSWER]);
    button(el, "Good answer").click();
    assert.deepEqual(model.sentOf("feedback"), [{ kind: "feedback", messageId: "a1", rating: "up", comment: null }]);
    kernelKeeps(model, "up");
    await until(() => pressed(el, "Good answer") === "true" && commentBox(el) !== null, "the rating shown and the comment box open");
    assert.equal(pressed(el, "Bad answer"), "false");
    assert.equal(doc.activeElement, commentBox(el), "the keyboard is in the comment box");
    const box = textbox(el, COMMENT);
    assert.equal(box.maxLength, 2000);
    type(box, "  just what I needed  ");
    press(box, "Enter");
    assert.deepEqual(model.sentOf("feedback")[1], { kind: "feedback", messageId: "a1", rating: "up", comment: "just what I needed" });
    kernelKeeps(model, "up", "just what I needed");
    await until(() => commentBox(el) === null, "the box closed");
    assert.equal(doc.activeElement, button(el, "Good answer"), "the focus back on the rating");
    button(el, "Change the comment: just what I needed");
  });

  it("Escape closes the comment box without sending, and the rating stays", async () => {
    const { model, el } = await connected([QUESTION, ANSWER]);
    button(el, "Bad answer").click();
    kernelKeeps(model, "down");
    await until(() => commentBox(el) !== null, "the comment box open");
    press(commentBox(el) as HTMLInputElement, "Escape");
    await until(() => commentBox(el) === null, "the box closed");
    assert.equal(doc.activeElement, button(el, "Bad answer"));
    assert.equal(model.sentOf("feedback").length, 1);
    assert.equal(pressed(el, "Bad answer"), "true");
  });

  it("a rating can be changed (the comment goes with it) or withdrawn by pressing it again", async () => {
    const { model, el } = await connected([QUESTION, rated("up", "nice")]);
    assert.equal(pressed(el, "Good answer"), "true", "a rating kept in the transcript shows after a reload");
    button(el, "Bad answer").click();
    assert.deepEqual(model.sentOf("feedback")[0], { kind: "feedback", messageId: "a1", rating: "down", comment: "nice" });
    kernelKeeps(model, "down", "nice");
    await until(() => pressed(el, "Bad answer") === "true", "the new rating shown");
    button(el, "Bad answer").click();
    assert.deepEqual(model.sentOf("feedback")[1], { kind: "feedback", messageId: "a1", rating: null });
    kernelKeeps(model, null);
    await until(() => pressed(el, "Bad answer") === "false" && commentBox(el) === null, "the rating withdrawn");
    assert.equal(pressed(el, "Good answer"), "false");
  });

  it("while the agent answers, the buttons wait (disabled) and nothing is sent", async () => {
    const { model, el } = await connected([QUESTION, ANSWER]);
    model.set("status", "running");
    await until(() => button(el, "Good answer").disabled, "the buttons disabled during a run");
    button(el, "Good answer").click();
    assert.equal(model.sentOf("feedback").length, 0);
    model.set("status", "idle");
    await until(() => !button(el, "Good answer").disabled, "the buttons back after the run");
  });
});
