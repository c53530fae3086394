/** Mounting the widget in the test DOM, and finding things in it the way a user does. */
import assert from "node:assert/strict";
import { afterEach } from "node:test";
import { doc, FakeModel, idle, nextFrame, until, untilCount, untilSent, untilText } from "./dom";
import widget from "../src/index";

export type Mounted = { model: FakeModel; el: HTMLElement; cleanup: () => void; viewId: string };
const mounted: Array<() => void> = [];

afterEach(() => {
  while (mounted.length) mounted.pop()?.();
  doc.body.innerHTML = "";
});

export function mount(model = new FakeModel()): Mounted {
  const el = doc.createElement("div");
  doc.body.appendChild(el);
  const cleanup = widget.render({ model, el });
  mounted.push(cleanup);
  const hello = model.sentOf("hello").at(-1);
  return { model, el, cleanup, viewId: String(hello?.viewId) };
}

export async function connected(messages: unknown[] = [], model = new FakeModel(), state: unknown = {}, events: unknown[] = []): Promise<Mounted> {
  const view = mount(model);
  model.kernel({ kind: "snapshot", viewId: view.viewId, messages, state, events });
  await until(() => !(view.el.textContent ?? "").includes("Connecting to the kernel"), "the view shows the snapshot");
  return view;
}

export const buttons = (el: ParentNode) => [...el.querySelectorAll("button")] as HTMLButtonElement[];
export const nameOf = (b: Element) => b.getAttribute("aria-label") ?? b.textContent?.trim() ?? "";

export function button(el: ParentNode, name: string): HTMLButtonElement {
  const found = buttons(el).filter((b) => nameOf(b) === name);
  assert.ok(found.length > 0, `no button named ${name}; have ${buttons(el).map(nameOf).join(", ")}`);
  assert.equal(found.length, 1, `${found.length} buttons named ${name}`);
  return found[0] as HTMLButtonElement;
}

export const maybeButton = (el: ParentNode, name: string) => buttons(el).find((b) => nameOf(b) === name) ?? null;

export function textbox(el: ParentNode, label: string): HTMLTextAreaElement | HTMLInputElement {
  const found = el.querySelector(`textarea[aria-label="${label}"], input[aria-label="${label}"]`) as HTMLTextAreaElement | HTMLInputElement | null;
  assert.ok(found, `no text box ${label}`);
  return found;
}

export function type(box: HTMLTextAreaElement | HTMLInputElement, text: string) {
  box.value = text;
  box.dispatchEvent(new (globalThis as any).InputEvent("input", { bubbles: true }));
}

export function press(box: Element, key: string, init: KeyboardEventInit = {}) {
  const event = new (globalThis as any).KeyboardEvent("keydown", { key, bubbles: true, cancelable: true, ...init });
  box.dispatchEvent(event);
  return event as KeyboardEvent;
}

export { idle, nextFrame, until, untilCount, untilSent, untilText };
