/** `@` in the message box: the list of the kernel's variables (asked once per `@`, filtered as the
 * user types), its keys and mouse, the chip a pick holds, and the summary sent with the message
 * as a text document named `@name`. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { VariableEntry } from "../src/kernel/wire";
import { describeVariable, matching, mentionAt, mentionPart, withMention } from "../src/logic/mentions";
import { FakeModel, doc, idle, until, untilSent } from "./dom";
import { button, connected, maybeButton, press, textbox, type } from "./mount";

const variable = (name: string, more: Partial<VariableEntry> = {}): VariableEntry => ({
  name,
  type: "int",
  kind: "data",
  shape: null,
  size: 28,
  secret: false,
  ...more,
});

const VARIABLES: VariableEntry[] = [
  variable("df", { type: "DataFrame", shape: "(3, 2)", size: 400 }),
  variable("data_path", { type: "str", shape: "12 chars" }),
  variable("load_data", { type: "function", kind: "function", shape: null }),
  variable("Dataset", { type: "type", kind: "class", shape: null }),
  variable("api_key", { type: "str", secret: true }),
];

const SUMMARY = "DataFrame df: 3 rows × 2 columns\n  a  int64\n  b  object — café";

async function composer(policy?: Record<string, unknown>) {
  const view = await connected([], new FakeModel(policy ? { attachment_policy: policy } : {}));
  const box = textbox(view.el, "Message") as HTMLTextAreaElement;
  box.focus();
  return { ...view, box };
}

const options = (el: HTMLElement) => [...el.querySelectorAll('[role="listbox"] [role="option"]')] as HTMLElement[];
const optionNames = (el: HTMLElement) => options(el).map((o) => o.querySelector(".agui-mention-name")?.textContent);
const selected = (el: HTMLElement) => el.querySelector('[role="option"][aria-selected="true"]') as HTMLElement | null;
const chips = (el: HTMLElement) => [...el.querySelectorAll(".agui-held-mention")] as HTMLElement[];
const status = (el: HTMLElement) => el.querySelector(".agui-mentions-status")?.textContent ?? "";
const problem = (el: HTMLElement) => el.querySelector(".agui-attach-problem[role=alert]")?.textContent ?? "";

/** The kernel's answer to the latest `variables` request. */
async function answerVariables(model: FakeModel, variables: VariableEntry[] = VARIABLES, error: string | null = null) {
  const asked = await untilSent(model, "variables");
  model.kernel({ kind: "variables", requestId: asked.at(-1)?.requestId, variables: error ? [] : variables, error });
}

/** The kernel's answer to the latest `inspect_variable` request. */
async function answerSummary(model: FakeModel, summary: string | null = SUMMARY, error: string | null = null) {
  const asked = await untilSent(model, "inspect_variable");
  const last = asked.at(-1);
  model.kernel({ kind: "variable", requestId: last?.requestId, name: last?.name, summary, error });
}

/** Types `@df`, answers the list, and picks `df` with Enter. */
async function pickDf(model: FakeModel, el: HTMLElement, box: HTMLTextAreaElement, before = "plot ") {
  type(box, `${before}@df`);
  await answerVariables(model);
  await until(() => optionNames(el)[0] === "@df", "df listed first");
  press(box, "Enter");
  await until(() => chips(el).length === 1, "the chip held");
}

describe("mentions, without the DOM", () => {
  it("finds the mention the caret is in, and not an e-mail address", () => {
    assert.deepEqual(mentionAt("@", 1), { start: 0, query: "" });
    assert.deepEqual(mentionAt("plot @df", 8), { start: 5, query: "df" });
    assert.deepEqual(mentionAt("plot @df.col", 12), { start: 5, query: "df.col" });
    assert.deepEqual(mentionAt("(@x", 3), { start: 1, query: "x" });
    assert.deepEqual(mentionAt("plot @df", 7), { start: 5, query: "d" }, "up to the caret");
    assert.equal(mentionAt("mail me@example.org", 19), null);
    assert.equal(mentionAt("plot @df now", 12), null, "the caret is past the mention");
    assert.equal(mentionAt("meet @ 5", 8), null);
    assert.equal(mentionAt("plot @df", 8, 6), null, "a selection is not a caret");
  });

  it("matches names that start with the query first, data before functions and classes", () => {
    assert.deepEqual(
      matching(VARIABLES, "d").map((v) => v.name),
      ["data_path", "df", "Dataset", "load_data"],
    );
    assert.deepEqual(
      matching(VARIABLES, "DATA").map((v) => v.name),
      ["data_path", "Dataset", "load_data"],
    );
    assert.deepEqual(matching(VARIABLES, "zzz"), []);
    assert.equal(matching(VARIABLES, "").length, VARIABLES.length);
  });

  it("says a variable's type and shape, and a secret's type alone", () => {
    assert.equal(describeVariable(VARIABLES[0] as VariableEntry), "DataFrame · (3, 2)");
    assert.equal(describeVariable(variable("token", { type: "str", shape: "40 chars", secret: true })), "str");
  });

  it("writes @name in place of @query, followed by one space", () => {
    assert.deepEqual(withMention("plot @d", { start: 5, query: "d" }, 7, "df"), { text: "plot @df ", caret: 9 });
    assert.deepEqual(withMention("plot @d against x", { start: 5, query: "d" }, 7, "df"), { text: "plot @df against x", caret: 9 });
  });

  it("makes the part a summary travels as: a text document named @name, its UTF-8 in base64", () => {
    assert.deepEqual(mentionPart("df", "café"), {
      type: "document",
      source: { type: "data", value: Buffer.from("café", "utf-8").toString("base64"), mimeType: "text/plain" },
      metadata: { filename: "@df" },
    });
  });
});

describe("the @ list", () => {
  it("asks the kernel once per @, lists what matches, and filters as the user types", async () => {
    const { model, el, box } = await composer();
    type(box, "@");
    await answerVariables(model);
    await until(() => options(el).length === VARIABLES.length, "every variable listed");
    assert.equal(box.getAttribute("aria-controls"), el.querySelector('[role="listbox"]')?.id);
    type(box, "@d");
    type(box, "@df");
    await until(() => optionNames(el).join() === "@df", "only df matches @df");
    assert.equal(model.sentOf("variables").length, 1, "typing on asks nothing more");
    assert.match(options(el)[0]?.textContent ?? "", /DataFrame · \(3, 2\)/);
    type(box, "@df and @");
    await untilSent(model, "variables", 2);
  });

  it("lists functions and classes apart, after the data, and a secret with its type alone", async () => {
    const { model, el, box } = await composer();
    type(box, "@");
    await answerVariables(model);
    await until(() => options(el).length === VARIABLES.length, "the list");
    const apart = options(el).filter((o) => o.hasAttribute("data-apart"));
    assert.equal(apart.length, 1, "one separation");
    const firstCallable = options(el).findIndex((o) => o.dataset.kind !== "data");
    assert.equal(options(el).indexOf(apart[0] as HTMLElement), firstCallable);
    assert.ok(options(el).slice(firstCallable).every((o) => o.dataset.kind !== "data"), "no data after the functions");
    assert.match(options(el)[firstCallable]?.textContent ?? "", /class|function/i);
    const secret = options(el).find((o) => o.textContent?.includes("@api_key")) as HTMLElement;
    assert.equal(secret.querySelector(".agui-mention-type")?.textContent, "str");
  });

  it("moves with ↑ and ↓, picks with Enter, writes @name and holds its chip", async () => {
    const { model, el, box } = await composer();
    type(box, "compare @da");
    await answerVariables(model);
    await until(() => options(el).length === 3, "three names hold 'da'");
    assert.equal(selected(el)?.textContent?.includes("@data_path"), true, "the first is active");
    press(box, "ArrowDown");
    await until(() => selected(el)?.textContent?.includes("@Dataset") === true, "↓ moves down");
    assert.equal(box.getAttribute("aria-activedescendant"), selected(el)?.id);
    press(box, "ArrowUp");
    press(box, "ArrowUp");
    await until(() => selected(el)?.textContent?.includes("@load_data") === true, "↑ from the first wraps to the last");
    press(box, "ArrowDown");
    await until(() => selected(el)?.textContent?.includes("@data_path") === true, "and ↓ wraps back");
    const enter = press(box, "Enter");
    assert.equal(enter.defaultPrevented, true);
    await until(() => chips(el).length === 1, "the chip held");
    assert.equal(box.value, "compare @data_path ");
    assert.equal(box.selectionStart, box.value.length, "the caret after the name");
    assert.equal(el.querySelector('[role="listbox"]'), null, "the list closed");
    assert.equal(model.sentOf("send").length, 0, "Enter picked; it did not send");
    const [asked] = await untilSent(model, "inspect_variable");
    assert.equal(asked?.name, "data_path");
  });

  it("picks with Tab and with the mouse, keeping the focus in the box", async () => {
    const { model, el, box } = await composer();
    type(box, "@l");
    await answerVariables(model);
    await until(() => optionNames(el).join() === "@load_data", "load_data alone holds an l");
    press(box, "Tab");
    await until(() => chips(el).length === 1, "Tab picked");
    assert.equal(box.value, "@load_data ");
    type(box, "@load_data @d");
    await answerVariables(model);
    await until(() => optionNames(el).includes("@df"), "the list again");
    const df = options(el).find((o) => o.textContent?.includes("@df")) as HTMLElement;
    const down = new (globalThis as any).MouseEvent("mousedown", { bubbles: true, cancelable: true });
    df.dispatchEvent(down);
    assert.equal(down.defaultPrevented, true, "the box keeps the focus");
    df.click();
    await until(() => chips(el).length === 2, "the click picked");
    assert.equal(box.value, "@load_data @df ");
    assert.equal(doc.activeElement, box);
  });

  it("closes with Escape, staying in the box, and leaves Enter to send while closed", async () => {
    const { model, el, box } = await composer();
    type(box, "hello @d");
    await answerVariables(model);
    await until(() => options(el).length > 0, "the list");
    const escape = press(box, "Escape");
    assert.equal(escape.defaultPrevented, true);
    await until(() => el.querySelector(".agui-mentions") === null, "closed");
    assert.equal(doc.activeElement, box, "Escape closed the list, not the box");
    type(box, "hello @df");
    await idle();
    assert.equal(el.querySelector(".agui-mentions"), null, "this @ stays closed once dismissed");
    press(box, "Enter");
    const [request] = await untilSent(model, "send");
    assert.equal(request?.text, "hello @df");
    assert.equal(request?.attachments, undefined, "no chip, no part");
    press(box, "Escape");
    await until(() => doc.activeElement !== box, "Escape with the list closed leaves the box, as before");
  });

  it("says so when no variable matches, and shows the kernel's reason when it has no namespace", async () => {
    const { model, el, box } = await composer();
    type(box, "@zz");
    await until(() => /Asking the kernel/.test(status(el)), "the list says it is asking");
    await answerVariables(model);
    await until(() => status(el) === "No variable matches “zz”.", "no match said");
    const enter = press(box, "Enter");
    assert.equal(enter.defaultPrevented, true, "Enter with nothing to pick sends, as without the list");
    await untilSent(model, "send");
    type(box, "@");
    await answerVariables(model, [], "This chat is not running in an IPython kernel (a notebook): there are no variables to mention.");
    await until(() => /not running in an IPython kernel/.test(status(el)), "the reason shown in the list");
    assert.ok(el.querySelector(".agui-mentions-error[role=status]"));
  });
});

describe("a mention's chip", () => {
  it("sends the summary with the message as a text document named @name, and empties", async () => {
    const { model, el, box } = await composer();
    await pickDf(model, el, box);
    await answerSummary(model);
    await until(() => chips(el)[0]?.dataset.state === "ready", "the summary came");
    assert.match(chips(el)[0]?.textContent ?? "", /@df/);
    type(box, "plot @df please");
    press(box, "Enter");
    const [request] = await untilSent(model, "send");
    assert.equal(request?.text, "plot @df please");
    assert.deepEqual(request?.attachments, [mentionPart("df", SUMMARY)]);
    await until(() => chips(el).length === 0, "the chips go with the message");
    const waiting = el.querySelector(".agui-row-outgoing .agui-file-chip")?.textContent ?? "";
    assert.match(waiting, /@df/, "the waiting message shows it");
  });

  it("waits for a summary still coming before it sends", async () => {
    const { model, el, box } = await composer();
    await pickDf(model, el, box, "");
    press(box, "Enter");
    await idle();
    assert.equal(model.sentOf("send").length, 0, "not without the summary");
    await answerSummary(model);
    const [request] = await untilSent(model, "send");
    assert.equal((request?.attachments as unknown[]).length, 1);
  });

  it("goes when removed, the focus back in the box, and nothing is sent for it", async () => {
    const { model, el, box } = await composer();
    await pickDf(model, el, box);
    await answerSummary(model);
    button(el, "Remove @df").click();
    await until(() => chips(el).length === 0, "removed");
    assert.equal(doc.activeElement, box);
    press(box, "Enter");
    const [request] = await untilSent(model, "send");
    assert.equal(request?.attachments, undefined);
  });

  it("without a summary keeps the message back, saying why, until it is removed", async () => {
    const { model, el, box } = await composer();
    await pickDf(model, el, box);
    await answerSummary(model, null, "There is no variable named 'df' in the kernel.");
    await until(() => chips(el)[0]?.dataset.state === "failed", "the chip says it failed");
    press(box, "Enter");
    await until(() => problem(el) !== "", "the reason said");
    assert.match(problem(el), /@df: There is no variable named 'df' in the kernel\. Remove it to send the message\./);
    assert.equal(model.sentOf("send").length, 0);
    assert.equal(box.value, "plot @df ", "the text stays");
    button(el, "Remove @df").click();
    await until(() => problem(el) === "", "the reason goes with the chip");
    press(box, "Enter");
    await untilSent(model, "send");
  });

  it("is held in a chat that takes no files: a summary is context, not an attachment", async () => {
    const { model, el, box } = await composer({ enabled: false, accept: [], maxBytes: 1, maxFiles: 1, maxTotalBytes: 1 });
    assert.equal(maybeButton(el, "Attach files"), null);
    await pickDf(model, el, box);
    await answerSummary(model);
    press(box, "Enter");
    const [request] = await untilSent(model, "send");
    assert.deepEqual(request?.attachments, [mentionPart("df", SUMMARY)]);
    assert.equal(problem(el), "");
  });

  it("comes back as a chip with a message the kernel never showed", async () => {
    const { model, el, box } = await composer();
    await pickDf(model, el, box);
    await answerSummary(model);
    press(box, "Enter");
    await untilSent(model, "send");
    await until(() => chips(el).length === 0, "sent");
    model.kernel({ kind: "notice", level: "warning", text: "send: the kernel refused it" });
    await until(() => chips(el).length === 1, "the chip back");
    assert.equal(box.value, "plot @df");
    press(box, "Enter");
    const requests = await untilSent(model, "send", 2);
    assert.deepEqual(requests[1]?.attachments, [mentionPart("df", SUMMARY)], "sent again as it was");
  });
});
