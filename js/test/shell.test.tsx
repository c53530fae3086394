/** The chat's shell: following the end of a scroll box, the Jump button, the chat's height and
 * resize handle, the panels' place, the event inspector's RUN_ERROR, the state panel's editors.
 * jsdom has no layout: the scroll boxes get a geometry of their own here. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { doc, FakeModel, idle, until, untilSent } from "./dom";
import { ev } from "./helpers";
import { button, connected, maybeButton, press, textbox, type } from "./mount";
import { familyOf } from "../src/view/EventInspector";
import { ScrollFollower } from "../src/view/follow";
import { KEY_STEP, MIN_HEIGHT } from "../src/view/ResizeHandle";

const win = (globalThis as unknown as { window: Window & typeof globalThis }).window;

/** Gives `box` a scroll geometry: `content()` px of content in `client` px of box. */
function geometry(box: HTMLElement, content: () => number, client = 200) {
  let top = 0;
  const max = () => Math.max(0, content() - client);
  Object.defineProperty(box, "clientHeight", { configurable: true, get: () => client });
  Object.defineProperty(box, "scrollHeight", { configurable: true, get: () => Math.max(content(), client) });
  Object.defineProperty(box, "scrollTop", {
    configurable: true,
    get: () => top,
    set: (value: number) => {
      top = Math.min(max(), Math.max(0, value));
    },
  });
  return { max };
}

function scrollBox(contentHeight: { value: number }) {
  const box = doc.createElement("div");
  const content = doc.createElement("div");
  box.appendChild(content);
  doc.body.appendChild(box);
  const { max } = geometry(box, () => contentHeight.value);
  const changes: boolean[] = [];
  const follower = new ScrollFollower(box, content, (following) => changes.push(following));
  const detach = follower.attach();
  return { box, content, follower, changes, max, detach };
}

const scrolled = (box: HTMLElement) => box.dispatchEvent(new win.Event("scroll"));
const wheel = (target: Element, deltaY: number) => target.dispatchEvent(new win.WheelEvent("wheel", { deltaY, bubbles: true }));

describe("following the end of a scroll box", () => {
  it("starts at the end, and a scroll event of its own jump never stops it, however late", () => {
    const height = { value: 1000 };
    const { box, follower, changes, detach } = scrollBox(height);
    assert.equal(box.scrollTop, 800);
    // The box jumped to the end; its scroll event comes after the content grew again.
    height.value = 2500;
    scrolled(box);
    assert.equal(follower.isFollowing, true);
    assert.deepEqual(changes, []);
    detach();
  });

  it("follows the content as it grows", async () => {
    const height = { value: 1000 };
    const { box, content, detach } = scrollBox(height);
    height.value = 1600;
    content.appendChild(doc.createElement("p"));
    await until(() => box.scrollTop === 1400, "the box at the grown content's end");
    detach();
  });

  it("stops at a wheel turn up, at once, and follows again at the end", () => {
    const height = { value: 1000 };
    const { box, follower, changes, max, detach } = scrollBox(height);
    wheel(box, -100);
    assert.equal(follower.isFollowing, false, "before the scroll even happens");
    box.scrollTop = 700;
    scrolled(box);
    height.value = 1400;
    scrolled(box);
    assert.equal(box.scrollTop, 700, "the box stays where the user is");
    box.scrollTop = max();
    scrolled(box);
    assert.equal(follower.isFollowing, true);
    assert.deepEqual(changes, [false, true]);
    detach();
  });

  it("takes scroll keys as the user's, except in a text field; Space only on the box itself", () => {
    const height = { value: 1000 };
    const { box, content, follower, detach } = scrollBox(height);
    const field = doc.createElement("textarea");
    const action = doc.createElement("button");
    content.append(field, action);
    press(field, "ArrowUp");
    press(field, "PageUp");
    press(action, " ", { shiftKey: true });
    assert.equal(follower.isFollowing, true, "keys typed in a field or pressing a button do not scroll the box");
    press(action, "PageUp");
    assert.equal(follower.isFollowing, false);
    follower.follow();
    assert.equal(follower.isFollowing, true);
    assert.equal(box.scrollTop, 800, "follow() goes to the end");
    press(box, " ", { shiftKey: true });
    assert.equal(follower.isFollowing, false);
    detach();
  });

  it("leaves a wheel turn to a scrolled code block inside it", () => {
    const height = { value: 1000 };
    const { box, content, follower, detach } = scrollBox(height);
    const code = doc.createElement("pre");
    code.style.overflowY = "auto";
    content.appendChild(code);
    geometry(code, () => 600, 100).max();
    code.scrollTop = 50;
    wheel(code, -100);
    assert.equal(follower.isFollowing, true, "the code block scrolls, not the box");
    code.scrollTop = 0;
    wheel(code, -100);
    assert.equal(follower.isFollowing, false, "at its top the wheel scrolls the box");
    detach();
  });

  it("takes a drag of its scrollbar as the user's, and a shrinking content as nobody's", () => {
    const height = { value: 1000 };
    const { box, follower, detach } = scrollBox(height);
    height.value = 900; // the content shrank: the browser clamps the offset, and says so
    box.scrollTop = 700;
    scrolled(box);
    assert.equal(follower.isFollowing, true);
    box.dispatchEvent(new win.MouseEvent("pointerdown", { bubbles: true }));
    box.scrollTop = 300;
    scrolled(box);
    assert.equal(follower.isFollowing, false);
    win.dispatchEvent(new win.MouseEvent("pointerup"));
    detach();
  });

  it("keeps following when content shrinks at the end just after a wheel turn down", () => {
    const height = { value: 1000 };
    const { box, follower, changes, detach } = scrollBox(height);
    wheel(box, 100); // at the end already: the notebook takes this one
    height.value = 950; // a row went away: the browser clamps the offset
    box.scrollTop = 750;
    scrolled(box);
    assert.equal(follower.isFollowing, true);
    assert.deepEqual(changes, []);
    detach();
  });

  it("does not stop when there is nothing to scroll", () => {
    const height = { value: 100 };
    const { box, follower, detach } = scrollBox(height);
    wheel(box, -100);
    press(box, "PageUp");
    assert.equal(follower.isFollowing, true);
    detach();
  });
});

const transcript = [
  { id: "u1", role: "user", content: "question" },
  { id: "a1", role: "assistant", content: "a long answer" },
];

describe("the shell", () => {
  it("shows 'Jump to latest' over the transcript after the user scrolls up, until they go back", async () => {
    const { el } = await connected(transcript);
    const box = el.querySelector(".agui-scroll") as HTMLElement;
    assert.equal(box.getAttribute("role"), "log");
    assert.equal(box.tabIndex, 0, "the keyboard can reach (and scroll) the transcript");
    geometry(box, () => 1000);
    box.scrollTop = 800; // where following put it
    assert.equal(maybeButton(el, "Jump to latest ↓"), null);
    wheel(box, -100);
    await until(() => maybeButton(el, "Jump to latest ↓") !== null, "Jump to latest shown");
    const jump = button(el, "Jump to latest ↓");
    assert.equal(jump.parentElement, box.parentElement, "it sits in the transcript's area, beside the scroll box");
    jump.click();
    await until(() => maybeButton(el, "Jump to latest ↓") === null, "Jump to latest gone");
    assert.equal(box.scrollTop, 800);
  });

  it("follows again when the user sends", async () => {
    const { el } = await connected(transcript);
    const box = el.querySelector(".agui-scroll") as HTMLElement;
    geometry(box, () => 1000);
    box.scrollTop = 800;
    wheel(box, -100);
    await until(() => maybeButton(el, "Jump to latest ↓") !== null, "Jump to latest shown");
    const message = textbox(el, "Message");
    type(message, "more");
    press(message, "Enter");
    await until(() => maybeButton(el, "Jump to latest ↓") === null, "Jump to latest gone once the user sends");
  });

  it("keeps the panels and the transcript in one box, the panels first for the keyboard", async () => {
    const { el } = await connected(transcript);
    button(el, "Show state").click();
    button(el, "Show events").click();
    await until(() => el.querySelector('[aria-label="Shared state"]') !== null && el.querySelector('[aria-label="Events"]') !== null, "both panels open");
    const main = el.querySelector(".agui-main") as HTMLElement;
    const side = main.querySelector(".agui-side") as HTMLElement;
    assert.ok(side.querySelector('[aria-label="Shared state"]') && side.querySelector('[aria-label="Events"]'));
    assert.equal(main.firstElementChild, side);
    assert.ok(main.querySelector(".agui-conversation textarea[aria-label='Message']"), "the message box is beside the panels, not under them");
  });

  it("takes its height from the trait, the resize handle, and the trait again", async () => {
    const model = new FakeModel({ height: "600px" });
    const { el } = await connected([], model);
    const shell = el.querySelector(".agui-chat") as HTMLElement;
    assert.equal(shell.style.height, "600px");
    let shown = 600;
    shell.getBoundingClientRect = () => ({ height: shown }) as DOMRect;
    const handle = el.querySelector('[role="separator"][aria-label="Resize chat"]') as HTMLElement;
    assert.equal(handle.tabIndex, 0);
    assert.equal(handle.getAttribute("aria-orientation"), "horizontal");
    const down = press(handle, "ArrowDown");
    await until(() => shell.style.height === `${600 + KEY_STEP}px`, "a step taller");
    assert.equal(down.defaultPrevented, true, "the arrow does not also scroll the notebook");
    shown = 600 + KEY_STEP;
    press(handle, "Home");
    await until(() => shell.style.height === `${MIN_HEIGHT}px`, "the smallest height");
    handle.dispatchEvent(new win.MouseEvent("dblclick", { bubbles: true }));
    await until(() => shell.style.height === "600px", "a double-click goes back to the chat's own height");
    press(handle, "ArrowUp");
    await idle(); // a dragged height drawn (600 px again, so nothing to see: the drag is what counts)
    model.set("height", "70vh");
    await until(() => shell.style.height === "70vh", "a new height from the kernel replaces a dragged one");
    model.set("height", "");
    await until(() => shell.style.height === "", "'' is the stylesheet's default");
  });
});

describe("the event inspector's colours", () => {
  it("gives RUN_ERROR the error colour's family, not the finished run's", async () => {
    assert.equal(familyOf("RUN_ERROR"), "error");
    assert.equal(familyOf("RUN_FINISHED"), "run");
    const { el } = await connected([], new FakeModel(), {}, [ev.runStarted(), ev.runError("boom"), ev.runStarted("r2"), ev.runFinished("r2")]);
    button(el, "Show events").click();
    await until(() => el.querySelector('.agui-event[data-type="RUN_FINISHED"]') !== null, "the events shown");
    const type = (t: string) => el.querySelector(`.agui-event[data-type="${t}"] .agui-event-type`) as HTMLElement;
    assert.ok(type("RUN_ERROR").classList.contains("agui-family-error"));
    assert.ok(type("RUN_FINISHED").classList.contains("agui-family-run"));
  });
});

describe("the state panel's editors", () => {
  const state = { done: true, count: 3, name: "Ada", nothing: null };

  it("edits a boolean with a switch: each toggle sends the flipped value", async () => {
    const { model, el } = await connected([], new FakeModel(), state);
    button(el, "Show state").click();
    await until(() => el.querySelector('[aria-label="Shared state"]') !== null, "the state panel open");
    const toggle = el.querySelector('input[type="checkbox"][role="switch"][aria-label="done"]') as HTMLInputElement;
    assert.ok(toggle, "a boolean is a switch");
    assert.equal(toggle.checked, true);
    assert.equal(maybeButton(el, "Edit done: true"), null, "no free text for a boolean");
    toggle.click();
    await untilSent(model, "state_edit");
    assert.deepEqual(model.sentOf("state_edit"), [{ kind: "state_edit", patch: [{ op: "replace", path: "/done", value: false }] }]);
    assert.equal(toggle.checked, false, "shown at once, before the kernel confirms");
    model.kernel({ kind: "state_patch", patch: [{ op: "replace", path: "/done", value: false }] });
    await idle(); // the kernel's confirmation drawn
    assert.equal(toggle.checked, false);
    model.kernel({ kind: "state_patch", patch: [{ op: "replace", path: "/done", value: true }] });
    await until(() => toggle.checked, "the kernel's value wins");
  });

  it("edits a number in a number box: a number is sent, nothing while the box holds none", async () => {
    const { model, el } = await connected([], new FakeModel(), state);
    button(el, "Show state").click();
    await until(() => maybeButton(el, "Edit count: 3") !== null, "the state panel open");
    button(el, "Edit count: 3").click();
    await until(() => el.querySelector('input[aria-label="New value for count"]') !== null, "the number box");
    const box = textbox(el, "New value for count") as HTMLInputElement;
    assert.equal(box.type, "number");
    assert.equal(box.value, "3");
    box.value = "";
    press(box, "Enter");
    await until(() => box.getAttribute("aria-invalid") === "true", "the empty box marked invalid");
    assert.equal(model.sentOf("state_edit").length, 0);
    box.value = "-2.5";
    press(box, "Enter");
    assert.deepEqual(model.sentOf("state_edit"), [{ kind: "state_edit", patch: [{ op: "replace", path: "/count", value: -2.5 }] }]);
  });

  it("keeps the text box for strings and null", async () => {
    const { el } = await connected([], new FakeModel(), state);
    const editing = (name: string) => el.querySelector(`input[aria-label="New value for ${name}"], textarea[aria-label="New value for ${name}"]`) !== null;
    button(el, "Show state").click();
    await until(() => maybeButton(el, "Edit name: \"Ada\"") !== null, "the state panel open");
    button(el, "Edit name: \"Ada\"").click();
    await until(() => editing("name"), "the text box for name");
    assert.equal((textbox(el, "New value for name") as HTMLInputElement).type, "text");
    press(textbox(el, "New value for name"), "Escape");
    await until(() => !editing("name"), "the edit of name left");
    button(el, "Edit nothing: null").click();
    await until(() => editing("nothing"), "the text box for nothing");
    assert.equal((textbox(el, "New value for nothing") as HTMLInputElement).type, "text");
  });
});
