/** The transcript's windowing: the arithmetic (which rows a scroll position needs, measuring,
 * anchoring, appending, the end), and the view drawing a long transcript in jsdom, with a layout
 * of its own (jsdom has none): rows of known heights stacked in the column. */
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { options } from "preact";
import { doc, FakeModel, nextFrame, until } from "./dom";
import { button, mount } from "./mount";
import { OVERSCAN_PX, WINDOW_FROM } from "../src/view/Windowed";
import { markdownHeight, RowModel, spansWith, wrappedLines } from "../src/logic/windowing";

const win = (globalThis as unknown as { window: Window & typeof globalThis }).window;

function uniform(n: number, guess = 50, prefix = "r"): RowModel {
  const model = new RowModel();
  model.setRows(Array.from({ length: n }, (_, i) => ({ key: `${prefix}${i}`, guess })));
  return model;
}

describe("the windowing's arithmetic", () => {
  it("draws the rows that meet the view and its overscan, and only those", () => {
    const model = uniform(1000);
    assert.equal(model.total, 50_000);
    // The view shows [1000, 1500); with 200 px more each side, rows 16 to 34.
    assert.deepEqual(model.spanFor(1000, 500, 200), { start: 16, end: 35 });
    assert.deepEqual(model.spanFor(0, 500, 200), { start: 0, end: 15 });
    assert.deepEqual(model.spanFor(49_500, 500, 200), { start: 986, end: 1000 });
    assert.equal(model.indexAt(-10), 0);
    assert.equal(model.indexAt(1e9), 999);
    assert.equal(model.indexAt(1049.9), 20);
    assert.equal(model.indexAt(1050), 21);
  });

  it("follows the end: the rows a view at the very end needs", () => {
    const model = uniform(1000);
    assert.deepEqual(model.tailSpan(400, 100), { start: 990, end: 1000 });
    model.setRows([...Array.from({ length: 1000 }, (_, i) => ({ key: `r${i}`, guess: 50 })), { key: "new", guess: 300 }]);
    const tail = model.tailSpan(400, 100);
    assert.equal(tail.end, 1001, "the appended row is drawn");
    assert.ok(tail.start >= 990 && tail.start <= 996, `${tail.start}`);
  });

  it("puts a measured row in place of its estimate and moves what comes after", () => {
    const model = uniform(100);
    assert.equal(model.startOf(50), 2500);
    assert.equal(model.measure("r10", 120), true);
    assert.equal(model.measure("r10", 120.1), false, "a quarter pixel is no change");
    assert.equal(model.startOf(10), 500);
    assert.equal(model.startOf(11), 620);
    assert.equal(model.startOf(50), 2570);
    assert.equal(model.total, 5070);
    assert.equal(model.measure("nope", 10), false, "an unknown row is ignored");
    // A row that draws nothing (a tool result shown in its call's card) takes no room.
    model.measure("r11", 0);
    assert.equal(model.startOf(12), 620);
  });

  it("keeps the row at the top of the view in place when a row above it changes height", () => {
    const model = uniform(100);
    // The view's top is 20 px into row 40.
    const anchor = model.anchorAt(2020);
    assert.deepEqual(anchor, { key: "r40", delta: 20 });
    model.measure("r5", 90); // 40 px taller, above the view
    model.measure("r41", 10); // below the anchor: it does not move the anchor
    assert.equal(model.topFor(anchor!), 2060, "the view moves down by what was added above");
    model.measure("r6", 0);
    assert.equal(model.topFor(anchor!), 2010);
    // Rows inserted before it: the anchor still names the same row.
    model.setRows([{ key: "first", guess: 100 }, ...Array.from({ length: 100 }, (_, i) => ({ key: `r${i}`, guess: 50 }))]);
    assert.equal(model.topFor(anchor!), 2110);
    model.setRows(Array.from({ length: 30 }, (_, i) => ({ key: `r${i}`, guess: 50 })));
    assert.equal(model.topFor(anchor!), null, "a row gone anchors nothing");
  });

  it("appends in O(1): earlier rows keep their measurements and positions", () => {
    const keys = Array.from({ length: 10_000 }, (_, i) => ({ key: `r${i}`, guess: 40 }));
    const model = new RowModel();
    model.setRows(keys);
    model.measure("r9998", 100);
    const before = model.startOf(9999);
    keys.push({ key: "r10000", guess: 70 });
    model.setRows(keys);
    assert.equal(model.measured("r9998"), 100);
    assert.equal(model.startOf(9999), before);
    assert.equal(model.total, before + 40 + 70);
    assert.equal(model.indexOf("r10000"), 10_000);
  });

  it("forgets the measurements of rows that are gone, and all of them when the width changes", () => {
    const model = uniform(10);
    model.measure("r3", 80);
    model.setRows([{ key: "r0", guess: 50 }, { key: "r1", guess: 50 }]);
    model.setRows(Array.from({ length: 10 }, (_, i) => ({ key: `r${i}`, guess: 50 })));
    assert.equal(model.measured("r3"), undefined);
    model.measure("r4", 80);
    model.forgetSizes();
    assert.equal(model.measured("r4"), undefined);
    assert.equal(model.total, 500);
  });

  it("scales the estimates of rows never drawn by what the rows drawn measured", () => {
    const model = uniform(100);
    for (let i = 0; i < 3; i++) model.measure(`r${i}`, 100);
    assert.equal(model.rescaleDue, false, "not from three rows");
    model.measure("r3", 100);
    assert.equal(model.rescaleDue, true);
    assert.equal(model.total, 5200, "the scale changes only when the rows are drawn anew");
    assert.equal(model.rescale(), true);
    assert.equal(model.scale, 2);
    assert.equal(model.total, 10_000);
    assert.equal(model.rescale(), false);
    // Bounded: one odd row cannot make every estimate absurd.
    const odd = uniform(100, 1);
    for (let i = 0; i < 4; i++) odd.measure(`r${i}`, 1000);
    odd.rescale();
    assert.equal(odd.scale, 4);
  });

  it("adds the rows kept wherever the view is as spans of their own", () => {
    assert.deepEqual(spansWith({ start: 10, end: 20 }, [3, 15, 25, 26, 99], 50), [
      { start: 3, end: 4 },
      { start: 10, end: 20 },
      { start: 25, end: 27 },
    ]);
    assert.deepEqual(spansWith({ start: 10, end: 20 }, [9, 20], 50), [{ start: 9, end: 21 }]);
    assert.deepEqual(spansWith({ start: 0, end: 0 }, [], 0), []);
  });

  it("estimates text by its wrapped lines, and Markdown's code blocks line by line", () => {
    assert.equal(wrappedLines("", 80), 1);
    assert.equal(wrappedLines("a".repeat(81), 80), 2);
    assert.equal(wrappedLines("one\ntwo\n\nfour", 80), 4);
    const m = { width: 640, font: 13, line: 20, gap: 8 };
    assert.equal(markdownHeight("", m), 0);
    const prose = markdownHeight("one line", m);
    const withCode = markdownHeight("one line\n\n```python\na\nb\nc\n```", m);
    assert.ok(withCode > prose + 3 * 15, `${prose} ${withCode}`);
  });
});

// -- the view, in jsdom ---------------------------------------------------------------------------

/** A ResizeObserver the test fires by hand. */
class FakeResizeObserver {
  static all = new Set<FakeResizeObserver>();
  targets = new Set<Element>();
  constructor(private readonly callback: ResizeObserverCallback) {
    FakeResizeObserver.all.add(this);
  }
  observe(target: Element) {
    this.targets.add(target);
  }
  unobserve(target: Element) {
    this.targets.delete(target);
  }
  disconnect() {
    this.targets.clear();
    FakeResizeObserver.all.delete(this);
  }
  /** Every observer reports every element it observes, as after a layout that changed them. */
  static fire() {
    for (const o of [...FakeResizeObserver.all]) {
      const entries = [...o.targets].map((target) => ({ target }) as unknown as ResizeObserverEntry);
      if (entries.length) o.callback(entries, o as unknown as ResizeObserver);
    }
  }
}

/**
 * A layout for the chat's transcript: the column's children stacked from its top (a spacer as
 * tall as its style says, a row as `heightOf` its key says, anything else 0 px), in a scroll box
 * `client` px tall at the top of the page.
 */
function layout(root: HTMLElement, heightOf: (key: string) => number, client = 400) {
  const box = root.querySelector(".agui-scroll") as HTMLElement;
  const column = root.querySelector(".agui-transcript") as HTMLElement;
  const own = (el: Element) => {
    const h = el as HTMLElement;
    if (h.classList.contains("agui-spacer")) return parseFloat(h.style.height) || 0;
    const key = h.dataset.row;
    return key === undefined ? 0 : heightOf(key);
  };
  const contentHeight = () => [...column.children].reduce((sum, el) => sum + own(el), 0);
  let top = 0;
  const max = () => Math.max(0, contentHeight() - client);
  Object.defineProperty(box, "clientHeight", { configurable: true, get: () => client });
  Object.defineProperty(box, "scrollHeight", { configurable: true, get: () => Math.max(contentHeight(), client) });
  Object.defineProperty(box, "scrollTop", {
    configurable: true,
    get: () => top,
    set: (value: number) => {
      top = Math.min(max(), Math.max(0, value));
    },
  });
  const original = win.HTMLElement.prototype.getBoundingClientRect;
  win.HTMLElement.prototype.getBoundingClientRect = function (this: HTMLElement) {
    const rect = (y: number, height: number) => ({ x: 0, y, top: y, left: 0, right: 600, bottom: y + height, width: 600, height, toJSON() {} }) as DOMRect;
    if (this === box) return rect(0, client);
    if (this === column) return rect(-top, contentHeight());
    if (this.parentElement === column) {
      let y = 0;
      for (let el = this.previousElementSibling; el; el = el.previousElementSibling) y += own(el);
      return rect(y - top, own(this));
    }
    return original.call(this);
  };
  /** The rows (keys) in the page, and those on screen. */
  const rows = () => [...column.children].map((el) => (el as HTMLElement).dataset.row).filter((k): k is string => k !== undefined);
  const visible = () =>
    [...column.children]
      .filter((el) => (el as HTMLElement).dataset.row !== undefined)
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.bottom > 0 && r.top < client && r.height > 0;
      })
      .map((el) => (el as HTMLElement).dataset.row as string);
  const scrolled = () => box.dispatchEvent(new win.Event("scroll"));
  return {
    box,
    column,
    rows,
    visible,
    scrolled,
    restore: () => {
      win.HTMLElement.prototype.getBoundingClientRect = original;
    },
  };
}

function transcript(n: number) {
  const messages: Array<Record<string, unknown>> = [];
  for (let i = 0; i < n / 2; i++) {
    messages.push({ id: `u${i}`, role: "user", content: `Question ${i}` });
    messages.push({ id: `a${i}`, role: "assistant", content: `Answer ${i}: ${"words ".repeat(i % 10 === 0 ? 60 : 8)}` });
  }
  return messages;
}

/** Heights in the fake layout: a question 40 px, an answer 100 px, a long answer 200 px. */
const heights = (key: string) => (key.startsWith("u") ? 40 : /^a\d*0$/.test(key) ? 200 : 100);

describe("a long transcript in the view", () => {
  let restore: Array<() => void> = [];
  beforeEach(() => {
    (globalThis as Record<string, unknown>).ResizeObserver = FakeResizeObserver;
  });
  afterEach(() => {
    for (const r of restore) r();
    restore = [];
    delete (globalThis as Record<string, unknown>).ResizeObserver;
    FakeResizeObserver.all.clear();
  });

  async function open(n: number, model = new FakeModel()) {
    const view = mount(model);
    const geo = layout(view.el, heights);
    restore.push(geo.restore);
    model.kernel({ kind: "snapshot", viewId: view.viewId, messages: transcript(n), state: {}, events: [] });
    await until(() => geo.rows().length > 0, "the transcript's rows drawn");
    FakeResizeObserver.fire(); // the follower goes to the end, rows are measured
    await until(() => geo.visible().includes(`a${n / 2 - 1}`), "the newest message on screen");
    await nextFrame(); // the rows drawn again in the frame after a resize, if the view was not covered
    return { ...view, geo };
  }

  const around = (keys: string[], i: number) => keys.includes(`u${i}`) || keys.includes(`a${i}`);
  const indexOf = (key: string) => Number(key.slice(1));

  it("draws far fewer rows than it has, and starts at the end", async () => {
    const { geo } = await open(10_000);
    const rows = geo.rows();
    assert.ok(rows.length < 60, `${rows.length} rows in the page`);
    assert.ok(rows.length > 5);
    assert.ok(rows.includes("a4999"), "the newest message is drawn");
    assert.ok(geo.visible().includes("a4999"), "and on screen");
    assert.ok(geo.box.scrollHeight > 10_000 * 40, "the scroll height stands for every row");
    assert.ok(geo.column.querySelector(".agui-spacer"), "a spacer stands in for the rest");
  });

  it("shows the first messages at the top and the middle ones in the middle", async () => {
    const { geo } = await open(10_000);
    // The user's own wheel turn up stops the following; then the offset goes to the top.
    geo.box.dispatchEvent(new win.WheelEvent("wheel", { deltaY: -100, bubbles: true }));
    geo.box.scrollTop = 0;
    geo.scrolled();
    await until(() => geo.visible().slice(0, 3).join(" ") === "u0 a0 u1", "the first messages at the top");
    assert.ok(geo.rows().length < 60);

    geo.box.scrollTop = geo.box.scrollHeight / 2;
    geo.scrolled();
    await until(() => indexOf(geo.visible()[0] ?? "u0") > 2000, "the middle drawn");
    const shown = geo.visible();
    assert.ok(shown.length >= 3, `${shown}`);
    const first = indexOf(shown[0] as string);
    assert.ok(first > 2000 && first < 3000, `the middle of 5,000 turns shows turn ${first}`);
    // A run of consecutive messages, in order, from the top of the view to its bottom.
    const expected = [];
    for (let i = first; expected.length < shown.length; i++) expected.push(`u${i}`, `a${i}`);
    const offset = shown[0]?.startsWith("a") ? 1 : 0;
    assert.deepEqual(shown, expected.slice(offset, offset + shown.length));
  });

  it("keeps the row at the top of the view in place when rows above it turn out taller", async () => {
    const tall = new Set<string>();
    const model = new FakeModel();
    const view = mount(model);
    const geo = layout(view.el, (key) => heights(key) + (tall.has(key) ? 300 : 0));
    restore.push(geo.restore);
    model.kernel({ kind: "snapshot", viewId: view.viewId, messages: transcript(2000), state: {}, events: [] });
    await until(() => geo.rows().length > 0, "the transcript's rows drawn");
    FakeResizeObserver.fire(); // at the end
    await until(() => geo.visible().includes("a999"), "the newest message on screen");
    await nextFrame();
    geo.box.dispatchEvent(new win.WheelEvent("wheel", { deltaY: -100, bubbles: true }));
    geo.box.scrollTop = 50_000;
    geo.scrolled();
    await until(() => geo.visible().length > 0 && !geo.visible().includes("a999"), "the rows around the offset on screen");
    FakeResizeObserver.fire();
    await nextFrame(); // the rows drawn again in the frame after a resize
    const top = geo.visible()[0] as string;
    const at = () => (geo.column.querySelector(`[data-row="${top}"]`) as HTMLElement).getBoundingClientRect().top;
    const before = at();
    // Every row drawn above the view grows (an image loading, say): the view stays on its row.
    const above = geo.rows().filter((k) => (geo.column.querySelector(`[data-row="${k}"]`) as HTMLElement).getBoundingClientRect().bottom <= 0);
    assert.ok(above.length > 2, "rows are drawn above the view");
    for (const k of above) tall.add(k);
    FakeResizeObserver.fire();
    assert.ok(Math.abs(at() - before) < 1, `the row at the top moved from ${before} to ${at()}`);
    await nextFrame(); // the rows drawn again in the frame after a resize
    assert.ok(Math.abs(at() - before) < 1, `then moved from ${before} to ${at()} when drawn again`);

    // Scrolling up draws rows above with their real heights in place of estimates: no jump.
    let checked = 0;
    for (let i = 0; i < 5; i++) {
      const first = geo.visible()[0] as string;
      const y = (geo.column.querySelector(`[data-row="${first}"]`) as HTMLElement).getBoundingClientRect().top;
      geo.box.scrollTop -= 700;
      geo.scrolled();
      await nextFrame(); // the rows the scroll uncovered drawn and measured
      const moved = (geo.column.querySelector(`[data-row="${first}"]`) as HTMLElement | null)?.getBoundingClientRect().top;
      if (moved === undefined) continue;
      assert.ok(Math.abs(moved - (y + 700)) < 1, `row ${first} moved ${moved - y}px for a 700px scroll`);
      checked++;
    }
    assert.ok(checked >= 3, `${checked} scrolls checked`);
  });

  it("appends a message with one row added to the page and no other row drawn again", async () => {
    const { model, geo } = await open(1000);
    let bodies = 0;
    const before = options.diffed;
    options.diffed = (vnode) => {
      if (typeof vnode.type === "function" && vnode.type.name === "MessageBody") bodies++;
      before?.(vnode);
    };
    restore.push(() => {
      options.diffed = before;
    });
    const added: Node[] = [];
    const removed: Node[] = [];
    const watch = new win.MutationObserver((records) => {
      for (const r of records) {
        added.push(...r.addedNodes);
        removed.push(...r.removedNodes);
      }
    });
    watch.observe(geo.column, { childList: true });
    model.kernel({ kind: "messages", start: 1000, messages: [{ id: "new", role: "assistant", content: "appended" }] });
    await until(() => geo.rows().includes("new"), "the appended row drawn");
    await nextFrame(); // and all the drawing it caused, before counting it
    watch.disconnect();
    assert.deepEqual(
      added.filter((n) => (n as HTMLElement).dataset?.row !== undefined).map((n) => (n as HTMLElement).dataset.row),
      ["new"],
    );
    assert.ok(removed.length <= 2, `${removed.length} rows left the page`);
    // The new row, and the answer before it (no longer the last: it loses Regenerate) and its labels.
    assert.ok(bodies <= 3, `${bodies} message rows rendered for one appended message`);
    FakeResizeObserver.fire();
    await until(() => geo.visible().includes("new"), "the chat follows the end: the new message is on screen");
  });

  it("keeps the message Edit changes, and a card waiting for an answer, in the page wherever the view is", async () => {
    const messages = transcript(600);
    messages.splice(10, 0, {
      id: "ask",
      role: "assistant",
      content: "",
      toolCalls: [{ id: "c1", type: "function", function: { name: "confirm", arguments: '{"message": "Delete a.txt?"}' } }],
    });
    const model = new FakeModel({
      frontend_tools: [{ name: "confirm", description: "", parameters: {}, ui: "confirm", handler: null, approve: false }],
    });
    const view = mount(model);
    const geo = layout(view.el, (key) => (key === "ask" ? 120 : heights(key)));
    restore.push(geo.restore);
    model.kernel({ kind: "snapshot", viewId: view.viewId, messages, state: {}, events: [] });
    model.set("status", "waiting");
    model.set("pending", [{ kind: "tool", toolCallId: "c1", name: "confirm", args: { message: "Delete a.txt?" }, argsText: "", claimedBy: null, kernel: null }]);
    await until(() => geo.rows().length > 0, "the transcript's rows drawn");
    FakeResizeObserver.fire();
    await until(() => geo.rows().includes("a299"), "at the end");
    await nextFrame();
    const card = geo.column.querySelector('[data-row="ask"] [data-agui-awaiting]');
    assert.ok(card, "the card waiting for an answer is in the page, far above the view");
    button(geo.column.querySelector('[data-row="ask"]') as HTMLElement, "Approve").click();
    assert.equal(doc.activeElement?.getAttribute("aria-label"), "Message", "focus moves on to the message box");

    // The last user message stays too: scrolled to the top, Edit still finds it.
    model.set("pending", []);
    model.set("status", "idle");
    geo.box.dispatchEvent(new win.WheelEvent("wheel", { deltaY: -100, bubbles: true }));
    geo.box.scrollTop = 0;
    geo.scrolled();
    await until(() => geo.rows().includes("u0"), "the top drawn");
    await nextFrame();
    assert.ok(geo.rows().includes("u299"), "the last user message is kept");
  });

  it("keeps the row that holds the focus in the page when the view scrolls away", async () => {
    const { geo } = await open(2000);
    const row = geo.column.querySelector('[data-row="a999"]') as HTMLElement;
    const copy = row.querySelector('button[aria-label="Copy message"]') as HTMLButtonElement;
    copy.focus();
    assert.equal(doc.activeElement, copy);
    geo.box.dispatchEvent(new win.WheelEvent("wheel", { deltaY: -100, bubbles: true }));
    geo.box.scrollTop = 0;
    geo.scrolled();
    await until(() => geo.rows().includes("u0"), "the top drawn");
    await nextFrame();
    assert.ok(geo.rows().includes("a999"), "the focused row is kept");
    assert.equal(doc.activeElement, copy, "and keeps the focus");
  });

  it("draws the rows next to a focused row at once, so Tab goes on to the next message", async () => {
    const { geo } = await open(2000);
    geo.box.dispatchEvent(new win.WheelEvent("wheel", { deltaY: -100, bubbles: true }));
    geo.box.scrollTop = 0;
    geo.scrolled();
    await until(() => geo.rows().includes("u0"), "the top drawn");
    await nextFrame(); // the span at the top as drawn, before it is read
    const drawn = geo.rows().filter((key) => key !== "u999");
    const last = drawn[drawn.length - 1] as string; // the last row of the span at the top
    const after = last.startsWith("u") ? `a${indexOf(last)}` : `u${indexOf(last) + 1}`;
    assert.ok(!geo.rows().includes(after), `${after} is not drawn yet`);
    const row = geo.column.querySelector(`[data-row="${last}"]`) as HTMLElement;
    (row.querySelector("button") as HTMLButtonElement).focus();
    await Promise.resolve(); // no scroll event, no frame: only what the focus itself caused
    await Promise.resolve();
    const keys = geo.rows();
    assert.ok(keys.includes(after), `${after} follows the focused ${last} in the page: ${keys.slice(-6).join(" ")}`);
    assert.equal(keys.indexOf(after), keys.indexOf(last) + 1, "right after it, where Tab goes next");
  });

  it("draws every row of a short transcript, as before", async () => {
    const { geo } = await open(WINDOW_FROM - 2);
    assert.equal(geo.rows().length, WINDOW_FROM - 2);
    assert.equal(geo.column.querySelector(".agui-spacer"), null);
    assert.ok(OVERSCAN_PX > 0);
  });
});
