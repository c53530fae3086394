/** The inspector's runs, without a DOM: grouping, times, duration and time to first token, the
 * timeline's lanes and geometry, and reading a run's record. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  GEOMETRY,
  buildTimeline,
  groupRuns,
  layoutTimeline,
  liveOffsets,
  parseRecord,
  recordOffsets,
  runTiming,
  seconds,
  timelineSummary,
} from "../src/logic/runs";
import type { AguiEvent } from "../src/kernel/wire";
import { ev, recordText } from "./helpers";

const types = (list: readonly AguiEvent[]) => list.map((e) => e.type);

/** One run: START, text streamed in two deltas, a tool call with its result, a state delta, END. */
const RUN: Array<[number, AguiEvent]> = [
  [0.001, ev.runStarted("r1")],
  [0.101, ev.textStart("m1")],
  [0.301, ev.text("m1", "Hel")],
  [0.351, ev.text("m1", "lo")],
  [0.501, ev.textEnd("m1")],
  [0.601, ev.toolStart("c1", "get_weather", "m1")],
  [0.651, ev.toolArgs("c1", '{"city":')],
  [0.701, ev.toolArgs("c1", '"Paris"}')],
  [0.751, ev.toolEnd("c1")],
  [0.901, ev.toolResult("t1", "c1", "sunny")],
  [0.951, { type: "STATE_DELTA", delta: [{ op: "add", path: "/x", value: 1 }] } as AguiEvent],
  [1.201, ev.runFinished("r1")],
];

/** The same run as the view has it: the kernel merged the deltas that came in one batch. */
const VIEW: AguiEvent[] = [
  ev.runStarted("r1"),
  ev.textStart("m1"),
  ev.text("m1", "Hello"),
  ev.textEnd("m1"),
  ev.toolStart("c1", "get_weather", "m1"),
  ev.toolArgs("c1", '{"city":"Paris"}'),
  ev.toolEnd("c1"),
  ev.toolResult("t1", "c1", "sunny"),
  { type: "STATE_DELTA", delta: [{ op: "add", path: "/x", value: 1 }] } as AguiEvent,
  ev.runFinished("r1"),
];

describe("grouping the event log by run", () => {
  it("opens a group at each RUN_STARTED, ended by its RUN_FINISHED or RUN_ERROR, with its outcome", () => {
    const log: AguiEvent[] = [
      ev.runStarted("a"),
      ev.runFinished("a"),
      ev.runStarted("b"),
      ev.runError("boom"),
      ev.runStarted("c"),
      { type: "RUN_FINISHED", threadId: "t1", runId: "c", outcome: { type: "interrupt", interrupts: [{ id: "i", reason: "approval" }] } } as AguiEvent,
      ev.runStarted("d"),
      { type: "RUN_FINISHED", threadId: "t1", runId: "d", outcome: { type: "cancelled" } } as AguiEvent,
      ev.runStarted("e"),
      ev.textStart("m"),
      ev.runStarted("f"),
      ev.text("m", "x"),
    ];
    const groups = groupRuns(log);
    assert.deepEqual(
      groups.map((g) => [g.runId, g.from, g.to, g.end, g.outcome, g.started]),
      [
        ["a", 0, 2, 1, "finished", true],
        ["b", 2, 4, 3, "error", true],
        ["c", 4, 6, 5, "interrupt", true],
        ["d", 6, 8, 7, "cancelled", true],
        ["e", 8, 10, -1, "incomplete", true],
        ["f", 10, 12, -1, "running", true],
      ],
    );
  });

  it("puts a snapshot tail that starts mid-run in an 'earlier' group, named by its RUN_FINISHED", () => {
    const tail: AguiEvent[] = [ev.text("m0", "…rest"), ev.textEnd("m0"), ev.runFinished("r0"), ev.runStarted("r1"), ev.runFinished("r1")];
    const [earlier, next] = groupRuns(tail);
    assert.deepEqual(earlier, { from: 0, to: 3, runId: "r0", started: false, end: 2, outcome: "finished" });
    assert.equal(next?.runId, "r1");
    const unnamed = groupRuns([ev.text("m0", "x"), ev.runError("failed")]);
    assert.deepEqual(unnamed.map((g) => [g.runId, g.started, g.outcome]), [["", false, "error"]]);
    assert.deepEqual(groupRuns([]), []);
  });
});

describe("times, duration and time to first token", () => {
  it("from the kernel's arrival times, relative to the run's RUN_STARTED", () => {
    const times = [1000, 1100, 1300, 1500, 1600, 1700, 1750, 1900, 1950, 2200];
    const [group] = groupRuns(VIEW);
    assert.ok(group);
    const offsets = liveOffsets(group, times);
    assert.deepEqual(offsets, [0, 100, 300, 500, 600, 700, 750, 900, 950, 1200]);
    assert.deepEqual(runTiming(group, VIEW, offsets), { duration: 1200, firstToken: 300 });
  });

  it("knows nothing without the RUN_STARTED's time (a snapshot's tail)", () => {
    const [group] = groupRuns(VIEW);
    assert.ok(group);
    const times = VIEW.map((_, i) => (i === 0 ? null : 1000 + i));
    const offsets = liveOffsets(group, times);
    assert.ok(offsets.every((t) => t === null));
    assert.deepEqual(runTiming(group, VIEW, offsets), { duration: null, firstToken: null });
  });

  it("from a record, matching merged deltas to their first part", () => {
    const record = parseRecord(recordText("r1", RUN));
    assert.deepEqual(record.errors, []);
    const offsets = recordOffsets(VIEW, true, record.events);
    assert.deepEqual(offsets, [0, 100, 300, 500, 600, 650, 750, 900, 950, 1200]);
    const [group] = groupRuns(VIEW);
    assert.ok(group);
    assert.deepEqual(runTiming(group, VIEW, offsets), { duration: 1200, firstToken: 300 });
  });

  it("from a record, for a tail that begins mid-run (matched from the end)", () => {
    const tail = VIEW.slice(5); // from the merged TOOL_CALL_ARGS on
    const offsets = recordOffsets(tail, false, parseRecord(recordText("r1", RUN)).events);
    assert.deepEqual(offsets, [650, 750, 900, 950, 1200]);
    const [group] = groupRuns(tail);
    assert.ok(group);
    assert.deepEqual(runTiming(group, tail, offsets), { duration: 1200, firstToken: null }, "the first token was before the tail");
  });

  it("leaves unknown what the record does not hold", () => {
    const offsets = recordOffsets([ev.runStarted("r1"), ev.toolStart("zz", "other"), ev.runFinished("r1")], true, parseRecord(recordText("r1", RUN)).events);
    assert.deepEqual(offsets, [0, null, 1200]);
  });

  it("writes seconds for people", () => {
    assert.equal(seconds(1234), "1.23 s");
    assert.equal(seconds(1234, 3), "1.234 s");
    assert.equal(seconds(125_000), "2 min 5 s");
  });
});

describe("the timeline", () => {
  const times = [0, 100, 300, 500, 600, 700, 750, 900, 950, 1200];

  it("has a lane per kind of output the run has, and a bar or a tick per item", () => {
    const timeline = buildTimeline(VIEW, times);
    assert.ok(timeline);
    assert.equal(timeline.duration, 1200);
    assert.deepEqual(timeline.counts, { text: 1, reasoning: 0, tool: 1, step: 0, state: 1 });
    const byLane = Object.fromEntries(timeline.marks.map((m) => [m.lane, [m.label, m.start, m.end, m.tick]]));
    assert.deepEqual(byLane, {
      text: ["assistant", 100, 500, false],
      tool: ["get_weather", 600, 900, false],
      state: ["STATE_DELTA", 950, 950, true],
    });
    assert.equal(timelineSummary(timeline), "run timeline: 1 text message, 1 tool call, 1 state change over 1.2 s");
  });

  it("draws steps and reasoning, stacks parallel calls, and ends open bars with the run", () => {
    const log: AguiEvent[] = [
      ev.runStarted(),
      { type: "STEP_STARTED", stepName: "plan" } as AguiEvent,
      { type: "REASONING_MESSAGE_START", messageId: "r", role: "reasoning" } as AguiEvent,
      { type: "REASONING_MESSAGE_END", messageId: "r" } as AguiEvent,
      ev.toolStart("a", "one"),
      ev.toolStart("b", "two"),
      ev.toolEnd("a"),
      ev.toolEnd("b"),
      { type: "STEP_FINISHED", stepName: "plan" } as AguiEvent,
      ev.textStart("m"),
      ev.runError("cut"),
    ];
    const timeline = buildTimeline(log, [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    assert.ok(timeline);
    const marks = Object.fromEntries(timeline.marks.map((m) => [m.label, [m.lane, m.start, m.end, m.row]]));
    assert.deepEqual(marks, {
      plan: ["step", 10, 80, 0],
      reasoning: ["reasoning", 20, 30, 0],
      one: ["tool", 40, 60, 0],
      two: ["tool", 50, 70, 1],
      assistant: ["text", 90, 100, 0],
    });
    assert.equal(timelineSummary(timeline), "run timeline: 1 text message, 1 reasoning message, 2 tool calls, 1 step over 0.1 s");
  });

  it("is null without times", () => {
    assert.equal(buildTimeline(VIEW, VIEW.map(() => null)), null);
  });

  it("lays out lanes top to bottom, x proportional to time, and an axis under them", () => {
    const timeline = buildTimeline(VIEW, times);
    assert.ok(timeline);
    const layout = layoutTimeline(timeline);
    const g = GEOMETRY;
    assert.deepEqual(layout.lanes.map((l) => l.label), ["text", "tools", "state"], "no lane for what the run does not have");
    assert.deepEqual(layout.lanes.map((l) => l.y), [g.top, g.top + g.row + g.laneGap, g.top + 2 * (g.row + g.laneGap)]);
    const span = g.width - g.pad - g.label;
    const [text, tool, state] = layout.marks;
    assert.ok(text && tool && state);
    assert.equal(text.x, g.label + (100 / 1200) * span);
    assert.equal(text.w, (400 / 1200) * span);
    assert.equal(tool.y, layout.lanes[1]?.y);
    assert.equal(state.w, 2, "a tick");
    assert.equal(layout.axis.y, g.top + 3 * (g.row + g.laneGap));
    assert.equal(layout.height, layout.axis.y + g.axis);
    for (const m of layout.marks) assert.ok(m.x >= g.label && m.x + m.w <= g.width - g.pad + 1e-9, `${m.label} stays in the drawing`);
  });

  it("stacks parallel bars in rows of their lane, and a zero-length run still draws", () => {
    const log = [ev.runStarted(), ev.toolStart("a", "one"), ev.toolStart("b", "two"), ev.toolEnd("a"), ev.toolEnd("b")];
    const timeline = buildTimeline(log, [0, 0, 0, 0, 0]);
    assert.ok(timeline);
    const layout = layoutTimeline(timeline);
    assert.equal(layout.lanes[0]?.h, 2 * GEOMETRY.row + GEOMETRY.rowGap);
    assert.deepEqual(layout.marks.map((m) => [m.y, m.w]), [
      [GEOMETRY.top, 2],
      [GEOMETRY.top + GEOMETRY.row + GEOMETRY.rowGap, 2],
    ]);
  });
});

describe("reading a run's record", () => {
  it("reads the header, the run's input and its events with their times", () => {
    const text = recordText("r1", RUN, { messages: [{ id: "u", role: "user", content: "weather in Paris" }] });
    const record = parseRecord(text);
    assert.equal(record.header?.agent, "DemoAgent");
    assert.equal(record.input?.runId, "r1");
    assert.equal(record.started, "2025-01-01T00:00:00.000+00:00");
    assert.deepEqual(types(record.events.map((e) => e.event)), types(RUN.map(([, e]) => e)));
    assert.equal(record.events[2]?.t, 0.301);
    assert.deepEqual(record.errors, []);
  });

  it("skips lines that are not what their place asks for, and names them", () => {
    const good = recordText("r1", RUN.slice(0, 2)).split("\n");
    const text = [
      good[0],
      "not json",
      good[1],
      "[1, 2]",
      JSON.stringify({ kind: "event", t: "soon", event: { type: "X" } }),
      JSON.stringify({ kind: "event", t: 1, event: {} }),
      JSON.stringify({ kind: "mystery" }),
      good[2],
      "",
      JSON.stringify({ kind: "run", input: { runId: "r2" } }),
      JSON.stringify({ kind: "event", t: 9, event: { type: "RUN_STARTED", runId: "r2" } }),
      good[3],
    ].join("\n");
    const record = parseRecord(text);
    assert.equal(record.input?.runId, "r1");
    assert.deepEqual(types(record.events.map((e) => e.event)), ["RUN_STARTED"], "only the first run's good events");
    assert.deepEqual(record.errors, [
      "line 2 is not JSON",
      "line 4 has no kind",
      "line 5: an event without its time or type",
      "line 6: an event without its time or type",
      'line 7: an unknown kind "mystery", ignored',
      "line 10: a second run, ignored",
    ]);
  });

  it("says when the first line is not a header, or the format is newer", () => {
    const noHeader = parseRecord(recordText("r1", []).split("\n").slice(1).join("\n"));
    assert.equal(noHeader.input?.runId, "r1");
    assert.deepEqual(noHeader.errors, ["line 1 is not a recording header"]);
    const newer = parseRecord(`${JSON.stringify({ kind: "recording", version: 2 })}\n`);
    assert.deepEqual(newer.errors, ["line 1: format version 2, newer than this view reads (1)"]);
    assert.deepEqual(parseRecord("").errors, []);
    assert.equal(parseRecord("").input, null);
  });
});
