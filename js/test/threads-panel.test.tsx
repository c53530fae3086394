/** The threads panel: opened from the toolbar (or by /threads), it asks the kernel for the store's
 * threads and lists them with title, last activity and message count, the current one marked;
 * each can be switched to, renamed in place (Enter saves, Escape cancels) or deleted after a
 * confirmation in its row, and "New thread" starts one. The list follows the kernel's later
 * lists; while a run is active the controls are disabled and the panel says why. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fullDate, messageCount, relativeTime, titleOf } from "../src/logic/threads";
import { WHY_BUSY } from "../src/view/ThreadsPanel";
import { doc, FakeModel, until, untilSent } from "./dom";
import { button, connected, press, textbox, type } from "./mount";

const NOW = Date.now() / 1000;
const THREADS = [
  { threadId: "t2", title: "About dogs", updatedAt: NOW - 5 * 60, messages: 4, named: false },
  { threadId: "t1", title: "Cats, mostly", updatedAt: NOW - 3 * 86400, messages: 1, named: true },
];

const panelOf = (el: Element) => el.querySelector('section[aria-label="Threads"]') as HTMLElement | null;
const rows = (el: Element) => [...(panelOf(el)?.querySelectorAll(".agui-thread") ?? [])] as HTMLElement[];
const rowText = (row: Element) =>
  [...row.querySelectorAll(".agui-thread-title, .agui-thread-badge, .agui-thread-meta")].map((part) => part.textContent?.trim()).join(" ");
const editor = async (el: Element, title: string) => {
  await until(() => el.querySelector(`input[aria-label="New title for ${title}"]`) !== null, `the editor of ${title}`);
  return textbox(el, `New title for ${title}`) as HTMLInputElement;
};
const confirmation = async (el: Element, title: string) => {
  const selector = `[role="group"][aria-label="Delete ${title}?"]`;
  await until(() => el.querySelector(selector) !== null, `the confirmation for ${title}`);
  return el.querySelector(selector) as HTMLElement;
};

/** A chat whose threads panel is open and answered with `threads` (current: t2). */
async function openPanel(traits: Record<string, unknown> = {}) {
  const view = await connected([], new FakeModel({ thread_id: "t2", ...traits }));
  button(view.el, "Show threads").click();
  const [asked] = await untilSent(view.model, "threads");
  view.model.kernel({ kind: "threads", requestId: asked?.requestId, current: "t2", threads: THREADS });
  await until(() => rows(view.el).length === 2, "two threads listed");
  return view;
}

describe("the threads panel's words", () => {
  it("says how long ago, with the full date for a tooltip, and counts messages", () => {
    assert.equal(relativeTime(NOW - 10, NOW), "just now");
    assert.equal(relativeTime(NOW - 5 * 60, NOW), "5 min ago");
    assert.equal(relativeTime(NOW - 3 * 3600, NOW), "3 h ago");
    assert.equal(relativeTime(NOW - 30 * 3600, NOW), "yesterday");
    assert.equal(relativeTime(NOW - 4 * 86400, NOW), "4 days ago");
    assert.equal(relativeTime(NOW + 60, NOW), "just now", "a clock ahead of ours");
    assert.match(relativeTime(NOW - 40 * 86400, NOW), /\d{4}/, "older: the date");
    assert.match(fullDate(NOW), /\d{4}/);
    assert.equal(messageCount(1), "1 message");
    assert.equal(messageCount(0), "0 messages");
    assert.equal(titleOf("  "), "New thread");
  });
});

describe("the threads panel", () => {
  it("opens from the toolbar, asks the kernel once, and lists the threads with the current one marked", async () => {
    const { el, model } = await openPanel();
    assert.equal(button(el, "Show threads").getAttribute("aria-pressed"), "true");
    assert.equal(model.sentOf("threads").length, 1);
    const [dogs, cats] = rows(el) as [HTMLElement, HTMLElement];
    assert.match(rowText(dogs), /^About dogs current 5 min ago · 4 messages$/);
    assert.match(rowText(cats), /^Cats, mostly 3 days ago · 1 message$/);
    assert.equal(button(el, "About dogs current").getAttribute("aria-current"), "true");
    const when = cats.querySelector("time") as HTMLTimeElement;
    assert.equal(when.getAttribute("title"), fullDate(THREADS[1]?.updatedAt as number), "the full date as a tooltip");
    assert.equal(when.getAttribute("datetime"), new Date((THREADS[1]?.updatedAt as number) * 1000).toISOString());
    button(el, "Show threads").click();
    await until(() => panelOf(el) === null, "the panel closed");
  });

  it("switches to a thread, starts a new one, and follows the kernel's later lists", async () => {
    const { el, model } = await openPanel();
    button(el, "Switch to Cats, mostly").click();
    assert.deepEqual(model.sentOf("switch_thread"), [{ kind: "switch_thread", threadId: "t1" }]);
    button(el, "About dogs current").click();
    assert.equal(model.sentOf("switch_thread").length, 1, "the current thread: nothing to switch to");
    button(el, "New thread").click();
    assert.deepEqual(model.sentOf("new_thread"), [{ kind: "new_thread" }]);
    model.set("thread_id", "t3");
    model.kernel({ kind: "threads", requestId: null, current: "t3", threads: [{ threadId: "t3", title: "", updatedAt: NOW, messages: 0, named: false }, ...THREADS] });
    await until(() => rows(el).length === 3, "the new thread listed");
    assert.match(rowText(rows(el)[0] as HTMLElement), /^New thread current just now · 0 messages$/);
    model.kernel({ kind: "threads", requestId: "another-view:threads:1", current: "t3", threads: [] });
    assert.equal(rows(el).length, 3, "another view's answer is not this panel's");
  });

  it("renames in place by keyboard: Enter saves, Escape cancels, the focus comes back", async () => {
    const { el, model } = await openPanel();
    const rename = button(el, "Rename Cats, mostly");
    rename.focus();
    rename.click();
    const box = await editor(el, "Cats, mostly");
    assert.equal(doc.activeElement, box);
    assert.equal(box.value, "Cats, mostly");
    type(box, "Felines");
    press(box, "Escape");
    await until(() => doc.activeElement === button(el, "Rename Cats, mostly"), "the focus back on Rename");
    assert.equal(model.sentOf("rename_thread").length, 0, "Escape sends nothing");
    button(el, "Rename Cats, mostly").click();
    const again = await editor(el, "Cats, mostly");
    type(again, "  Felines   and more ");
    press(again, "Enter");
    assert.deepEqual(model.sentOf("rename_thread"), [{ kind: "rename_thread", threadId: "t1", title: "Felines and more" }]);
    await until(() => doc.activeElement === button(el, "Rename Cats, mostly"), "the focus back on Rename");
    button(el, "Rename About dogs").click();
    press(await editor(el, "About dogs"), "Enter");
    assert.equal(model.sentOf("rename_thread").length, 1, "an unchanged title sends nothing");
  });

  it("deletes only after a confirmation in the row, which Escape cancels", async () => {
    const { el, model } = await openPanel();
    button(el, "Delete Cats, mostly").click();
    const group = await confirmation(el, "Cats, mostly");
    await until(() => doc.activeElement === button(group, "Cancel"), "the focus on Cancel");
    press(group, "Escape");
    await until(() => doc.activeElement === button(el, "Delete Cats, mostly"), "the focus back on Delete");
    assert.equal(model.sentOf("delete_thread").length, 0);
    button(el, "Delete About dogs").click();
    assert.match((await confirmation(el, "About dogs")).textContent ?? "", /goes on in a new one/, "the current thread says what follows");
    button(el, "Yes, delete").click();
    assert.deepEqual(model.sentOf("delete_thread"), [{ kind: "delete_thread", threadId: "t2" }]);
    await until(() => doc.activeElement === button(el, "New thread"), "the focus on New thread");
  });

  it("while a run is active, the controls are disabled and the panel says why", async () => {
    const { el, model } = await openPanel();
    button(el, "Rename Cats, mostly").click();
    await editor(el, "Cats, mostly");
    model.set("status", "running");
    await until(() => (panelOf(el)?.textContent ?? "").includes(WHY_BUSY), "the reason shown");
    assert.equal(el.querySelector('input[aria-label="New title for Cats, mostly"]'), null, "the editor closed");
    for (const name of ["New thread", "Switch to Cats, mostly", "Rename Cats, mostly", "Delete Cats, mostly"]) {
      const control = button(el, name);
      assert.equal(control.disabled, true, `${name} disabled`);
      assert.equal(doc.getElementById(control.getAttribute("aria-describedby") ?? "")?.textContent, WHY_BUSY, `${name} says why`);
    }
    model.set("status", "idle");
    await until(() => !button(el, "New thread").disabled, "enabled again once the run ends");
  });

  it("/threads in the message box opens the panel instead of asking the kernel for a table", async () => {
    const view = await connected([], new FakeModel({ commands: [{ name: "threads", description: "List the threads in the store" }] }));
    const box = textbox(view.el, "Message") as HTMLTextAreaElement;
    type(box, "/threads");
    press(box, "Enter");
    await until(() => panelOf(view.el) !== null, "the panel open");
    assert.equal(view.model.sentOf("command").length, 0);
    assert.equal(doc.activeElement, panelOf(view.el), "the focus in the panel");
    assert.equal(box.value, "");
  });
});
