/** ‹ 1 / 2 ›: the versions a Regenerate or an Edit kept. The kernel says where the branch shown
 * forks (the `branch_points` trait); the view draws "n / m" with Previous and Next under the
 * answer (a regenerated one) or the user's message (an edited one), asks the kernel for another
 * version (`branch`), keeps the keyboard on the controls across the switch, and offers no switch
 * during a run. Edit is offered on every user message. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { doc } from "./dom";
import { button, connected, maybeButton, until } from "./mount";

const Q1 = { id: "u1", role: "user", content: "weather in Paris?" };
const A1 = { id: "a1", role: "assistant", content: "Sunny, 21°C." };
const A1b = { id: "a1b", role: "assistant", content: "Clear skies, 21°C." };
const Q2 = { id: "u2", role: "user", content: "and tomorrow?" };
const A2 = { id: "a2", role: "assistant", content: "Rain." };
const Q1e = { id: "u1e", role: "user", content: "weather in Rome?" };
const A1e = { id: "a1e", role: "assistant", content: "Warm." };

type Point = { parentId: string | null; messageId: string | null; kind: "answer" | "edit"; index: number; count: number; at: string | null };

const answerPoint = (index: number, at: string): Point => ({ parentId: "u1", messageId: at, kind: "answer", index, count: 2, at });
const row = (el: HTMLElement, id: string) => el.querySelector(`[data-row="${id}"]`) as HTMLElement;
const countIn = (el: HTMLElement) => el.querySelector(".agui-branch-count")?.textContent?.replace(/\s+/g, " ").trim() ?? null;

describe("branches: the versions Regenerate and Edit kept", () => {
  it("shows '2 / 2' with Previous answer and Next answer under a regenerated answer, and asks for the other", async () => {
    const { model, el } = await connected([Q1, A1b]);
    model.set("branch_points", [answerPoint(1, "a1b")]);
    await until(() => countIn(row(el, "a1b")) === "2 / 2", "the count under the answer");
    assert.equal(countIn(row(el, "u1")), null, "nothing under the question");
    const group = row(el, "a1b").querySelector(".agui-branch") as HTMLElement;
    assert.equal(group.getAttribute("role"), "group");
    assert.equal(group.getAttribute("aria-label"), "Answer 2 of 2");
    assert.equal(button(group, "Next answer").disabled, true, "no version after the last");
    button(group, "Previous answer").click();
    assert.deepEqual(model.sentOf("branch"), [{ kind: "branch", parentId: "u1", index: 0 }]);
    // The kernel shows the first answer: a splice, and the trait.
    model.kernel({ kind: "messages", start: 1, messages: [A1] });
    model.set("branch_points", [answerPoint(0, "a1")]);
    await until(() => countIn(row(el, "a1") ?? el) === "1 / 2", "the first answer with its count");
    assert.match(row(el, "a1").textContent ?? "", /Sunny/);
    assert.equal(button(row(el, "a1"), "Previous answer").disabled, true);
  });

  it("keeps the keyboard on the controls when the answer under them is replaced", async () => {
    const { model, el } = await connected([Q1, A1b]);
    model.set("branch_points", [answerPoint(1, "a1b")]);
    await until(() => maybeButton(el, "Previous answer") !== null, "the controls");
    const previous = button(el, "Previous answer");
    previous.focus();
    previous.click();
    model.kernel({ kind: "messages", start: 1, messages: [A1] });
    model.set("branch_points", [answerPoint(0, "a1")]);
    // Previous is disabled at 1 / 2: the keyboard goes to Next, in the new answer's row.
    await until(() => doc.activeElement === maybeButton(row(el, "a1") ?? el, "Next answer"), "the focus on Next answer");
  });

  it("shows 'Previous version' and 'Next version' under an edited message, and forks from any user message", async () => {
    const { model, el } = await connected([Q1e, A1e]);
    model.set("branch_points", [{ parentId: null, messageId: "u1e", kind: "edit", index: 1, count: 2, at: "u1e" }]);
    await until(() => countIn(row(el, "u1e")) === "2 / 2", "the count under the edited message");
    const group = row(el, "u1e").querySelector(".agui-branch") as HTMLElement;
    assert.equal(group.getAttribute("aria-label"), "Version 2 of 2");
    button(group, "Previous version").click();
    assert.deepEqual(model.sentOf("branch"), [{ kind: "branch", parentId: null, index: 0 }]);
    model.kernel({ kind: "messages", start: 0, messages: [Q1, A1, Q2, A2] });
    model.set("branch_points", [{ parentId: null, messageId: "u1", kind: "edit", index: 0, count: 2, at: "u1" }]);
    await until(() => countIn(row(el, "u1") ?? el) === "1 / 2", "the first version");
    // Both user messages, not only the last, offer Edit.
    assert.ok(maybeButton(row(el, "u1"), "Edit message"), "the first message can be edited");
    assert.ok(maybeButton(row(el, "u2"), "Edit message"), "the last one too");
  });

  it("offers no switch during a run, and the controls come back after it", async () => {
    const { model, el } = await connected([Q1, A1b]);
    model.set("branch_points", [answerPoint(1, "a1b")]);
    await until(() => countIn(el) === "2 / 2", "the controls");
    model.set("status", "running");
    await until(() => countIn(el) === null, "no controls during the run");
    model.set("status", "idle");
    await until(() => countIn(el) === "2 / 2", "the controls back");
  });

  it("an answer with no versions shows no controls, and a malformed trait is ignored", async () => {
    const { model, el } = await connected([Q1, A1]);
    assert.equal(countIn(el), null);
    model.set("branch_points", [{ parentId: "u1", index: "one" }]);
    await until(() => row(el, "a1") !== null, "the transcript still shown");
    assert.equal(countIn(el), null);
  });
});
