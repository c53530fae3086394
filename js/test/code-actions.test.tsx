/** Code back into the notebook: "Insert as a cell" and "Run in kernel" on an answer's Python
 * blocks, the insert event and the extension's answer to it, the copy fallback, the confirm card,
 * and the run_python card that shows its code as code. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { doc, until, untilSent, untilText } from "./dom";
import { button, connected, maybeButton, press } from "./mount";
import { COPIED_NOTE, CONFIRM_QUESTION, INSERTED_NOTE, runsAsCell } from "../src/markdown/codeActions";
import { pythonFence } from "../src/view/CodeArgument";
import { INSERT_CELL_EVENT, type InsertCellDetail, listenForInserts } from "../labextension/src/index";

const win = (globalThis as unknown as { window: Window }).window;
const copied: string[] = [];
Object.defineProperty(win.navigator, "clipboard", {
  configurable: true,
  value: { writeText: async (text: string) => void copied.push(text) },
});

const ANSWER = [
  "Here it is:",
  "```python\nprint(6 * 7)\n```",
  "```bash\npip install pandas\n```",
  '```json\n{"a": 1}\n```',
  "```\nx = [1, 2]\nx\n```",
  '```\n{"plain": "json"}\n```',
].join("\n\n");

const conversation = [
  { id: "u1", role: "user", content: "```python\nprint('from the user')\n```" },
  { id: "a1", role: "assistant", content: ANSWER },
];

const blocks = (el: ParentNode) => [...el.querySelectorAll<HTMLElement>(".agui-codeblock")];
const names = (block: Element) => [...block.querySelectorAll(".agui-code-tools button")].map((b) => b.getAttribute("aria-label"));
const answerBlocks = (el: HTMLElement) => blocks(el.querySelector('[data-row="a1"]') as HTMLElement);

describe("code actions on an answer's blocks", () => {
  it("puts Insert and Run on Python blocks only, beside Copy, as named, titled buttons", async () => {
    const { el } = await connected(conversation);
    const [python, bash, json, unlabelled, unlabelledJson] = answerBlocks(el) as HTMLElement[];
    assert.deepEqual(names(python as Element), ["Insert as a cell", "Run in kernel", "Copy code"]);
    assert.deepEqual(names(bash as Element), ["Copy code"], "a shell block would not run as a cell");
    assert.deepEqual(names(json as Element), ["Copy code"]);
    assert.deepEqual(names(unlabelled as Element), ["Insert as a cell", "Run in kernel", "Copy code"], "an unlabelled block is taken for Python");
    assert.deepEqual(names(unlabelledJson as Element), ["Copy code"], "unless it is JSON");
    for (const b of (python as Element).querySelectorAll("button")) {
      assert.equal(b.title, b.getAttribute("aria-label"), "a tooltip says what the icon does");
      assert.equal(b.textContent, "", "the buttons add no text to the message");
      assert.ok(b.tabIndex >= 0, "reachable with the keyboard");
    }
    assert.equal(blocks(el.querySelector('[data-row="u1"]') as HTMLElement).length, 0, "a user message is text, never a code block");
  });

  it("decides by the fence's label, and looks at an unlabelled block", () => {
    for (const label of ["python", "py", "ipython", "Python", "python3"]) assert.ok(runsAsCell(label, "x = 1"), label);
    for (const label of ["bash", "sh", "json", "text", "js", "sql"]) assert.ok(!runsAsCell(label, "x = 1"), label);
    assert.ok(runsAsCell("", "df.head()"));
    assert.ok(runsAsCell("", "{'a': 1}"), "a dict literal that is not JSON");
    assert.ok(!runsAsCell("", "[1, 2, 3]"), "JSON");
    assert.ok(!runsAsCell("", "$ pip install x"), "a shell session");
    assert.ok(!runsAsCell("", "   "));
  });

  it("gives a block the actions once it is complete, not while it streams", async () => {
    const { el, model } = await connected([{ id: "u1", role: "user", content: "code?" }]);
    model.kernel({
      kind: "events",
      events: [
        { type: "RUN_STARTED", threadId: "t1", runId: "r1" },
        { type: "TEXT_MESSAGE_START", messageId: "a1", role: "assistant" },
        { type: "TEXT_MESSAGE_CONTENT", messageId: "a1", delta: "```python\nprint(1)\n" },
      ],
      times: [],
    });
    await until(() => blocks(el).length === 1, "the open block shows");
    assert.deepEqual(names(blocks(el)[0] as Element), ["Copy code"], "no Insert or Run on code still arriving");
    model.kernel({ kind: "events", events: [{ type: "TEXT_MESSAGE_CONTENT", messageId: "a1", delta: "```\n" }, { type: "TEXT_MESSAGE_END", messageId: "a1" }], times: [] });
    await until(() => names(blocks(el)[0] as Element).length === 3, "the finished block gets the actions");
  });

  it("dispatches a bubbling, composed insert event that the extension answers by adding a cell below the chat's", async () => {
    const { el } = await connected(conversation);
    // A notebook as the extension sees it: three cells, the chat in the second one's output.
    const cells = [0, 1, 2].map(() => ({ node: doc.createElement("div") }));
    const panel = doc.createElement("div");
    for (const cell of cells) panel.appendChild(cell.node);
    el.replaceWith(panel);
    (cells[1] as { node: HTMLElement }).node.appendChild(el);
    const inserted: Array<{ index: number; source: string }> = [];
    const notebook = {
      widgets: cells,
      activeCellIndex: 2,
      model: { sharedModel: { insertCell: (index: number, cell: { source: string }) => void inserted.push({ index, source: cell.source }) } },
    };
    const app = { shell: { widgets: () => [{ node: panel, content: notebook }], currentWidget: null } };
    const seen: Event[] = [];
    const watch = (event: Event) => seen.push(event);
    doc.addEventListener(INSERT_CELL_EVENT, watch);
    const stop = listenForInserts(app);
    try {
      copied.length = 0;
      const block = answerBlocks(el)[0] as HTMLElement;
      button(block, "Insert as a cell").click();
      await untilText(block, ".agui-code-note", INSERTED_NOTE);
      assert.deepEqual(inserted, [{ index: 2, source: "print(6 * 7)" }], "below cell 1, the chat's, without the block's last line break");
      assert.equal(notebook.activeCellIndex, 2, "the new cell is the active one");
      assert.equal(seen.length, 1);
      const event = seen[0] as CustomEvent<InsertCellDetail>;
      assert.ok(event.bubbles && event.composed, "it reaches the document from inside any shadow root");
      assert.equal(event.detail.handled, true);
      assert.equal(event.defaultPrevented, true);
      assert.deepEqual(copied, [], "nothing copied when the cell was added");
    } finally {
      stop();
      doc.removeEventListener(INSERT_CELL_EVENT, watch);
    }
  });

  it("leaves an event alone when the chat is in no cell of a notebook", () => {
    const outside = doc.createElement("div");
    doc.body.appendChild(outside);
    const stop = listenForInserts({ shell: { widgets: () => [], currentWidget: null } });
    try {
      const detail: InsertCellDetail = { code: "x" };
      const event = new CustomEvent(INSERT_CELL_EVENT, { detail, bubbles: true, composed: true, cancelable: true });
      assert.equal(outside.dispatchEvent(event), true);
      assert.equal(detail.handled, undefined);
    } finally {
      stop();
      outside.remove();
    }
  });

  it("copies the code, and says so, where nothing can add a cell", async () => {
    const { el } = await connected(conversation);
    copied.length = 0;
    const block = answerBlocks(el)[3] as HTMLElement;
    button(block, "Insert as a cell").click();
    const note = await untilText(block, ".agui-code-note", COPIED_NOTE);
    assert.equal(note.getAttribute("role"), "status", "read out to a screen reader");
    assert.deepEqual(copied, ["x = [1, 2]\nx"], "as a cell's source, as Insert would have put it");
  });
});

describe("run in kernel", () => {
  const confirmCard = (block: Element) => block.querySelector<HTMLElement>(".agui-code-confirm");

  it("asks under the block first; Cancel and Escape send nothing and give the focus back", async () => {
    const { el, model } = await connected(conversation);
    const block = answerBlocks(el)[0] as HTMLElement;
    const run = button(block, "Run in kernel");
    run.click();
    await until(() => confirmCard(block) !== null, "the confirm card");
    const card = confirmCard(block) as HTMLElement;
    assert.equal(card.getAttribute("role"), "group");
    assert.equal(card.getAttribute("aria-label"), CONFIRM_QUESTION);
    assert.match(card.textContent ?? "", /Run this code in the kernel\?/);
    assert.equal(doc.activeElement, button(card, "Run"), "the focus is on Run");
    press(button(card, "Run"), "Escape");
    await until(() => confirmCard(block) === null, "Escape closed the card");
    assert.equal(doc.activeElement, run, "back on Run in kernel");
    run.click();
    await until(() => confirmCard(block) !== null, "the card again");
    button(confirmCard(block) as HTMLElement, "Cancel").click();
    await until(() => confirmCard(block) === null, "Cancel closed it");
    assert.equal(doc.activeElement, run);
    assert.deepEqual(model.sentOf("run_code"), [], "nothing was run");
  });

  it("sends the block's code to run once the user says Run", async () => {
    const { el, model } = await connected(conversation);
    const block = answerBlocks(el)[0] as HTMLElement;
    button(block, "Run in kernel").click();
    await until(() => confirmCard(block) !== null, "the confirm card");
    button(confirmCard(block) as HTMLElement, "Run").click();
    assert.deepEqual(await untilSent(model, "run_code"), [{ kind: "run_code", code: "print(6 * 7)\n" }]);
    await until(() => confirmCard(block) === null, "the card went");
  });
});

describe("the run_python card", () => {
  const call = (id: string, code: string, mark?: string) => ({
    id: `a-${id}`,
    role: "assistant",
    toolCalls: [{ id, type: "function", function: { name: "run_python", arguments: JSON.stringify({ code }) } }],
    ...(mark ? { metadata: { agui_widget: { code_run: mark } } } : {}),
  });
  const runPython = { name: "run_python", description: "Run Python.", parameters: {}, ui: "kernel", handler: null, approve: true };

  it("shows its code highlighted, not as JSON, while it asks for approval and after", async () => {
    const { el, model } = await connected([{ id: "u1", role: "user", content: "run it" }, call("c1", "import math\nmath.pi")]);
    model.set("frontend_tools", [runPython]);
    model.set("status", "waiting");
    model.set("pending", [{ kind: "tool", toolCallId: "c1", name: "run_python", args: { code: "import math\nmath.pi" }, argsText: '{"code": "import math\\nmath.pi"}', claimedBy: null, kernel: "approve" }]);
    const tool = () => el.querySelector(".agui-tool") as HTMLElement;
    await until(() => maybeButton(tool(), "Approve") !== null, "the approval in the card");
    const code = () => tool().querySelector(".agui-tool-code pre code");
    assert.equal(code()?.textContent, "import math\nmath.pi\n");
    assert.ok(code()?.querySelector(".hljs-keyword"), "highlighted as Python");
    assert.equal(tool().querySelectorAll(".agui-tool-code").length, 1, "shown once");
    assert.equal(tool().querySelector(".agui-card-args"), null, "no JSON of the arguments");
    model.kernel({ kind: "messages", start: 2, messages: [{ id: "t1", role: "tool", toolCallId: "c1", content: "Out[1]: 3.14" }] });
    model.set("pending", []);
    model.set("status", "idle");
    await until(() => tool().querySelector(".agui-badge")?.textContent === "done", "the card done");
    assert.equal(code()?.textContent, "import math\nmath.pi\n", "the code stays shown");
    assert.equal(tool().querySelector(".agui-tool-args"), null, "and no Arguments section");
    assert.equal(tool().querySelector(".agui-tool-summary"), null, "nor its JSON on one line");
  });

  it("reads running in the kernel while the user's code runs, with a way to stop it", async () => {
    const { el, model } = await connected([{ id: "u1", role: "user", content: "hi" }, call("c2", "import time; time.sleep(9)", "running")]);
    const tool = () => el.querySelector(".agui-tool") as HTMLElement;
    await until(() => tool()?.querySelector(".agui-badge")?.textContent === "running in the kernel", "the card running");
    button(tool(), "Stop this code").click();
    assert.deepEqual(await untilSent(model, "stop"), [{ kind: "stop" }]);
    model.kernel({
      kind: "messages",
      start: 1,
      messages: [call("c2", "import time; time.sleep(9)", "done"), { id: "t2", role: "tool", toolCallId: "c2", content: "In [3]: the code was stopped; it was interrupted.", error: "the code was stopped; it was interrupted" }],
    });
    await until(() => tool().querySelector(".agui-badge")?.textContent === "failed", "the card failed");
    assert.equal(maybeButton(tool(), "Stop this code"), null);
  });

  it("fences code holding backticks so that they cannot close it", () => {
    assert.equal(pythonFence("x = 1"), "```python\nx = 1\n```\n");
    assert.equal(pythonFence('s = """\n```\n"""\n'), '````python\ns = """\n```\n"""\n````\n');
  });
});
