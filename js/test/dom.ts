/**
 * A browser-like global environment for the view tests, and a fake anywidget model.
 *
 * jsdom, not happy-dom: the sanitiser (DOMPurify) reads `Node.prototype.nodeName` through its
 * own getter, which happy-dom leaves empty for elements, and happy-dom's HTML parser puts
 * `<math>` and `<svg>` in the HTML namespace. Under it DOMPurify keeps some handlers and drops
 * all MathML, so sanitiser tests would prove nothing. jsdom parses like a browser (parse5) and is
 * the DOM DOMPurify itself is tested against.
 */
import { JSDOM } from "jsdom";
import { options } from "preact";
import type { AnyModel, ModelCallback } from "../src/anywidget";

// runScripts: inline event handlers compile and run, so the sanitiser tests can tell whether a
// payload's handler would fire (scripts inserted as HTML never run, as in a browser).
const dom = new JSDOM("<!doctype html><html><head></head><body></body></html>", {
  url: "http://localhost/",
  pretendToBeVisual: true,
  runScripts: "dangerously",
});
const window = dom.window;
const g = globalThis as Record<string, unknown>;
for (const name of [
  "document",
  "navigator",
  "Node",
  "Element",
  "HTMLElement",
  "HTMLTextAreaElement",
  "HTMLInputElement",
  "HTMLSelectElement",
  "HTMLButtonElement",
  "HTMLDetailsElement",
  "DocumentFragment",
  "DOMParser",
  "NodeFilter",
  "Text",
  "Event",
  "CustomEvent",
  "FocusEvent",
  "KeyboardEvent",
  "InputEvent",
  "MouseEvent",
  "MutationObserver",
  "ResizeObserver",
  "requestAnimationFrame",
  "cancelAnimationFrame",
  "Blob",
  "File",
  "FileReader",
]) {
  // Node has its own Event, navigator, Blob and File: the DOM's must win, or jsdom refuses the
  // events and its FileReader the files.
  if (!(name in g) || ["navigator", "Event", "CustomEvent", "Blob", "File"].includes(name)) {
    try {
      g[name] = (window as unknown as Record<string, unknown>)[name];
    } catch {
      Object.defineProperty(globalThis, name, { value: (window as unknown as Record<string, unknown>)[name], configurable: true });
    }
  }
}
g.window = window;

export const doc = window.document as unknown as Document;

// Waiting for the view. No wait here is a fixed time, which a busy machine outruns: a test waits
// for what it is about to check (until, untilCount, untilText, untilSent); before checking that
// something did NOT happen, for the view to be idle (idle); for what the view does in its next
// frame, for that frame (nextFrame).
//
// Preact runs a component's effects (useEffect) after the next frame, not with its render. The
// tests' waits count the effect flushes Preact has asked for and not yet run, so that a wait ends
// only once the view has also run the effects of what it rendered (its listeners, its focus).
// This is Preact's own scheduling (a frame, or 35 ms if no frame comes, then a task), counted.
let effectFlushes = 0;
options.requestAnimationFrame = (flush: () => void) => {
  effectFlushes++;
  let frame = 0;
  const done = () => {
    clearTimeout(timer);
    cancelAnimationFrame(frame);
    // A delay given: node's mock timers (some tests use them) stall on a timeout without one.
    setTimeout(() => {
      effectFlushes--;
      flush();
    }, 0);
  };
  const timer = setTimeout(done, 35);
  frame = requestAnimationFrame(done);
};

const turn = () => new Promise((resolve) => setTimeout(resolve, 10));

/** Waits until `holds()` is true and the view has run the effects of what it rendered, turning
 * the event loop; fails after `timeoutMs`, naming `what` was awaited (a busy machine may take far
 * longer than a fixed wait to render). The first look comes after one turn, so the view has
 * rendered what the test just did (Preact renders in a microtask) even when `holds()` was
 * already true before. */
export async function until(holds: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  await new Promise((resolve) => setTimeout(resolve));
  for (;;) {
    const held = holds();
    if (held && effectFlushes === 0) return;
    if (Date.now() > deadline) {
      throw new Error(held ? `${what}: so, but the view's effects were still pending after ${timeoutMs} ms (mock timers reset before they ran?)` : `${what}: not so after ${timeoutMs} ms`);
    }
    await turn();
  }
}

/** Waits until the view has finished with what already happened: Preact's renders (microtasks)
 * and the effects they asked for. Not a time: the signal to wait for before asserting that
 * something did NOT happen, when nothing else marks the end of the processing. */
export async function idle(): Promise<void> {
  await until(() => true, "the view's renders and effects");
}

/** Waits for the next animation frame, after the frame callbacks the view asked for before this
 * call (a frame runs them in the order they were asked), then for the renders and effects they
 * caused. Not a time: an order, for what the view does "in the next frame". */
export async function nextFrame(): Promise<void> {
  await new Promise((resolve) => requestAnimationFrame(() => resolve(undefined)));
  await idle();
}

/** Waits until `root` has exactly `n` elements matching `selector`. */
export async function untilCount(root: ParentNode, selector: string, n: number, what = `${n} × ${selector}`): Promise<void> {
  let seen = 0;
  try {
    await until(() => (seen = root.querySelectorAll(selector).length) === n, what);
  } catch (error) {
    throw new Error(`${(error as Error).message} (have ${seen})`);
  }
}

/** Waits until an element matching `selector` in `root` has `text` in its text (a string: contains;
 * a RegExp: matches); returns that element. */
export async function untilText(root: ParentNode, selector: string, text: string | RegExp, what = `${selector} reading ${text}`): Promise<HTMLElement> {
  const reads = (el: Element) => (typeof text === "string" ? (el.textContent ?? "").includes(text) : text.test(el.textContent ?? ""));
  let found: HTMLElement | undefined;
  await until(() => (found = [...root.querySelectorAll(selector)].find(reads) as HTMLElement | undefined) !== undefined, what);
  return found as HTMLElement;
}

/** Waits until the model has sent at least `n` messages of `kind`; returns those sent. */
export async function untilSent(model: FakeModel, kind: string, n = 1): Promise<Array<Record<string, unknown>>> {
  await until(() => model.sentOf(kind).length >= n, `${n} ${kind} message(s) sent`);
  return model.sentOf(kind);
}

export class FakeModel implements AnyModel {
  sent: Array<Record<string, unknown>> = [];
  private listeners = new Map<string, Set<ModelCallback>>();

  constructor(public traits: Record<string, unknown> = {}) {
    this.traits = { status: "idle", thread_id: "t1", run_id: "", pending: [], queued: [], frontend_tools: [], error: "", ...traits };
  }

  get(name: string): unknown {
    return this.traits[name];
  }
  on(event: string, callback: ModelCallback): void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(callback);
  }
  off(event?: string | null, callback?: ModelCallback | null): void {
    if (!event) return this.listeners.clear();
    if (!callback) return void this.listeners.delete(event);
    this.listeners.get(event)?.delete(callback);
  }
  send(content: unknown): void {
    const request = JSON.parse(JSON.stringify(content)) as Record<string, unknown>;
    this.sent.push(request);
    if (request.kind === "claim" && this.grantsClaims) queueMicrotask(() => this.grant(request));
  }

  /** Whether this fake kernel gives a claimed frontend tool call to the view that claims it
   * first (as the kernel does); false lets a test decide. */
  grantsClaims = true;

  /** The kernel's answer to a `claim`: the pending entry names the claiming view. */
  grant(request: Record<string, unknown>): void {
    const pending = (this.traits.pending as Array<Record<string, unknown>>) ?? [];
    const entry = pending.find((p) => p.toolCallId === request.toolCallId);
    if (!entry || (entry.claimedBy && !request.takeOver)) return;
    this.set(
      "pending",
      pending.map((p) => (p === entry ? { ...p, claimedBy: request.viewId } : p)),
    );
  }

  /** The kernel changes a synced trait. */
  set(name: string, value: unknown): void {
    this.traits[name] = value;
    for (const cb of [...(this.listeners.get(`change:${name}`) ?? [])]) cb();
  }
  /** The kernel sends a custom message. */
  kernel(content: unknown): void {
    for (const cb of [...(this.listeners.get("msg:custom") ?? [])]) cb(content, []);
  }
  listenerCount(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }
  sentOf(kind: string): Array<Record<string, unknown>> {
    return this.sent.filter((m) => m.kind === kind);
  }
}
