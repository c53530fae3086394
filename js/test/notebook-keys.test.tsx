/** Keys pressed on the chat's controls are the chat's, not the notebook's command-mode shortcuts
 * (./src/view/keys.ts): marked for one key's dispatch, before the notebook looks. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { keepKeysFromTheNotebook } from "../src/view/keys";
import { doc } from "./dom";
import { button, connected, press, textbox, until } from "./mount";

/** A notebook command-mode shortcut's selector: the focused element itself meets it. */
const COMMAND_MODE = ".jp-Notebook.jp-mod-commandMode:not(.jp-mod-readWrite) :focus";

/** Whether Lumino's keymap would run a shortcut with this selector for `event`: from the key's
 * target up, a `data-lm-suppress-shortcuts` mark stops the search (its `targetDistance`). */
function shortcutRuns(event: Event, selector: string): boolean {
  for (let node = event.target as Element | null; node; node = node.parentElement) {
    if (node.hasAttribute("data-lm-suppress-shortcuts")) return false;
    if (node.matches(selector)) return true;
  }
  return false;
}

/** The chat in a notebook in command mode, and what the notebook's shortcuts decided for each key
 * (heard in the document's capture phase, as Notebook 7 listens, before the chat's own handlers). */
async function chatInANotebook() {
  const mounted = await connected([
    { id: "u1", role: "user", content: "question" },
    { id: "a1", role: "assistant", content: "answer" },
  ]);
  const notebook = doc.createElement("div");
  notebook.className = "jp-Notebook jp-mod-commandMode";
  doc.body.appendChild(notebook);
  notebook.appendChild(mounted.el);
  const outside = doc.createElement("button");
  notebook.appendChild(outside);
  const ran: boolean[] = [];
  const listen = (event: Event) => ran.push(shortcutRuns(event, COMMAND_MODE));
  doc.addEventListener("keydown", listen, true);
  const stop = () => doc.removeEventListener("keydown", listen, true);
  return { ...mounted, outside, ran, stop };
}

/** Focuses `target` and presses `key` on it; returns whether the target itself got the key. */
function pressOn(target: HTMLElement, key: string, init: KeyboardEventInit = {}): boolean {
  target.focus();
  let got = false;
  target.addEventListener("keydown", () => (got = true), { once: true });
  press(target, key, init);
  return got;
}

describe("keys pressed in a chat inside a notebook", () => {
  it("are kept from the notebook's command-mode shortcuts, and reach the focused control", async () => {
    const { el, ran, stop } = await chatInANotebook();
    try {
      const regenerate = button(el, "Regenerate");
      for (const key of ["ArrowDown", "ArrowRight", "a", "b", "m", "0", " "]) assert.ok(pressOn(regenerate, key), `the button got ${key}`);
      assert.ok(pressOn(button(el, "Show state"), "ArrowUp", { shiftKey: true }));
      assert.ok(pressOn(el.querySelector(".agui-scroll") as HTMLElement, "ArrowDown"));
      assert.deepEqual(ran, Array(9).fill(false), "no shortcut would run");
    } finally {
      stop();
    }
  });

  it("are marked for their own dispatch only", async () => {
    const { el, ran, stop } = await chatInANotebook();
    try {
      const regenerate = button(el, "Regenerate");
      pressOn(regenerate, "ArrowDown");
      assert.ok(regenerate.hasAttribute("data-lm-suppress-shortcuts"), "marked while the key is dispatched");
      await until(() => !regenerate.hasAttribute("data-lm-suppress-shortcuts"), "the mark gone after the key");
      assert.ok(regenerate.matches(COMMAND_MODE), "a notebook shortcut would match it again on its own");
      assert.deepEqual(ran, [false]);
    } finally {
      stop();
    }
  });

  it("with Ctrl, Cmd or Alt, and keys outside the chat, are left to the notebook", async () => {
    const { el, outside, ran, stop } = await chatInANotebook();
    try {
      const regenerate = button(el, "Regenerate");
      pressOn(regenerate, "ArrowDown", { ctrlKey: true, shiftKey: true });
      pressOn(regenerate, "Enter", { altKey: true });
      pressOn(outside, "a");
      assert.deepEqual(ran, [true, true, true]);
      textbox(el, "Message").focus();
      assert.equal(regenerate.hasAttribute("data-lm-suppress-shortcuts"), false);
    } finally {
      stop();
    }
  });

  it("stop being marked when no chat is shown", async () => {
    const { el, cleanup, ran, stop } = await chatInANotebook();
    try {
      cleanup();
      const shell = doc.createElement("div");
      shell.className = "agui-shell";
      const control = doc.createElement("button");
      shell.appendChild(control);
      el.appendChild(shell);
      // Preact runs an unmounted view's effect cleanups after the next frame
      await until(() => {
        pressOn(control, "a");
        return ran.at(-1) === true;
      }, "no listener left behind by the view");
      assert.equal(control.hasAttribute("data-lm-suppress-shortcuts"), false);
    } finally {
      stop();
    }
  });
});

describe("keepKeysFromTheNotebook", () => {
  it("listens once for a page while any caller needs it, and each caller stops once", () => {
    const calls: string[] = [];
    const win = {
      addEventListener: (type: string, _listener: unknown, capture: boolean) => calls.push(`add ${type} ${capture}`),
      removeEventListener: (type: string, _listener: unknown, capture: boolean) => calls.push(`remove ${type} ${capture}`),
    } as unknown as Window;
    const first = keepKeysFromTheNotebook(win);
    const second = keepKeysFromTheNotebook(win);
    first();
    first();
    assert.deepEqual(calls, ["add keydown true"], "still needed by the second");
    second();
    assert.deepEqual(calls, ["add keydown true", "remove keydown true"]);
  });
});
