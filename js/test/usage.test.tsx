/** A turn's token usage, quietly under its answer: the model and the tokens in and out the kernel
 * marked on the answer (`agui_widget.usage`, the turn's runs summed), the thread's totals under the
 * last answer, and nothing at all for an agent that reports no usage. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { connected, until } from "./mount";

const QUESTION = { id: "u1", role: "user", content: "weather in Paris?" };
const plain = (id: string, content: string) => ({
  id,
  role: "assistant",
  content,
});
const used = (id: string, content: string, usage: unknown[]) => ({
  ...plain(id, content),
  metadata: { agui_widget: { usage } },
});
const line = (el: HTMLElement, id: string) => el.querySelector(`[data-row="${id}"] .agui-usage`) as HTMLElement | null;

describe("token usage under an answer", () => {
  it("shows the model and the tokens in and out, with a label for screen readers", async () => {
    const answer = used("a1", "Sunny.", [
      {
        provider: "openai",
        model: "gpt-4o-mini",
        inputTokens: 1234,
        outputTokens: 56,
        totalTokens: 1290,
      },
    ]);
    const { el } = await connected([QUESTION, answer]);
    const shown = line(el, "a1");
    assert.ok(shown, "the usage line is shown");
    assert.equal(shown.textContent, "Tokens used: gpt-4o-mini · 1,234 in · 56 out");
    assert.equal(shown.querySelector(".agui-visually-hidden")?.textContent, "Tokens used: ");
  });

  it("sums a turn that used several models, and leaves the model out when none was named", async () => {
    const both = used("a1", "Done.", [
      { model: "small", inputTokens: 10, outputTokens: 2 },
      { model: "large", inputTokens: 30, outputTokens: 4 },
    ]);
    const unnamed = used("a2", "Again.", [{ inputTokens: 7, outputTokens: 1 }]);
    const { el } = await connected([QUESTION, both, { id: "u2", role: "user", content: "more" }, unnamed]);
    assert.equal(line(el, "a1")?.textContent, "Tokens used: small, large · 40 in · 6 out");
    assert.match(line(el, "a2")?.textContent ?? "", /^Tokens used: 7 in · 1 out/);
  });

  it("shows the thread's totals under the last answer once more than one turn counted", async () => {
    const first = used("a1", "One.", [{ model: "m", inputTokens: 100, outputTokens: 10 }]);
    const second = used("a2", "Two.", [{ model: "m", inputTokens: 250, outputTokens: 20 }]);
    const { el } = await connected([QUESTION, first, { id: "u2", role: "user", content: "more" }, second]);
    assert.equal(line(el, "a1")?.querySelector(".agui-usage-thread"), null);
    assert.equal(line(el, "a2")?.querySelector(".agui-usage-thread")?.textContent, " · this thread: 350 in · 30 out");
  });

  it("shows nothing for an answer without usage, or with usage that counts no tokens", async () => {
    const zero = used("a2", "Zero.", [{ model: "m", inputTokens: 0, outputTokens: 0 }]);
    const { el } = await connected([QUESTION, plain("a1", "No usage."), { id: "u2", role: "user", content: "more" }, zero]);
    assert.equal(el.querySelector(".agui-usage"), null);
  });

  it("appears when the kernel marks the answer at the end of the turn", async () => {
    const { model, el } = await connected([QUESTION, plain("a1", "Sunny.")]);
    assert.equal(line(el, "a1"), null);
    model.kernel({
      kind: "messages",
      start: 1,
      messages: [used("a1", "Sunny.", [{ model: "m", inputTokens: 5, outputTokens: 1 }])],
    });
    await until(() => line(el, "a1") !== null, "the usage line");
    assert.equal(line(el, "a1")?.textContent, "Tokens used: m · 5 in · 1 out");
  });
});

describe("the context meter", () => {
  const answer = used("a1", "Sunny.", [{ model: "m", inputTokens: 32000, outputTokens: 10 }]);

  it("shows the last turn's input tokens against the model's window, with an accessible label", async () => {
    const { model, el } = await connected([QUESTION, answer]);
    model.set("context_window", 128000);
    await until(() => el.querySelector("meter") !== null, "the meter");
    const meter = el.querySelector("meter") as HTMLMeterElement;
    assert.equal(meter.getAttribute("aria-label"), "Context window: 32,000 of 128,000 tokens");
    assert.equal(meter.getAttribute("max"), "128000");
    assert.equal(meter.getAttribute("value"), "32000");
    assert.match(line(el, "a1")?.textContent ?? "", / · context 25% of 128,000$/);
  });

  it("is not shown when the window is unknown, nor under an earlier answer", async () => {
    const later = used("a2", "Again.", [{ model: "m", inputTokens: 40000, outputTokens: 5 }]);
    const { model, el } = await connected([QUESTION, answer, { id: "u2", role: "user", content: "more" }, later]);
    assert.equal(el.querySelector("meter"), null);
    model.set("context_window", 128000);
    await until(() => el.querySelector("meter") !== null, "the meter");
    assert.equal(el.querySelectorAll("meter").length, 1);
    assert.ok(line(el, "a2")?.querySelector("meter"), "under the last answer");
  });
});
