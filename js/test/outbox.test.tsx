/** A message sent while the kernel cannot read it (a cell blocks its loop): it shows at once,
 * waiting for the kernel, until the kernel shows it; it comes back into the message box when the
 * kernel never will; and it is never sent twice. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ModelCallback } from "../src/anywidget";
import { Outbox, type ShownUser } from "../src/kernel/outbox";
import { FakeModel, until, untilSent } from "./dom";
import { connected, mount, press, textbox, type } from "./mount";

const WAITING = /waiting for the kernel…/;

const outgoing = (el: HTMLElement) => [...el.querySelectorAll(".agui-row-outgoing")] as HTMLElement[];
const userBubbles = (el: HTMLElement) => [...el.querySelectorAll(".agui-row-user:not(.agui-row-queued) .agui-bubble-user .agui-text")].map((b) => b.textContent);
const notices = (el: HTMLElement) => [...el.querySelectorAll(".agui-notice-text")].map((n) => n.textContent ?? "");
const messageBox = (el: HTMLElement) => textbox(el, "Message") as HTMLTextAreaElement;
const user = (id: string, content: string) => ({ id, role: "user", content });

function sendTyped(el: HTMLElement, text: string) {
  type(messageBox(el), text);
  press(messageBox(el), "Enter");
}

/** The front end's signals that the kernel went away. */
function restartKernel(model: FakeModel) {
  const listeners = (model as unknown as { listeners: Map<string, Set<ModelCallback>> }).listeners;
  for (const cb of [...(listeners.get("comm_live_update") ?? [])]) cb.call({ model: { comm_live: false } });
}
function closeComm(model: FakeModel) {
  const listeners = (model as unknown as { listeners: Map<string, Set<ModelCallback>> }).listeners;
  for (const cb of [...(listeners.get("comm:close") ?? [])]) cb();
}

describe("a message the kernel has not read yet", () => {
  it("shows at once in the transcript, marked as waiting for the kernel, instead of the empty chat's line", async () => {
    const { model, el } = await connected();
    assert.match(el.textContent ?? "", /No messages yet/);
    sendTyped(el, "are you there?");
    await until(() => outgoing(el).length === 1, "the message shown at once");
    assert.deepEqual(model.sentOf("send"), [{ kind: "send", text: "are you there?" }]);
    assert.equal(messageBox(el).value, "");
    const rows = outgoing(el);
    assert.equal(rows.length, 1);
    assert.match(rows[0]?.textContent ?? "", /are you there\?/);
    assert.match(rows[0]?.querySelector(".agui-waiting-tag")?.textContent ?? "", WAITING);
    assert.doesNotMatch(el.textContent ?? "", /No messages yet/);
  });

  it("is confirmed when the kernel's transcript shows it, and then shows once", async () => {
    const { model, el } = await connected([user("u0", "earlier"), { id: "a0", role: "assistant", content: "ok" }]);
    sendTyped(el, "hello");
    await until(() => outgoing(el).length === 1, "the message shown, waiting");
    model.kernel({ kind: "messages", start: 2, messages: [user("u1", "hello")] });
    await until(() => outgoing(el).length === 0, "the waiting bubble gives way to the kernel's message");
    assert.deepEqual(userBubbles(el), ["earlier", "hello"]);
  });

  it("is confirmed when the kernel queues it behind a run", async () => {
    const { model, el } = await connected([user("u0", "first")]);
    model.set("status", "running");
    sendTyped(el, "and then?");
    await until(() => outgoing(el).length === 1, "the message shown, waiting");
    model.set("queued", [{ id: "u1", text: "and then?" }]);
    await until(() => outgoing(el).length === 0, "the waiting bubble gives way to the queued one");
    assert.match(el.querySelector(".agui-row-queued:not(.agui-row-outgoing)")?.textContent ?? "", /and then\?.*queued/);
  });

  it("is not confirmed by the snapshot answering a hello said before it", async () => {
    const model = new FakeModel();
    const { el, viewId } = mount(model);
    sendTyped(el, "early bird");
    await untilSent(model, "send");
    model.kernel({ kind: "snapshot", viewId, messages: [user("u0", "early bird")], state: {}, events: [] });
    // The transcript drawn: the kernel's copy of the text, and the message still waiting.
    await until(() => userBubbles(el).length === 1, "the snapshot shown");
    assert.equal(outgoing(el).length, 1, "that snapshot was made before the kernel read the message");
    assert.equal(messageBox(el).value, "");
    model.kernel({ kind: "messages", start: 1, messages: [user("u1", "early bird")] });
    await until(() => outgoing(el).length === 0, "confirmed by the kernel's new message");
  });

  it("comes back into the box, with a notice, when the kernel restarts", async () => {
    const { model, el } = await connected();
    sendTyped(el, "lost in transit");
    await until(() => outgoing(el).length === 1, "the message shown, waiting");
    type(messageBox(el), "typed since");
    restartKernel(model);
    await until(() => outgoing(el).length === 0, "the waiting message withdrawn");
    assert.equal(messageBox(el).value, "lost in transit\n\ntyped since");
    assert.ok(notices(el).some((n) => /lost in transit|back in the message box/.test(n)), notices(el).join(" | "));
    assert.equal(model.sentOf("send").length, 1, "nothing is sent again");
  });

  it("comes back, files and all, when the comm closes", async () => {
    const model = new FakeModel({ attachment_policy: { enabled: true, accept: ["image/*"], maxBytes: 1000, maxFiles: 3, maxTotalBytes: 1500 } });
    const { el } = await connected([], model);
    const box = messageBox(el);
    const paste = new (globalThis as any).Event("paste", { bubbles: true, cancelable: true });
    Object.defineProperty(paste, "clipboardData", { value: { files: [new File([new Uint8Array(4)], "plot.png", { type: "image/png" })], getData: () => "" } });
    box.dispatchEvent(paste);
    const held = () => el.querySelectorAll('[aria-label="Attached to the next message"] [role="listitem"]').length;
    await until(() => held() === 1, "the pasted file held");
    sendTyped(el, "see the plot");
    await untilSent(model, "send");
    await until(() => outgoing(el).length === 1, "the message shown, waiting");
    assert.match(outgoing(el)[0]?.textContent ?? "", /see the plot.*plot\.png.*waiting for the kernel/s);
    assert.equal(held(), 0);
    closeComm(model);
    await until(() => outgoing(el).length === 0, "the waiting message withdrawn");
    assert.equal(messageBox(el).value, "see the plot");
    assert.equal(el.querySelectorAll('[aria-label="Attached to the next message"] [role="listitem"]').length, 1, "the file is held again");
    assert.equal(notices(el).length, 1);
  });

  it("comes back when the kernel refuses it", async () => {
    const { model, el } = await connected();
    sendTyped(el, "too much");
    await until(() => outgoing(el).length === 1, "the message shown, waiting");
    model.kernel({ kind: "notice", level: "warning", text: "send: the file is too large" });
    await until(() => outgoing(el).length === 0, "the waiting message withdrawn");
    assert.equal(messageBox(el).value, "too much");
  });
});

describe("sending twice", () => {
  it("needs a second message typed: Enter on the emptied box sends nothing more", async () => {
    const { model, el } = await connected();
    sendTyped(el, "once");
    press(messageBox(el), "Enter");
    press(messageBox(el), "Enter");
    await until(() => outgoing(el).length === 1, "the message shown, waiting");
    assert.equal(model.sentOf("send").length, 1);

    sendTyped(el, "once");
    await until(() => outgoing(el).length === 2, "the second message shown, waiting");
    assert.deepEqual(model.sentOf("send"), [
      { kind: "send", text: "once" },
      { kind: "send", text: "once" },
    ]);
    model.kernel({ kind: "messages", start: 0, messages: [user("u1", "once")] });
    await until(() => userBubbles(el).length === 1, "the kernel's message shown");
    assert.equal(outgoing(el).length, 1, "the kernel's message confirms one of them");
    model.kernel({ kind: "messages", start: 1, messages: [user("u2", "once")] });
    await until(() => outgoing(el).length === 0, "both confirmed");
    assert.deepEqual(userBubbles(el), ["once", "once"]);
  });

  it("never resends on a hello; a snapshot answering a later hello without it gives it back", async () => {
    const { model, el } = await connected();
    sendTyped(el, "still there?");
    await until(() => outgoing(el).length === 1, "the message shown, waiting");
    // The copy diverged: the view asks for a snapshot again.
    model.kernel({ kind: "check", count: 3, start: 0, tail: [], state: null });
    await until(() => model.sentOf("hello").length === 2, "the view said hello again");
    assert.equal(model.sentOf("send").length, 1, "the hello resent nothing");
    assert.equal(outgoing(el).length, 1);
    const viewId = String(model.sentOf("hello")[1]?.viewId);
    model.kernel({ kind: "snapshot", viewId, messages: [], state: {}, events: [] });
    await until(() => outgoing(el).length === 0, "the waiting message withdrawn");
    assert.equal(messageBox(el).value, "still there?");
    assert.equal(model.sentOf("send").length, 1);
  });

  it("a snapshot answering a later hello that holds it confirms it", async () => {
    const { model, el } = await connected();
    sendTyped(el, "in the snapshot");
    model.kernel({ kind: "check", count: 3, start: 0, tail: [], state: null });
    await until(() => model.sentOf("hello").length === 2, "the view said hello again");
    const viewId = String(model.sentOf("hello")[1]?.viewId);
    model.kernel({ kind: "snapshot", viewId, messages: [user("u1", "in the snapshot")], state: {}, events: [] });
    await until(() => userBubbles(el).length === 1, "the snapshot's message shown");
    assert.equal(outgoing(el).length, 0);
    assert.equal(messageBox(el).value, "");
    assert.deepEqual(userBubbles(el), ["in the snapshot"]);
    assert.deepEqual(notices(el), []);
  });
});

describe("the outbox", () => {
  it("matches the kernel's new user messages to waiting ones by text, oldest first, ignoring others", () => {
    let shown: ShownUser[] | null = null;
    const notes: string[] = [];
    const box = new Outbox(
      () => shown,
      (n) => notes.push(n.text),
    );
    box.add("a", [], 1);
    box.add("b", [], 1);
    box.add("a", [], 1);
    shown = [{ id: "old", text: "a" }];
    box.check();
    assert.equal(box.list().length, 3, "what the kernel showed before it read them confirms none");
    shown = [...shown, { id: "x", text: "from a cell" }, { id: "n1", text: "a" }, { id: "n2", text: "b" }];
    box.check();
    assert.deepEqual(
      box.list().map((m) => [m.text, m.key]),
      [["a", 3]],
    );
    box.lost();
    assert.deepEqual(
      box.takeReturned().map((m) => m.text),
      ["a"],
    );
    assert.deepEqual(box.takeReturned(), []);
    assert.equal(notes.length, 1);
  });
});
