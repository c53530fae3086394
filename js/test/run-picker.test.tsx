/** The event inspector's run picker names each run by what the user asked (the start of the user
 * message that led to it) and when it started, keeping the run's id in the option's title. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { groupRuns, runPrompts } from "../src/logic/runs";
import type { AguiEvent, Message } from "../src/kernel/wire";
import { FakeModel, until, untilCount } from "./dom";
import { ev } from "./helpers";
import { button, connected } from "./mount";

const user = (id: string, content: unknown): Message => ({ id, role: "user", content }) as Message;
const assistant = (id: string, text = "ok", toolCalls?: unknown[]): Message =>
  ({ id, role: "assistant", content: text, ...(toolCalls ? { toolCalls } : {}) }) as Message;
const answered = (runId: string, messageId: string): AguiEvent[] => [ev.runStarted(runId), ev.textStart(messageId), ev.text(messageId, "ok"), ev.textEnd(messageId), ev.runFinished(runId)];
const promptIds = (events: AguiEvent[], messages: Message[]) => runPrompts(groupRuns(events), events, messages).map((m) => m?.id);

describe("the user message that led to each run", () => {
  it("is the last user message before what the run wrote, by message or by tool call", () => {
    const call = { id: "c2", type: "function", function: { name: "get_weather", arguments: "{}" } };
    const messages = [user("u1", "hi"), assistant("a1"), user("u2", "weather?"), assistant("a2", "", [call])];
    const events = [...answered("r1", "a1"), ev.runStarted("r2"), ev.toolStart("c2", "get_weather"), ev.toolEnd("c2"), ev.runFinished("r2")];
    assert.deepEqual(promptIds(events, messages), ["u1", "u2"]);
  });

  it("is the one a RUN_STARTED's input ends with, when the agent sends its input", () => {
    const messages = [user("u1", "hi"), user("u2", "again")];
    const started = { ...ev.runStarted("r1"), input: { messages: [{ id: "u1", role: "user", content: "hi" }] } } as AguiEvent;
    assert.deepEqual(promptIds([started, ev.runFinished("r1")], messages), ["u1"]);
  });

  it("for a run that wrote nothing: the next question asked, or the same turn's when none was", () => {
    const messages = [user("u0", "earlier"), user("u1", "fails"), user("u2", "works"), assistant("a2"), assistant("a3")];
    const failed = [ev.runStarted("r1"), ev.runError("boom")];
    const resumed = [ev.runStarted("r3"), ev.runFinished("r3")];
    assert.deepEqual(promptIds([...failed, ...answered("r2", "a2"), ...resumed], messages), ["u1", "u2", "u2"]);
    assert.deepEqual(promptIds([...answered("r2", "a2"), ...answered("r3", "a3")], messages), ["u2", "u2"], "a resumed run keeps its turn");
    assert.deepEqual(promptIds(failed, [user("u1", "only")]), ["u1"]);
    assert.deepEqual(promptIds(failed, []), [undefined]);
  });
});

describe("the run picker", () => {
  it("names a run by the start of what the user asked and when it started, with its id in the title", async () => {
    const at = 1_700_000_000_000;
    const long = "please tell me the weather in Paris tomorrow morning, and whether to bring an umbrella";
    const messages = [user("u1", "weather in Paris"), assistant("a1"), user("u2", [{ type: "text", text: long }]), assistant("a2")];
    const { model, el } = await connected(messages, new FakeModel(), {}, answered("run-1", "a1"));
    button(el, "Show events").click();
    await untilCount(el, 'select[aria-label="Filter events by run"] option', 2, "the run picker, with the snapshot's run");
    model.kernel({ kind: "events", events: answered("run-2", "a2"), times: [at, at + 10, at + 20, at + 30, at + 40] });
    await untilCount(el, 'select[aria-label="Filter events by run"] option', 3, "the live run in the run picker");
    const picker = el.querySelector('select[aria-label="Filter events by run"]') as HTMLSelectElement;
    const options = [...picker.options].slice(1);
    const clock = new Date(at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
    assert.deepEqual(
      options.map((o) => o.textContent),
      ["“weather in Paris”", `“please tell me the weather in Pa…” · ${clock}`],
      "the snapshot's events carry no time; the live run's do",
    );
    assert.deepEqual(options.map((o) => o.value), ["run-1", "run-2"]);
    assert.deepEqual(options.map((o) => o.getAttribute("title")), ["run run-1", "run run-2"]);
    picker.value = "run-2";
    picker.dispatchEvent(new (globalThis as unknown as { window: { Event: typeof Event } }).window.Event("change", { bubbles: true }));
    await until(() => picker.getAttribute("title") === "run run-2", "the chosen run's id, on the picker");
  });

  it("names a run by its id when the transcript does not show what led to it", async () => {
    const { el } = await connected([], new FakeModel(), {}, answered("r9", "a9"));
    button(el, "Show events").click();
    await untilCount(el, 'select[aria-label="Filter events by run"] option', 2, "the run picker, with the snapshot's run");
    const picker = el.querySelector('select[aria-label="Filter events by run"]') as HTMLSelectElement;
    assert.deepEqual([...picker.options].map((o) => o.textContent), ["All runs", "run r9"]);
  });
});
