/** The event inspector by run: headers with outcome and timing, the run filter, what was sent
 * (asked of the kernel once per run, answers routed to their run), the timeline, the export, and
 * the mirror's times and records beneath them. */
import assert from "node:assert/strict";
import { afterEach, describe, it, mock } from "node:test";
import { EVENT_LOG_LIMIT, Mirror, RECORD_ANSWER_MS, RECORDS_KEPT } from "../src/mirror/mirror";
import { downloads } from "../src/view/EventInspector";
import type { AguiEvent } from "../src/kernel/wire";
import { FakeModel, idle, until, untilCount, untilSent } from "./dom";
import { ev, readyMirror, recordText, snapshot } from "./helpers";
import { button, connected } from "./mount";

const win = (globalThis as unknown as { window: Window & { Event: typeof Event } }).window;

const RUN = (runId: string, user = "weather in Paris"): Array<[number, AguiEvent]> => [
  [0.001, ev.runStarted(runId)],
  [0.101, ev.textStart(`m-${runId}`)],
  [0.301, ev.text(`m-${runId}`, "Hello")],
  [0.501, ev.textEnd(`m-${runId}`)],
  [0.601, ev.toolStart(`c-${runId}`, "get_weather", `m-${runId}`)],
  [0.751, ev.toolEnd(`c-${runId}`)],
  [0.901, ev.toolResult(`t-${runId}`, `c-${runId}`, user)],
  [0.951, { type: "STATE_DELTA", delta: [{ op: "add", path: "/x", value: 1 }] } as AguiEvent],
  [1.201, ev.runFinished(runId)],
];
const eventsOf = (run: Array<[number, AguiEvent]>) => run.map(([, e]) => e);
const timesOf = (run: Array<[number, AguiEvent]>, at = 1_700_000_000_000) => run.map(([t]) => at + Math.round((t - 0.001) * 1000));
const INPUT = (runId: string, user = "weather in Paris") => ({
  messages: [{ id: `u-${runId}`, role: "user", content: user }],
  state: { city: "Paris" },
  tools: [{ name: "confirm_booking", description: "", parameters: {} }],
  context: [{ description: "today", value: "Monday" }],
  forwardedProps: { mode: "demo" },
});

async function open(el: HTMLElement) {
  button(el, "Show events").click();
  await until(() => el.querySelector('[aria-label="Events"]') !== null, "the Events panel open");
  return el.querySelector('[aria-label="Events"]') as HTMLElement;
}
const runs = (panel: HTMLElement) => [...panel.querySelectorAll(".agui-run")] as HTMLElement[];
const runNamed = (panel: HTMLElement, label: string) => {
  const found = runs(panel).find((r) => r.getAttribute("aria-label") === label);
  assert.ok(found, `no run ${label}: ${runs(panel).map((r) => r.getAttribute("aria-label")).join(", ")}`);
  return found;
};
const text = (el: Element | null | undefined, selector: string) => el?.querySelector(selector)?.textContent ?? "";
const times = (run: Element) => [...run.querySelectorAll(".agui-event-time")].map((t) => t.textContent);

async function toggle(details: Element | null | undefined) {
  assert.ok(details, "no such section");
  const d = details as HTMLDetailsElement;
  d.open = !d.open;
  d.dispatchEvent(new win.Event("toggle"));
  await idle(); // the section drawn, and what its effects asked of the kernel sent
}
const part = (run: Element, name: string) => [...run.querySelectorAll(".agui-run-part")].find((d) => d.querySelector("summary")?.textContent === name);

function answer(model: FakeModel, runId: string, recording: string | null, error: string | null = null) {
  model.kernel({ kind: "run_record", runId, recording, error });
}

describe("the inspector's runs", () => {
  it("groups events by run, with outcome, count, duration and time to first token from the kernel's times", async () => {
    const tail = [ev.text("m0", "…the rest"), ev.textEnd("m0"), ev.runFinished("r0")];
    const { model, el } = await connected([], new FakeModel(), {}, tail);
    const panel = await open(el);
    model.kernel({ kind: "events", events: eventsOf(RUN("r1")), times: timesOf(RUN("r1")) });
    await until(() => runs(panel).length === 2, "the live run beside the snapshot's");
    assert.deepEqual(runs(panel).map((r) => r.getAttribute("aria-label")), ["earlier events (run r0)", "run r1"]);
    const [earlier, r1] = runs(panel) as [HTMLElement, HTMLElement];
    assert.equal(text(earlier, ".agui-run-outcome"), "finished");
    assert.equal(text(earlier, ".agui-run-duration"), "—", "the snapshot's tail has no times");
    assert.deepEqual(times(earlier), ["—", "—", "—"]);
    assert.equal(text(r1, ".agui-run-outcome"), "finished");
    assert.equal(text(r1, ".agui-run-count"), "9 events");
    assert.equal(text(r1, ".agui-run-duration"), "1.20 s");
    assert.equal(text(r1, ".agui-run-ttft"), "first token 0.30 s");
    assert.deepEqual(times(r1).slice(0, 3), ["+0.000 s", "+0.100 s", "+0.300 s"]);
    assert.equal(panel.querySelectorAll("li.agui-event").length, 12, "every event keeps its row");
  });

  it("says how a run ended: error, interrupt, cancelled, or still running", async () => {
    const log = [
      ev.runStarted("a"),
      ev.runError("boom"),
      ev.runStarted("b"),
      { type: "RUN_FINISHED", threadId: "t1", runId: "b", outcome: { type: "interrupt", interrupts: [{ id: "i", reason: "approval" }] } },
      ev.runStarted("c"),
      { type: "RUN_FINISHED", threadId: "t1", runId: "c", outcome: { type: "cancelled" } },
      ev.runStarted("d"),
    ];
    const { el } = await connected([], new FakeModel(), {}, log);
    const panel = await open(el);
    assert.deepEqual(runs(panel).map((r) => text(r, ".agui-run-outcome")), ["error", "interrupt", "cancelled", "running"]);
  });

  it("filters by run, and by type within it", async () => {
    const log = [...eventsOf(RUN("r1")), ...eventsOf(RUN("r2"))];
    const { el } = await connected([], new FakeModel(), {}, log);
    const panel = await open(el);
    const byRun = panel.querySelector('select[aria-label="Filter events by run"]') as HTMLSelectElement;
    assert.deepEqual([...byRun.options].map((o) => o.textContent), ["All runs", "run r1", "run r2"]);
    byRun.value = "r2";
    byRun.dispatchEvent(new win.Event("change", { bubbles: true }));
    await until(() => runs(panel).length === 1, "one run shown");
    assert.deepEqual(runs(panel).map((r) => r.getAttribute("aria-label")), ["run r2"]);
    assert.equal(text(panel, ".agui-panel-note"), "9 of 18 events");
    const byType = panel.querySelector('select[aria-label="Filter events by type"]') as HTMLSelectElement;
    byType.value = "RUN_STARTED";
    byType.dispatchEvent(new win.Event("change", { bubbles: true }));
    await untilCount(panel, ".agui-event", 1, "one event of the type shown");
    assert.deepEqual([...panel.querySelectorAll(".agui-event")].map((r) => r.textContent?.includes("r2")), [true]);
    byRun.value = "";
    byRun.dispatchEvent(new win.Event("change", { bubbles: true }));
    await untilCount(panel, ".agui-event", 2, "the type's events of every run");
  });
});

describe("what a run sent", () => {
  it("asks the kernel once when Sent opens, ignores answers it did not ask for, and shows the RunAgentInput", async () => {
    const { model, el } = await connected([], new FakeModel(), {}, eventsOf(RUN("r1")));
    const panel = await open(el);
    const run = runNamed(panel, "run r1");
    await toggle(part(run, "Sent"));
    assert.deepEqual(model.sentOf("run_record"), [{ kind: "run_record", runId: "r1" }]);
    assert.equal(text(part(run, "Sent"), ".agui-empty"), "asking the kernel…");
    await toggle(part(run, "Sent"));
    await toggle(part(run, "Sent"));
    assert.equal(model.sentOf("run_record").length, 1, "asked once");

    answer(model, "elsewhere", recordText("elsewhere", RUN("elsewhere"), INPUT("elsewhere", "not mine")));
    await idle(); // whatever the view does with it, done
    assert.equal(text(part(run, "Sent"), ".agui-empty"), "asking the kernel…", "another view's answer is not this run's");

    answer(model, "r1", recordText("r1", RUN("r1"), INPUT("r1")));
    await until(() => (part(run, "Sent") as HTMLElement).querySelector(".agui-sent-message") !== null, "the answer shown");
    const sent = part(run, "Sent") as HTMLElement;
    const messages = [...sent.querySelectorAll(".agui-sent-message")];
    assert.equal(messages.length, 1);
    assert.equal(text(messages[0], ".agui-sent-role"), "user");
    assert.equal(text(messages[0], ".agui-sent-preview"), "weather in Paris");
    await toggle(messages[0]?.querySelector("details"));
    assert.deepEqual(JSON.parse(text(messages[0], "pre")), { id: "u-r1", role: "user", content: "weather in Paris" });
    const fields = Object.fromEntries([...sent.querySelectorAll(".agui-sent > dl > .agui-kv-row")].map((r) => [text(r, "dt"), text(r, "dd")]));
    assert.deepEqual(Object.keys(fields), ["messages (1)", "state", "tools (1)", "context", "forwardedProps"]);
    assert.match(fields.state ?? "", /"city": "Paris"/);
    assert.equal(fields["tools (1)"], "confirm_booking");
    assert.match(fields.context ?? "", /Monday/);
    assert.match(fields.forwardedProps ?? "", /demo/);
    assert.equal(model.sentOf("run_record").length, 1);
  });

  it("routes each answer to its own run, whatever their order", async () => {
    const { model, el } = await connected([], new FakeModel(), {}, [...eventsOf(RUN("r1")), ...eventsOf(RUN("r2"))]);
    const panel = await open(el);
    await toggle(part(runNamed(panel, "run r1"), "Sent"));
    await toggle(part(runNamed(panel, "run r2"), "Sent"));
    assert.deepEqual(model.sentOf("run_record").map((r) => r.runId), ["r1", "r2"]);
    answer(model, "r2", recordText("r2", RUN("r2"), INPUT("r2", "second question")));
    answer(model, "r1", recordText("r1", RUN("r1"), INPUT("r1", "first question")));
    const preview = (run: string) => text(part(runNamed(panel, run), "Sent"), ".agui-sent-preview");
    await until(() => preview("run r1") !== "" && preview("run r2") !== "", "both answers shown");
    assert.equal(text(part(runNamed(panel, "run r1"), "Sent"), ".agui-sent-preview"), "first question");
    assert.equal(text(part(runNamed(panel, "run r2"), "Sent"), ".agui-sent-preview"), "second question");
  });

  it("shows the kernel's reason when it has no record, and the lines it could not read", async () => {
    const { model, el } = await connected([], new FakeModel(), {}, [...eventsOf(RUN("old")), ...eventsOf(RUN("r1"))]);
    const panel = await open(el);
    await toggle(part(runNamed(panel, "run old"), "Sent"));
    answer(model, "old", null, "This run is no longer kept.");
    await toggle(part(runNamed(panel, "run r1"), "Sent"));
    answer(model, "r1", `${recordText("r1", RUN("r1"), INPUT("r1"))}not json\n`);
    const errorOf = (run: string) => text(part(runNamed(panel, run), "Sent"), ".agui-run-error");
    await until(() => errorOf("run old") !== "" && errorOf("run r1") !== "", "both answers shown");
    assert.equal(text(part(runNamed(panel, "run old"), "Sent"), ".agui-run-error"), "This run is no longer kept.");
    assert.match(text(part(runNamed(panel, "run r1"), "Sent"), ".agui-run-error"), /could not be read: line 12 is not JSON/);
    assert.equal(text(part(runNamed(panel, "run r1"), "Sent"), ".agui-sent-preview"), "weather in Paris", "the rest is shown");
  });

  it("says so when there is no kernel to ask", async () => {
    class Gone extends FakeModel {
      override send(content: unknown): void {
        if ((content as { kind?: string }).kind === "run_record") throw new Error("Cannot send on a closed comm");
        super.send(content);
      }
    }
    const { el } = await connected([], new Gone(), {}, eventsOf(RUN("r1")));
    const panel = await open(el);
    await toggle(part(runNamed(panel, "run r1"), "Sent"));
    assert.match(text(part(runNamed(panel, "run r1"), "Sent"), ".agui-empty"), /No kernel: this view is disconnected/);
    button(panel, "Export run r1").click();
    await until(() => /No kernel/.test(text(panel, ".agui-run-note")), "the export says there is no kernel");
  });

  it("brings a reloaded run's times back with its record", async () => {
    const { model, el } = await connected([], new FakeModel(), {}, eventsOf(RUN("r1")));
    const panel = await open(el);
    const run = runNamed(panel, "run r1");
    assert.equal(text(run, ".agui-run-duration"), "—");
    assert.ok(times(run).every((t) => t === "—"));
    await toggle(part(run, "Sent"));
    answer(model, "r1", recordText("r1", RUN("r1"), INPUT("r1")));
    await until(() => text(run, ".agui-run-duration") === "1.20 s", "the run's duration from its record");
    assert.equal(text(run, ".agui-run-ttft"), "first token 0.30 s");
    assert.deepEqual(times(run), ["+0.000 s", "+0.100 s", "+0.300 s", "+0.500 s", "+0.600 s", "+0.750 s", "+0.900 s", "+0.950 s", "+1.200 s"]);
  });
});

describe("a run's timeline", () => {
  it("draws lanes for what the run had, with a summary, a title per bar and the tool's name", async () => {
    const { model, el } = await connected([], new FakeModel(), {}, []);
    const panel = await open(el);
    model.kernel({ kind: "events", events: eventsOf(RUN("r1")), times: timesOf(RUN("r1")) });
    await until(() => runs(panel).length === 1, "the run shown");
    const run = runNamed(panel, "run r1");
    await toggle(part(run, "Timeline"));
    const svg = run.querySelector("svg.agui-timeline") as SVGSVGElement;
    assert.ok(svg);
    assert.equal(svg.getAttribute("role"), "img");
    assert.equal(svg.getAttribute("aria-label"), "run timeline: 1 text message, 1 tool call, 1 state change over 1.2 s");
    assert.deepEqual([...svg.querySelectorAll(".agui-tl-lane")].map((t) => t.textContent), ["text", "tools", "state"]);
    assert.deepEqual([...svg.querySelectorAll("rect title")].map((t) => t.textContent), [
      "text message (assistant): 0.100 s to 0.500 s",
      "tool call get_weather: 0.600 s to 0.900 s",
      "STATE_DELTA: at 0.950 s",
    ]);
    assert.equal(text(svg, ".agui-tl-label"), "get_weather");
    assert.equal(model.sentOf("run_record").length, 0, "live times need no record");
  });

  it("asks for the record when the run has no times, then draws", async () => {
    const { model, el } = await connected([], new FakeModel(), {}, eventsOf(RUN("r1")));
    const panel = await open(el);
    const run = runNamed(panel, "run r1");
    await toggle(part(run, "Timeline"));
    assert.deepEqual(model.sentOf("run_record"), [{ kind: "run_record", runId: "r1" }]);
    assert.equal(text(part(run, "Timeline"), ".agui-empty"), "asking the kernel…");
    answer(model, "r1", recordText("r1", RUN("r1")));
    await until(() => run.querySelector("svg.agui-timeline") !== null, "the timeline drawn from the record");
  });
});

describe("exporting a run", () => {
  const saved: Array<[string, string]> = [];
  const save = downloads.save;
  afterEach(() => {
    downloads.save = save;
    saved.length = 0;
  });

  it("downloads exactly the kernel's text as <runId>.agui.jsonl, asking once", async () => {
    downloads.save = (name, content) => saved.push([name, content]);
    const { model, el } = await connected([], new FakeModel(), {}, eventsOf(RUN("r1")));
    const panel = await open(el);
    button(panel, "Export run r1").click();
    await until(() => text(panel, ".agui-run-note") !== "", "the export's note");
    assert.deepEqual(model.sentOf("run_record"), [{ kind: "run_record", runId: "r1" }]);
    assert.equal(text(panel, ".agui-run-note"), "asking the kernel…");
    assert.deepEqual(saved, []);
    // The kernel's text, byte for byte: odd spacing and a line this view cannot read included.
    const kernelText = `${recordText("r1", RUN("r1"), INPUT("r1"))}{ "kind" : "note" }\n`;
    answer(model, "r1", kernelText);
    await until(() => saved.length > 0, "the record saved");
    assert.deepEqual(saved, [["r1.agui.jsonl", kernelText]]);
    button(panel, "Export run r1").click();
    await until(() => saved.length > 1, "the record saved again");
    assert.deepEqual(saved.at(-1), ["r1.agui.jsonl", kernelText]);
    assert.equal(model.sentOf("run_record").length, 1, "the second export uses the kept record");
  });

  it("says why when the kernel has none", async () => {
    downloads.save = (name, content) => saved.push([name, content]);
    const { model, el } = await connected([], new FakeModel(), {}, eventsOf(RUN("r1")));
    const panel = await open(el);
    button(panel, "Export run r1").click();
    await untilSent(model, "run_record");
    answer(model, "r1", null, "This run is no longer kept.");
    await until(() => text(panel, ".agui-run-note") === "This run is no longer kept.", "the kernel's reason shown");
    assert.deepEqual(saved, []);
  });

  it("saves through a Blob and a link with a download name (no markup)", () => {
    const made: Blob[] = [];
    const clicked: Array<{ href: string; download: string; inPage: boolean }> = [];
    const { createObjectURL, revokeObjectURL } = URL;
    const doc = (globalThis as unknown as { document: Document }).document;
    const anchor = (win as unknown as { HTMLAnchorElement: typeof HTMLAnchorElement }).HTMLAnchorElement;
    const click = anchor.prototype.click;
    URL.createObjectURL = (blob: Blob) => {
      made.push(blob);
      return "blob:test";
    };
    URL.revokeObjectURL = () => {};
    anchor.prototype.click = function (this: HTMLAnchorElement) {
      clicked.push({ href: this.getAttribute("href") ?? "", download: this.download, inPage: this.isConnected });
    };
    try {
      const near = doc.createElement("div");
      doc.body.appendChild(near);
      save("a/b<c>.agui.jsonl", '{"kind":"recording"}\n', near);
      assert.deepEqual(clicked, [{ href: "blob:test", download: "a/b<c>.agui.jsonl", inPage: true }]);
      assert.equal(made[0]?.size, '{"kind":"recording"}\n'.length);
      assert.equal(doc.querySelector("a[download]"), null, "the link is gone again");
      near.remove();
    } finally {
      URL.createObjectURL = createObjectURL;
      URL.revokeObjectURL = revokeObjectURL;
      anchor.prototype.click = click;
    }
  });
});

describe("the mirror's times and records", () => {
  it("keeps each event's time beside it, bounded as the events are", () => {
    const mirror = readyMirror();
    const total = EVENT_LOG_LIMIT * 2 + 7;
    for (let i = 0; i < total; i += 100) {
      const batch = Array.from({ length: Math.min(100, total - i) }, (_, j) => ({ type: "CUSTOM", name: `e${i + j}`, value: i + j }));
      mirror.handle({ kind: "events", events: batch, times: batch.map((e) => 1000 + e.value) });
    }
    assert.equal(mirror.eventTimes().length, mirror.events().length);
    assert.ok(mirror.events().length <= EVENT_LOG_LIMIT * 1.5);
    mirror.events().forEach((e, i) => assert.equal(mirror.eventTimes()[i], 1000 + Number((e as { value: number }).value)));
    mirror.handle({ kind: "events", events: [{ type: "CUSTOM", name: "x" }, { type: "CUSTOM", name: "y" }], times: [1] });
    assert.deepEqual(mirror.eventTimes().slice(-2), [null, null], "times that do not fit their events are not used");
    mirror.handle(snapshot([], {}, [ev.runStarted()]));
    assert.deepEqual(mirror.eventTimes(), [null], "a snapshot's tail has none");
  });

  it("asks once per run, keeps only answers it asked for, and drops a partial record at its run's end", () => {
    const mirror = readyMirror();
    const sent: unknown[] = [];
    const send = (request: unknown) => (sent.push(request), true);
    mirror.handle({ kind: "events", events: [ev.runStarted("r1")], times: [] });
    assert.equal(mirror.askRunRecord("r1", send), true);
    assert.equal(mirror.askRunRecord("r1", send), true);
    assert.deepEqual(sent, [{ kind: "run_record", runId: "r1" }]);
    mirror.handle({ kind: "run_record", runId: "r9", recording: "x", error: null });
    assert.equal(mirror.runRecord("r9"), undefined);
    mirror.handle({ kind: "run_record", runId: "r1", recording: "partial", error: null });
    assert.deepEqual(mirror.runRecord("r1"), { status: "ready", text: "partial" });
    mirror.handle({ kind: "events", events: [ev.runFinished("r1")], times: [] });
    assert.deepEqual(mirror.runRecord("r1"), { status: "ready", text: "partial", partial: true }, "made while the run went on");
    mirror.askRunRecord("r1", send);
    assert.deepEqual(mirror.runRecord("r1"), { status: "asking" }, "asked again");
    mirror.handle({ kind: "run_record", runId: "r1", recording: "whole", error: null });
    assert.deepEqual(mirror.runRecord("r1"), { status: "ready", text: "whole" });
    assert.equal(sent.length, 2);
    assert.equal(new Mirror("v").askRunRecord("r1", () => false), false, "no kernel: nothing kept");
    const long = "r".repeat(201);
    assert.equal(mirror.askRunRecord(long, send), true);
    assert.equal(sent.length, 2, "an id the kernel would refuse is not sent");
    assert.equal(mirror.runRecord(long)?.status, "error");
  });

  it("says so when the kernel never answers a question", () => {
    mock.timers.enable({ apis: ["setTimeout"] });
    try {
      const mirror = readyMirror();
      mirror.askRunRecord("silent", () => true);
      mirror.askRunRecord("answered", () => true);
      mirror.handle({ kind: "run_record", runId: "answered", recording: "text", error: null });
      mock.timers.tick(RECORD_ANSWER_MS - 1);
      assert.deepEqual(mirror.runRecord("silent"), { status: "asking" });
      mock.timers.tick(1);
      assert.equal(mirror.runRecord("silent")?.status, "error");
      assert.match((mirror.runRecord("silent") as { error: string }).error, /did not answer/);
      assert.deepEqual(mirror.runRecord("answered"), { status: "ready", text: "text" }, "an answer is kept");
    } finally {
      mock.timers.reset();
    }
  });

  it("keeps at most RECORDS_KEPT answers, dropping the oldest, and every question still out", () => {
    const mirror = readyMirror();
    mirror.askRunRecord("waiting", () => true);
    for (let i = 0; i <= RECORDS_KEPT; i++) {
      mirror.askRunRecord(`r${i}`, () => true);
      mirror.handle({ kind: "run_record", runId: `r${i}`, recording: `text ${i}`, error: null });
    }
    assert.deepEqual(mirror.runRecord("r0"), { status: "ready", text: "text 0" }, "answers are dropped when a question goes");
    mirror.askRunRecord("next", () => true);
    assert.equal(mirror.runRecord("r0"), undefined);
    assert.deepEqual(mirror.runRecord("r1"), { status: "ready", text: "text 1" });
    assert.deepEqual(mirror.runRecord(`r${RECORDS_KEPT}`), { status: "ready", text: `text ${RECORDS_KEPT}` });
    assert.deepEqual(mirror.runRecord("waiting"), { status: "asking" });
  });

  it("does not ask again in turn when more sections are open than records are kept", async () => {
    const log = Array.from({ length: RECORDS_KEPT + 5 }, (_, i) => eventsOf(RUN(`r${i}`))).flat();
    const { model, el } = await connected([], new FakeModel(), {}, log);
    const panel = await open(el);
    for (const run of runs(panel)) {
      const sent = part(run, "Sent") as HTMLDetailsElement;
      sent.open = true;
      sent.dispatchEvent(new win.Event("toggle"));
    }
    await untilSent(model, "run_record", RECORDS_KEPT + 5);
    for (const request of model.sentOf("run_record")) answer(model, String(request.runId), recordText(String(request.runId), RUN(String(request.runId)), INPUT(String(request.runId))));
    // A section that lost its answer would ask again (an effect) and show none: once every section
    // shows its answer and the effects have run, no question is left to come.
    await untilCount(panel, ".agui-sent-message", RECORDS_KEPT + 5, "every open section keeps its answer");
    assert.equal(model.sentOf("run_record").length, RECORDS_KEPT + 5, "one question per run");
  });
});
