/**
 * Sanitisation: the payloads of ./xss-payloads.ts placed everywhere the view shows content from
 * the agent, a tool or the state. Nothing may run, and the DOM may hold nothing that could.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, it } from "node:test";
import { doc, FakeModel, idle, until, untilCount, untilSent } from "./dom";
import { ev } from "./helpers";
import { button, connected, maybeButton } from "./mount";
import { XSS_PAYLOADS } from "./xss-payloads";
import { IncrementalMarkdown } from "../src/markdown/incremental";
import { downloads } from "../src/view/EventInspector";
import { isPlainStyle, sanitizeToFragment } from "../src/markdown/sanitize";

const MATHML = "http://www.w3.org/1998/Math/MathML";
const FORBIDDEN = ["script", "iframe", "object", "embed", "style", "form", "base", "meta", "frame", "frameset", "applet", "link", "noscript", "template", "foreignobject"];
const URL_ATTRIBUTES = ["href", "src", "action", "formaction", "xlink:href", "data", "background", "poster", "srcset", "codebase", "cite"];
const BAD_URL = /^[\s\u0000-\u001f]*(?:javascript|vbscript|livescript|data:(?!image\/(?:png|gif|jpe?g|webp);))/i;
const EVENTS = ["load", "error", "toggle", "focus", "mouseover", "animationstart", "begin", "start"];

const win = (globalThis as unknown as { window: Window & { Event: typeof Event; __xss?: (n: unknown) => void } }).window;
// Every row's markup is checked here, so every row is drawn: a transcript of a few hundred rows
// would otherwise be windowed (and jsdom has no layout to window by).
(globalThis as { aguiWidgetWindowFrom?: number }).aguiWidgetWindowFrom = Infinity;
let calls: unknown[] = [];
beforeEach(() => {
  calls = [];
  win.__xss = (n: unknown) => calls.push(n);
});

/** An SVG bundle shown as an image: the one place a `data:image/svg+xml` URL is allowed (an SVG
 * loaded as an image runs no script and loads nothing), and only after sanitising. */
function isSvgImage(el: Element, name: string, value: string): boolean {
  return el.localName === "img" && name === "src" && !!el.closest('.agui-bundle[data-mime="image/svg+xml"]') && value.startsWith("data:image/svg+xml;charset=utf-8,");
}

function assertInertSvg(url: string, where: string): void {
  const svg = decodeURIComponent(url.slice(url.indexOf(",") + 1));
  const holder = doc.createElement("div");
  holder.innerHTML = svg;
  for (const el of holder.querySelectorAll("*")) {
    assert.ok(!["script", "foreignobject", "a", "use", "image", "set", "animate"].includes(el.localName.toLowerCase()), `${where}: <${el.localName}> in an SVG image`);
    for (const attr of el.attributes) {
      assert.ok(!attr.name.toLowerCase().startsWith("on") && !/href$/i.test(attr.name), `${where}: ${attr.name} in an SVG image`);
    }
  }
}

/** Everything under `root` is inert: no executable element, handler, URL or style. */
function assertInert(root: Element, where: string): void {
  const all = [root, ...root.querySelectorAll("*")];
  for (const el of all) {
    const tag = el.localName.toLowerCase();
    // The view's own forms (answer boxes, schema forms) are allowed; none may come from content.
    const ours = tag === "form" && (el.classList.contains("agui-form") || el.classList.contains("agui-ask")) && !el.closest(".agui-md");
    assert.ok(!FORBIDDEN.includes(tag) || ours, `${where}: a <${tag}> element`);
    if (tag === "svg" && el.classList.contains("agui-timeline")) {
      // The inspector's run timelines: shapes, and text only as text nodes.
      for (const child of el.querySelectorAll("*")) assert.ok(["g", "rect", "line", "text", "title"].includes(child.localName), `${where}: <${child.localName}> in a timeline`);
    } else if (tag === "svg") {
      // Only the view's own icons (drawn with DOM calls, never from content).
      assert.ok(el.classList.contains("agui-icon"), `${where}: an <svg> that is not an icon`);
      for (const child of el.querySelectorAll("*")) assert.ok(["path", "rect"].includes(child.localName), `${where}: <${child.localName}> in an icon`);
    }
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase();
      assert.ok(!name.startsWith("on"), `${where}: <${tag} ${name}="${attr.value}">`);
      assert.notEqual(name, "srcdoc", `${where}: srcdoc`);
      if (URL_ATTRIBUTES.includes(name) || name.endsWith(":href")) {
        if (isSvgImage(el, name, attr.value)) assertInertSvg(attr.value, where);
        else assert.ok(!BAD_URL.test(attr.value), `${where}: <${tag} ${name}="${attr.value}">`);
      }
      if (name === "style") {
        assert.equal(el.namespaceURI, MATHML, `${where}: a style attribute on <${tag}>`);
        assert.ok(isPlainStyle(attr.value), `${where}: style "${attr.value}"`);
      }
    }
  }
  // Give every element the events the payloads hook: a surviving handler would call __xss.
  for (const el of all) {
    for (const type of EVENTS) el.dispatchEvent(new win.Event(type, { bubbles: false }));
  }
  assert.deepEqual(calls, [], `${where}: a payload ran`);
}

describe("the payload list", () => {
  it("has at least 30 payloads, and the JSON copy for the browser tests matches", () => {
    assert.ok(XSS_PAYLOADS.length >= 30, `${XSS_PAYLOADS.length} payloads`);
    assert.equal(new Set(XSS_PAYLOADS).size, XSS_PAYLOADS.length, "no duplicates");
    const root = process.env.AGUI_JS_ROOT ?? process.cwd();
    const json = JSON.parse(readFileSync(join(root, "test", "xss-payloads.json"), "utf8")) as unknown;
    assert.deepEqual(json, XSS_PAYLOADS, "test/xss-payloads.json is out of date: run `npm run xss-json`");
  });

  it("would be caught: a handler that survives does run in this DOM", () => {
    const probe = doc.createElement("div");
    probe.innerHTML = '<img src="x" onerror="__xss(\'probe\')">';
    probe.querySelector("img")?.dispatchEvent(new win.Event("error"));
    assert.deepEqual(calls, ["probe"]);
    calls = [];
  });
});

describe("the sanitiser", () => {
  it("makes every payload inert when given it as HTML", () => {
    for (const payload of XSS_PAYLOADS) {
      const holder = doc.createElement("div");
      holder.appendChild(sanitizeToFragment(payload, payload));
      assertInert(holder, `HTML ${JSON.stringify(payload)}`);
    }
  });

  it("makes every payload inert as Markdown, at once and streamed", () => {
    for (const payload of XSS_PAYLOADS) {
      const once = doc.createElement("div");
      new IncrementalMarkdown(once).update(payload, false);
      assertInert(once, `Markdown ${JSON.stringify(payload)}`);
      const streamed = doc.createElement("div");
      const renderer = new IncrementalMarkdown(streamed);
      for (let end = 4; end < payload.length; end += 4) {
        renderer.update(payload.slice(0, end), true);
        assertInert(streamed, `streaming Markdown ${JSON.stringify(payload.slice(0, end))}`);
      }
      renderer.update(payload, false);
      assertInert(streamed, `streamed Markdown ${JSON.stringify(payload)}`);
    }
  });
});

/** A JSON object whose keys and values are the payloads. */
const payloadObject = () => Object.fromEntries(XSS_PAYLOADS.map((p, i) => [p, { [`v${i}`]: p, list: [p] }]));
const all = XSS_PAYLOADS.join("\n\n");

describe("the view, with payloads in every place", () => {
  it("in user, assistant, reasoning, activity and system messages", async () => {
    const messages: unknown[] = [];
    XSS_PAYLOADS.forEach((p, i) => {
      messages.push({ id: `u${i}`, role: "user", content: p });
      messages.push({ id: `a${i}`, role: "assistant", content: p });
    });
    messages.push({ id: "r", role: "reasoning", content: all });
    messages.push({ id: "act", role: "activity", activityType: XSS_PAYLOADS[0], content: payloadObject() });
    messages.push({ id: "sys", role: "system", content: all });
    const { el } = await connected(messages);
    assert.equal(el.querySelectorAll(".agui-row-user").length, XSS_PAYLOADS.length);
    for (const details of el.querySelectorAll("details")) (details as HTMLDetailsElement).open = true;
    await idle(); // the opened sections drawn (jsdom tells them in a task, before this wait's first turn)
    assertInert(el, "messages");
  });

  it("in an answer streamed token by token", async () => {
    const { model, el } = await connected([{ id: "u", role: "user", content: "go" }]);
    model.set("status", "running");
    model.kernel({ kind: "events", events: [ev.runStarted(), ev.textStart("a1")] });
    for (let at = 0; at < all.length; at += 40) {
      model.kernel({ kind: "events", events: [ev.text("a1", all.slice(at, at + 40))] });
      if (at % 400 === 0) {
        await idle(); // the tokens so far drawn
        assertInert(el, `streaming, at ${at}`);
      }
    }
    model.kernel({ kind: "events", events: [ev.textEnd("a1"), ev.runFinished()] });
    model.set("status", "idle");
    const answer = () => el.querySelector(".agui-row-assistant .agui-text");
    await until(() => answer() !== null && answer()?.getAttribute("data-streaming") === null, "the answer drawn whole");
    assertInert(el, "streamed answer");
  });

  it("in tool names, arguments, results and errors", async () => {
    const { model, el } = await connected([{ id: "u", role: "user", content: "go" }]);
    const events: unknown[] = [ev.runStarted()];
    XSS_PAYLOADS.forEach((p, i) => {
      events.push(ev.toolStart(`c${i}`, p, "a1"));
      events.push(ev.toolArgs(`c${i}`, JSON.stringify({ [p]: p, nested: { text: p } })));
      events.push(ev.toolEnd(`c${i}`));
      events.push(ev.toolResult(`t${i}`, `c${i}`, i % 2 ? p : JSON.stringify({ html: p, [p]: [p] })));
    });
    // One call whose arguments are still streaming, raw.
    events.push(ev.toolStart("open", "open_call", "a1"), ev.toolArgs("open", all));
    model.kernel({ kind: "events", events });
    await untilCount(el, ".agui-tool", XSS_PAYLOADS.length + 1, "every call's card");
    assertInert(el, "tool calls");
    model.kernel({ kind: "events", events: [ev.toolEnd("open"), ev.runError(all)] });
    model.kernel({ kind: "messages", start: 0, messages: [{ id: "u", role: "user", content: "go" }, { id: "a1", role: "assistant", toolCalls: [{ id: "c0", type: "function", function: { name: XSS_PAYLOADS[1], arguments: all } }] }, { id: "t0", role: "tool", toolCallId: "c0", content: all, error: all }, { id: "orphan", role: "tool", toolCallId: "nowhere", content: all }] });
    await untilCount(el, ".agui-tool", 2, "the kernel's transcript: its call, and the result of none");
    for (const fold of el.querySelectorAll(".agui-fold")) (fold as HTMLButtonElement).click();
    await idle(); // the unfolded texts drawn
    assertInert(el, "tool results and errors");
  });

  it("in state keys and values, with every node open and edited", async () => {
    const state = payloadObject();
    const { model, el } = await connected([], new FakeModel(), state);
    button(el, "Show state").click();
    await until(() => el.querySelector(".agui-tree-toggle") !== null, "the state tree");
    // Open every closed node, then show every long string whole.
    for (let round = 0; round < 5; round++) {
      const closed = [...el.querySelectorAll('.agui-tree-toggle[aria-expanded="false"]')] as HTMLButtonElement[];
      if (closed.length === 0) break;
      for (const b of closed) b.click();
      await idle(); // the opened nodes drawn, with their own closed nodes
    }
    for (const b of el.querySelectorAll(".agui-leaf button[aria-expanded='false']")) (b as HTMLButtonElement).click();
    await idle(); // the long strings drawn whole
    assert.ok(el.querySelectorAll(".agui-leaf").length >= XSS_PAYLOADS.length);
    assertInert(el, "state panel");
    // A state_patch bringing more payloads, and an edit box holding one.
    model.kernel({ kind: "state_patch", patch: [{ op: "add", path: "/extra", value: all }] });
    await until(() => [...el.querySelectorAll(".agui-leaf")].some((l) => l.textContent?.includes("extra")), "the patched state shown");
    const leaf = el.querySelector(".agui-leaf-value") as HTMLButtonElement;
    leaf.click();
    await until(() => el.querySelector('[aria-label^="New value for"]') !== null, "the edit box");
    assertInert(el, "state panel after a patch, editing");
  });

  it("in the event inspector, with every row open", async () => {
    const events = XSS_PAYLOADS.flatMap((p, i) => [
      { type: "TEXT_MESSAGE_CONTENT", messageId: p, delta: p },
      i % 2 ? { type: "CUSTOM", name: p, value: { [p]: p } } : { type: "STEP_STARTED", stepName: p },
      { type: `UNKNOWN_${i % 5}`, payload: p },
    ]);
    const { model, el } = await connected([], new FakeModel(), {}, events);
    button(el, "Show events").click();
    await until(() => el.querySelector(".agui-event") !== null, "the events shown");
    model.kernel({ kind: "events", events: [ev.runStarted(), { type: "STATE_SNAPSHOT", snapshot: payloadObject() }, { type: "RAW", event: all }] });
    await until(() => el.querySelector('.agui-event[data-type="RAW"]') !== null, "the live events shown");
    for (const more of el.querySelectorAll(".agui-events .agui-btn")) (more as HTMLButtonElement).click();
    await idle(); // the earlier events drawn
    for (const details of el.querySelectorAll(".agui-event details")) {
      (details as HTMLDetailsElement).open = true;
      details.dispatchEvent(new win.Event("toggle"));
    }
    await idle(); // the opened rows drawn
    assert.ok(el.querySelectorAll(".agui-event pre").length > XSS_PAYLOADS.length);
    assertInert(el, "event inspector");
  });

  it("in the inspector's runs: headers, filters, timelines, what was sent and exports", async () => {
    const saved: string[] = [];
    const save = downloads.save;
    downloads.save = (name) => saved.push(name);
    try {
      const { model, el } = await connected();
      button(el, "Show events").click();
      await until(() => el.querySelector('[aria-label="Events"]') !== null, "the Events panel");
      const events: unknown[] = [];
      XSS_PAYLOADS.forEach((p, i) => {
        const id = `${p}${i}`;
        events.push(
          ev.runStarted(id, p),
          { type: "STEP_STARTED", stepName: p },
          { type: "TEXT_MESSAGE_START", messageId: `m${i}`, role: p },
          ev.text(`m${i}`, p),
          ev.textEnd(`m${i}`),
          { type: "REASONING_MESSAGE_START", messageId: `r${i}`, role: "reasoning" },
          { type: "REASONING_MESSAGE_END", messageId: `r${i}` },
          ev.toolStart(`c${i}`, p, `m${i}`),
          ev.toolEnd(`c${i}`),
          ev.toolResult(`t${i}`, `c${i}`, p),
          { type: "STATE_SNAPSHOT", snapshot: { [p]: p } },
          { type: "STEP_FINISHED", stepName: p },
          i % 2 ? ev.runFinished(id, p) : ev.runError(p),
        );
      });
      model.kernel({ kind: "events", events, times: events.map((_, i) => 1_700_000_000_000 + i * 7) });
      const byRunOptions = () => (el.querySelector('select[aria-label="Filter events by run"]') as HTMLSelectElement | null)?.options.length ?? 0;
      await until(() => byRunOptions() === XSS_PAYLOADS.length + 1, "every run in the run picker");
      for (let more = [...el.querySelectorAll(".agui-events button")].find((b) => /earlier events$/.test(b.textContent ?? "")); more; more = [...el.querySelectorAll(".agui-events button")].find((b) => /earlier events$/.test(b.textContent ?? ""))) {
        (more as HTMLButtonElement).click();
        await idle(); // the earlier events drawn
      }
      const runs = [...el.querySelectorAll(".agui-run")];
      assert.equal(runs.length, XSS_PAYLOADS.length);
      // Open every section (Timeline, Sent), which asks for every run's record.
      for (const details of el.querySelectorAll(".agui-run-part")) {
        (details as HTMLDetailsElement).open = true;
        details.dispatchEvent(new win.Event("toggle"));
      }
      await untilSent(model, "run_record", XSS_PAYLOADS.length);
      const asked = model.sentOf("run_record").map((r) => String(r.runId));
      assert.equal(asked.length, XSS_PAYLOADS.length);
      asked.forEach((runId, i) => {
        const p = XSS_PAYLOADS[i] as string;
        if (i === 0) return model.kernel({ kind: "run_record", runId, recording: null, error: all });
        const input = {
          threadId: p,
          runId,
          state: payloadObject(),
          messages: [
            { id: p, role: "user", content: p },
            { id: `a${i}`, role: "assistant", content: null, toolCalls: [{ id: p, type: "function", function: { name: p, arguments: p } }] },
            { id: `x${i}`, role: p, content: [{ type: "text", text: p }] },
          ],
          tools: [{ name: p, description: p, parameters: { [p]: p } }],
          context: [{ description: p, value: p }],
          forwardedProps: { [p]: p },
          resume: [{ interruptId: p, status: "resolved", payload: p }],
        };
        const lines = [
          JSON.stringify({ kind: "recording", version: 1, recorded: p, label: p, agent: p, tools: [{ name: p }] }),
          JSON.stringify({ kind: "run", started: p, input }),
          JSON.stringify({ kind: "event", t: 0, event: { type: "RUN_STARTED", threadId: p, runId } }),
          JSON.stringify({ kind: "event", t: 0.5, event: { type: "TOOL_CALL_START", toolCallId: `c${i}`, toolCallName: p } }),
          JSON.stringify({ kind: p }),
          `${p} is not JSON`,
        ];
        model.kernel({ kind: "run_record", runId, recording: `${lines.join("\n")}\n`, error: null });
      });
      await until(() => el.querySelectorAll(".agui-sent-message").length >= 3 * (XSS_PAYLOADS.length - 1), "what every answered run sent");
      // Open what the answers brought (each sent message), and export every run.
      for (const details of el.querySelectorAll(".agui-sent-message details")) {
        (details as HTMLDetailsElement).open = true;
        details.dispatchEvent(new win.Event("toggle"));
      }
      for (const exportButton of el.querySelectorAll(".agui-run-export")) (exportButton as HTMLButtonElement).click();
      await until(
        () => saved.length >= XSS_PAYLOADS.length - 1 && el.querySelectorAll(".agui-sent-message pre").length >= 3 * (XSS_PAYLOADS.length - 1),
        "every answered run exported and its sent messages opened",
      );
      assert.ok(el.querySelectorAll("svg.agui-timeline").length >= XSS_PAYLOADS.length - 1, "the timelines are drawn");
      assert.ok(el.querySelectorAll(".agui-sent-message pre").length >= 3 * (XSS_PAYLOADS.length - 1), "what was sent is shown");
      assert.equal(saved.length, XSS_PAYLOADS.length - 1);
      for (const name of saved) assert.match(name, /^[\w.-]+\.agui\.jsonl$/, "a plain file name");
      const byRun = el.querySelector('select[aria-label="Filter events by run"]') as HTMLSelectElement;
      assert.equal(byRun.options.length, XSS_PAYLOADS.length + 1);
      assertInert(el, "the inspector's runs");
    } finally {
      downloads.save = save;
    }
  });

  it("in what the chat waits for: tool arguments, questions, choices, forms and interrupts", async () => {
    const schema = {
      type: "object",
      required: [XSS_PAYLOADS[0]],
      properties: Object.fromEntries(
        XSS_PAYLOADS.map((p, i) => [p, i % 3 === 0 ? { type: "string", title: p, description: p, default: p } : i % 3 === 1 ? { enum: [p, i], title: p } : { type: "boolean", title: p, description: p }]),
      ),
    };
    const tools = [
      { name: "confirm_it", description: all, parameters: {}, ui: "confirm", handler: null, approve: false },
      { name: "ask_it", description: all, parameters: {}, ui: "ask", handler: null, approve: false },
      { name: "fill_it", description: all, parameters: schema, ui: "form", handler: null, approve: false },
      { name: "manual_it", description: all, parameters: {}, ui: "manual", handler: null, approve: false },
    ];
    const model = new FakeModel({ frontend_tools: tools });
    const { el } = await connected([], model);
    const args = { question: all, choices: XSS_PAYLOADS, html: all, title: XSS_PAYLOADS[2], schema };
    model.set("pending", [
      ...tools.map((t, i) => ({ kind: "tool", toolCallId: `p${i}`, name: t.name, args, argsText: JSON.stringify(args) })),
      { kind: "tool", toolCallId: "ask-free", name: "ask_it", args: { question: all }, argsText: "" },
      { kind: "interrupt", interruptId: "i1", reason: all, message: all, toolCallId: null, name: XSS_PAYLOADS[3], args, responseSchema: schema },
      { kind: "interrupt", interruptId: "i2", reason: all, message: null, toolCallId: null, name: null, args: all, responseSchema: null },
    ]);
    model.set("status", "waiting");
    model.set("queued", XSS_PAYLOADS.map((p, i) => ({ id: `q${i}`, text: p })));
    model.set("error", all);
    model.kernel({ kind: "notice", level: "error", text: all });
    await until(() => el.querySelectorAll(".agui-card").length >= 6 && el.querySelector(".agui-notice") !== null, "the cards and the notice");
    // Submit a form with its defaults so the error messages show too.
    for (const form of el.querySelectorAll("form")) form.dispatchEvent(new win.Event("submit", { bubbles: true, cancelable: true }));
    await idle(); // the forms' answers and error messages drawn
    assertInert(el, "pending, queued, notices, error");
    assert.ok(maybeButton(el, "Approve") === null || el.querySelectorAll("button").length > 0);
  });

  it("in Python tools' cards: names, docstrings, arguments, results and errors", async () => {
    const tools = XSS_PAYLOADS.map((p, i) => ({ name: `${p}${i}`, description: p, parameters: {}, ui: "kernel", handler: null, approve: i % 2 === 0 }));
    const model = new FakeModel({ frontend_tools: tools });
    const turn = [
      { id: "u", role: "user", content: "go" },
      { id: "a", role: "assistant", toolCalls: tools.map((t, i) => ({ id: `k${i}`, type: "function", function: { name: t.name, arguments: JSON.stringify({ text: XSS_PAYLOADS[i] }) } })) },
      ...tools.slice(0, 3).map((_t, i) => ({ id: `r${i}`, role: "tool", toolCallId: `k${i}`, content: `Error: ${XSS_PAYLOADS[i]}`, error: XSS_PAYLOADS[i] })),
    ];
    const { el } = await connected(turn, model);
    model.set("pending", tools.slice(3).map((t, j) => ({ kind: "tool", toolCallId: `k${j + 3}`, name: t.name, args: { text: all }, argsText: JSON.stringify({ text: all }), claimedBy: null, kernel: j % 2 === 0 ? "approve" : "running" })));
    model.set("status", "waiting");
    await until(() => maybeButton(el, "Approve") !== null, "an approval is asked");
    for (const details of el.querySelectorAll("details")) (details as HTMLDetailsElement).open = true;
    await idle(); // the opened sections drawn
    assert.ok(el.querySelectorAll(".agui-tool-error").length >= 3, "the failures are shown");
    (el.querySelector('button[aria-label^="Show context"]') as HTMLButtonElement).click();
    await until(() => el.querySelector('section[aria-label="What the agent gets"]') !== null, "the Context panel");
    assertInert(el, "Python tools");
  });

  it("in attachments: file names, types and URLs in the transcript and in the composer", async () => {
    const parts = XSS_PAYLOADS.flatMap((p, i) => [
      { type: "image", source: { type: "data", value: "iVBORw0KGgo=", mimeType: i % 2 ? "image/png" : "image/svg+xml" }, metadata: { filename: p } },
      { type: "document", source: { type: "data", value: "AAAA", mimeType: p }, metadata: { filename: p } },
      { type: "image", source: { type: "url", value: p, mimeType: "image/png" } },
      { type: p, source: { type: "url", value: `https://example.org/${encodeURIComponent(p)}` } },
    ]);
    const model = new FakeModel({ attachment_policy: { enabled: true, accept: [], maxBytes: 1e6, maxFiles: 1000, maxTotalBytes: 1e9 } });
    const { el } = await connected([{ id: "u", role: "user", content: [{ type: "text", text: "look" }, ...parts] }], model);
    const box = el.querySelector('textarea[aria-label="Message"]') as HTMLTextAreaElement;
    const paste = new win.Event("paste", { bubbles: true, cancelable: true });
    const files = XSS_PAYLOADS.map((p) => new File(["x"], p, { type: "image/png" }));
    Object.defineProperty(paste, "clipboardData", { value: { files, types: ["Files"], getData: () => "" } });
    box.dispatchEvent(paste);
    const tooMany = new win.Event("paste", { bubbles: true, cancelable: true });
    Object.defineProperty(tooMany, "clipboardData", { value: { files: [new File(["x".repeat(2e6)], all, { type: all })], types: ["Files"], getData: () => "" } });
    box.dispatchEvent(tooMany);
    await until(() => el.querySelector(".agui-attach-problem") !== null, "the refusal");
    await untilCount(el, ".agui-held", XSS_PAYLOADS.length, "the pasted files are held");
    assert.ok(el.querySelector(".agui-attach-problem"), "and the refusal names the file");
    assertInert(el, "attachments");
  });

  it("in the Context panel: tool names and descriptions, context descriptions and texts", async () => {
    const model = new FakeModel({
      frontend_tools: XSS_PAYLOADS.map((p, i) => ({ name: `${p}${i}`, description: p, parameters: {}, ui: "manual", handler: null, approve: false })),
      agent_context: XSS_PAYLOADS.map((p, i) => ({ description: p, preview: p, length: p.length + i, live: i % 2 === 0 })),
    });
    const { el } = await connected([], model);
    (el.querySelector('button[aria-label^="Show context"]') as HTMLButtonElement).click();
    await until(() => el.querySelector('section[aria-label="What the agent gets"]') !== null, "the Context panel");
    for (const details of el.querySelectorAll("details")) (details as HTMLDetailsElement).open = true;
    await idle(); // the opened sections drawn
    assert.equal(el.querySelectorAll('ul[aria-label="Context"] > li').length, XSS_PAYLOADS.length);
    assertInert(el, "the Context panel");
  });
});

describe("generative UI, with payloads in every bundle and label", () => {
  const svgPayloads = XSS_PAYLOADS.filter((p) => /svg/i.test(p));

  it("in text/html, image/svg+xml, Markdown, JSON and plain-text bundles of tool and state renders", async () => {
    const turn = [
      { id: "u", role: "user", content: "go" },
      {
        id: "a",
        role: "assistant",
        toolCalls: XSS_PAYLOADS.map((p, i) => ({ id: `c${i}`, type: "function", function: { name: p, arguments: JSON.stringify({ p }) } })),
      },
    ];
    const { model, el } = await connected(turn);
    XSS_PAYLOADS.forEach((p, i) => {
      model.kernel({ kind: "render", key: `tool:c${i}`, bundle: { "text/html": p, "text/plain": p }, error: p, after: null });
      model.kernel({ kind: "render", key: `state:h${i}`, bundle: { "text/html": `<div>${p}</div><table><tr><td>${p}</td></tr></table>` }, error: null, after: "a" });
      model.kernel({ kind: "render", key: `state:m${i}`, bundle: { "text/markdown": p }, error: null, after: null });
      model.kernel({ kind: "render", key: `state:j${i}`, bundle: { "application/json": { [p]: p }, "text/plain": p }, error: null, after: null });
      model.kernel({ kind: "render", key: `state:p${i}`, bundle: { "text/plain": p, "image/png": p }, error: null, after: null });
    });
    svgPayloads.forEach((p, i) => {
      model.kernel({ kind: "render", key: `state:s${i}`, bundle: { "image/svg+xml": p }, error: null, after: null });
    });
    await untilCount(el, ".agui-tool-rendered", XSS_PAYLOADS.length, "every tool's render");
    for (const b of el.querySelectorAll(".agui-render-details")) (b as HTMLButtonElement).click();
    await idle(); // the cards behind the renders drawn
    assert.ok(svgPayloads.length > 0 && el.querySelectorAll('.agui-bundle[data-mime="image/svg+xml"] img').length === svgPayloads.length);
    assertInert(el, "renders");
  });

  it("in rich tool results and assistant display bundles", async () => {
    const messages: unknown[] = [{ id: "u", role: "user", content: "go" }];
    XSS_PAYLOADS.forEach((p, i) => {
      messages.push({ id: `a${i}`, role: "assistant", content: p, metadata: { agui_widget: { display: { "text/html": p } } } });
      messages.push({ id: `b${i}`, role: "assistant", toolCalls: [{ id: `c${i}`, type: "function", function: { name: "t", arguments: "{}" } }] });
      messages.push({ id: `t${i}`, role: "tool", toolCallId: `c${i}`, content: p, metadata: { agui_widget: { display: { "image/svg+xml": p, "text/html": p } } } });
      messages.push({ id: `o${i}`, role: "tool", toolCallId: `orphan${i}`, content: p, metadata: { agui_widget: { display: { "text/html": p } } } });
    });
    const { el } = await connected(messages);
    assertInert(el, "rich results");
  });

  it("in sub-agent names and errors, activity types and content, and suggestion chips", async () => {
    const model = new FakeModel({ suggestions: XSS_PAYLOADS.map((p) => ({ title: p, message: p })) });
    const { el } = await connected([], model);
    assert.equal(el.querySelectorAll(".agui-chip").length, XSS_PAYLOADS.length);
    assertInert(el, "suggestions");
    model.kernel({
      kind: "events",
      events: [
        ev.runStarted(),
        ...XSS_PAYLOADS.flatMap((p, i) => [
          { type: "SUBAGENT_STARTED", subagentRunId: `s${i}`, name: p, description: p },
          { type: "TEXT_MESSAGE_START", messageId: `m${i}`, role: "assistant", subagentRunId: `s${i}` },
          { type: "TEXT_MESSAGE_CONTENT", messageId: `m${i}`, delta: p, subagentRunId: `s${i}` },
          { type: "TEXT_MESSAGE_END", messageId: `m${i}`, subagentRunId: `s${i}` },
          { type: "SUBAGENT_ERROR", subagentRunId: `s${i}`, message: p },
          { type: "ACTIVITY_SNAPSHOT", messageId: `act${i}`, activityType: p, content: { markdown: p } },
          { type: "ACTIVITY_SNAPSHOT", messageId: `actj${i}`, activityType: p, content: { [p]: p } },
        ]),
        ev.runFinished(),
      ],
    });
    await untilCount(el, ".agui-subagent", XSS_PAYLOADS.length, "every sub-agent's block");
    for (const details of el.querySelectorAll("details")) (details as HTMLDetailsElement).open = true;
    await idle(); // the opened sections drawn
    assertInert(el, "sub-agents and activity");
  });
});
