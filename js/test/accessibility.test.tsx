/** What assistive technology gets from the chat: one polite "Answer finished" per finished answer
 * (the transcript is not a live region), and the event inspector's rows as one Tab stop. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { answerEnded, finishedAnswer, firstWords } from "../src/logic/announce";
import { assignTabStop, nextRow } from "../src/view/roving";
import type { Message } from "../src/kernel/wire";
import { FakeModel, idle, until } from "./dom";
import { ev } from "./helpers";
import { button, connected, press } from "./mount";

const announcer = (el: HTMLElement) => el.querySelector(".agui-announcer") as HTMLElement;
const doc = () => (globalThis as unknown as { document: Document }).document;

describe("the answer announcer", () => {
  it("reads an answer's first words without Markdown's marks", () => {
    assert.equal(firstWords("**Sunny** in `Paris`, see [the map](https://example.com)."), "Sunny in Paris, see the map.");
    assert.equal(firstWords("one two three four", 3), "one two three…");
    assert.equal(firstWords("  \n "), "");
  });

  it("names the latest turn's answer, and nothing for a turn without one", () => {
    const turn: Message[] = [
      { id: "u1", role: "user", content: "hi" },
      { id: "a1", role: "assistant", content: "Hello there" },
      { id: "u2", role: "user", content: "weather?" },
      { id: "a2", role: "assistant", content: "Sunny, 21 °C." },
      { id: "t1", role: "tool", toolCallId: "c1", content: '{"ok": true}' },
    ];
    assert.equal(finishedAnswer(turn), "Answer finished: Sunny, 21 °C.");
    assert.equal(finishedAnswer(turn.slice(0, 3)), null, "the last turn has no answer yet");
    assert.equal(answerEnded("running", "idle"), true);
    assert.equal(answerEnded("running", "error"), false, "an error is an alert of its own");
    assert.equal(answerEnded("running", "waiting"), false, "the status line says the chat waits");
    assert.equal(answerEnded("waiting", "idle"), false);
  });

  it("announces each finished answer once, politely, and keeps the transcript quiet", async () => {
    const { model, el } = await connected([{ id: "u1", role: "user", content: "weather in Paris" }]);
    const region = announcer(el);
    assert.equal(region.getAttribute("aria-live"), "polite");
    assert.equal(region.textContent, "", "nothing to say before an answer");
    const log = el.querySelector('[role="log"]') as HTMLElement;
    assert.equal(log.getAttribute("aria-live"), "off", "a streamed answer is not read token by token");
    assert.equal(log.hasAttribute("aria-busy"), false, "the transcript is never hidden from readers as busy");

    model.set("status", "running");
    model.kernel({ kind: "events", events: [ev.runStarted(), ev.textStart("a1"), ev.text("a1", "It is **sunny** in Paris today.")] });
    await until(() => log.textContent?.includes("in Paris today") === true, "the streamed answer shown");
    assert.equal(region.textContent, "", "silent while the answer streams");
    model.kernel({ kind: "events", events: [ev.textEnd("a1"), ev.runFinished()] });
    model.set("status", "idle");
    await until(() => region.textContent === "Answer finished: It is sunny in Paris today.", "the finished answer announced");

    await idle(); // whatever the view still had to render
    assert.equal(region.textContent, "Answer finished: It is sunny in Paris today.", "said once, and kept");
    model.set("status", "running");
    await until(() => region.textContent === "", "emptied when the next run starts, so the next answer is new text");
    model.kernel({ kind: "events", events: [ev.runStarted("r2"), ev.runError("the service is down")] });
    model.set("status", "error");
    await until(() => el.textContent?.includes("the service is down") === true, "the failed run shown");
    assert.equal(region.textContent, "", "a failed run is not an answer");
  });
});

/** A list of `count` focusable rows, in a document. */
function rows(count: number): HTMLElement[] {
  const list = doc().createElement("div");
  doc().body.append(list);
  return Array.from({ length: count }, () => list.appendChild(doc().createElement("button")));
}

describe("the event inspector's single Tab stop", () => {
  it("gives the Tab stop to one row and moves it with the arrow keys, Home and End", () => {
    const list = rows(4);
    assert.equal(assignTabStop(list, null), list[0]);
    assert.deepEqual(
      list.map((r) => r.tabIndex),
      [0, -1, -1, -1],
    );
    assert.equal(assignTabStop(list, list[2] as HTMLElement), list[2]);
    assert.deepEqual(
      list.map((r) => r.tabIndex),
      [-1, -1, 0, -1],
    );
    assert.equal(assignTabStop(list.slice(0, 2), list[2] as HTMLElement), list[0], "a row gone: the first takes the stop");
    const [first, second, , last] = list as [HTMLElement, HTMLElement, HTMLElement, HTMLElement];
    assert.equal(nextRow(list, first, "ArrowDown"), second);
    assert.equal(nextRow(list, first, "ArrowUp"), first);
    assert.equal(nextRow(list, second, "End"), last);
    assert.equal(nextRow(list, last, "Home"), first);
    assert.equal(nextRow(list, last, "ArrowDown"), last);
    assert.equal(nextRow(list, first, "Enter"), null, "Enter opens the row, as it did");
  });

  it("makes a run's events one Tab stop, walked with the arrow keys", async () => {
    const model = new FakeModel();
    const { el } = await connected([], model);
    const deltas = Array.from({ length: 30 }, (_, i) => ev.text("a1", `word${i} `));
    model.kernel({ kind: "events", events: [ev.runStarted(), ev.textStart("a1"), ...deltas, ev.textEnd("a1"), ev.runFinished()] });
    await until(() => el.textContent?.includes("word29") === true, "the answer shown");
    button(el, "Show events").click();
    const rowsShown = () => [...el.querySelectorAll(".agui-event > details > summary")] as HTMLElement[];
    await until(() => rowsShown().length >= 30, "the event rows shown");
    const summaries = rowsShown();
    const stops = summaries.filter((s) => s.tabIndex === 0);
    assert.deepEqual(stops, [summaries[0]], "one Tab stop for all the rows");
    (summaries[0] as HTMLElement).focus();
    press(summaries[0] as HTMLElement, "ArrowDown");
    assert.equal(doc().activeElement, summaries[1], "ArrowDown goes to the next row");
    assert.deepEqual(
      summaries.filter((s) => s.tabIndex === 0),
      [summaries[1]],
      "the row focused keeps the Tab stop",
    );
    press(summaries[1] as HTMLElement, "End");
    assert.equal(doc().activeElement, summaries[summaries.length - 1]);
    model.kernel({ kind: "events", events: [ev.runStarted("r2"), ev.runFinished("r2")] });
    await until(() => rowsShown().length > summaries.length, "the new run's rows shown");
    const after = rowsShown();
    assert.equal(after.filter((s) => s.tabIndex === 0).length, 1, "still one Tab stop as events come");
  });
});
