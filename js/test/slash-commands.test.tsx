/** Slash commands in the message box: `/` at the start lists the chat's commands with what each
 * does (↑/↓, Enter or Tab to pick, Escape to close); sending `/name args` asks the kernel to run
 * it (never a message to the agent), shows what it returns in a card, and an unknown command says
 * so and keeps the text in the box. `//text` sends `/text`. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { commandOf, commandQueryAt, literalOf, matchingCommands, withCommand } from "../src/logic/commands";
import { FakeModel, idle, until, untilSent } from "./dom";
import { connected, press, textbox, type } from "./mount";

const COMMANDS = [
  { name: "clear", description: "Clear the conversation (the shared state is kept)" },
  { name: "new", description: "Start a new thread" },
  { name: "threads", description: "List the threads in the store" },
  { name: "export", description: "Save the conversation as Markdown" },
  { name: "help", description: "List the commands" },
  { name: "summarize", description: "Summarize the conversation." },
];

async function composer() {
  const view = await connected([], new FakeModel({ commands: COMMANDS }));
  const box = textbox(view.el, "Message") as HTMLTextAreaElement;
  box.focus();
  return { ...view, box };
}

const listbox = (el: HTMLElement) => el.querySelector('[role="listbox"][aria-label="Commands"]') as HTMLElement | null;
const optionNames = (el: HTMLElement) => [...(listbox(el)?.querySelectorAll('[role="option"]') ?? [])].map((o) => o.querySelector(".agui-mention-name")?.textContent);
const selected = (el: HTMLElement) => listbox(el)?.querySelector('[aria-selected="true"] .agui-mention-name')?.textContent ?? null;
const notices = (el: HTMLElement) => [...el.querySelectorAll(".agui-notice-text")].map((n) => n.textContent);

describe("slash commands, without the DOM", () => {
  it("reads a command and its arguments; `//` is a message", () => {
    assert.deepEqual(commandOf("/summarize last three  "), { name: "summarize", args: "last three" });
    assert.deepEqual(commandOf("  /help"), { name: "help", args: "" });
    assert.equal(commandOf("//etc is a path"), null);
    assert.equal(commandOf("hello /help"), null);
    assert.equal(literalOf("//etc is a path"), "/etc is a path");
  });

  it("completes the first word only, names that start with the query first", () => {
    assert.equal(commandQueryAt("/he", 3), "he");
    assert.equal(commandQueryAt("/", 1), "");
    assert.equal(commandQueryAt("/help me", 8), null, "past the name");
    assert.equal(commandQueryAt("//x", 3), null);
    assert.deepEqual(
      matchingCommands(COMMANDS, "e").map((c) => c.name),
      ["export", "clear", "new", "threads", "help", "summarize"],
    );
    assert.deepEqual(withCommand("/he and more", "help"), { text: "/help and more", caret: 6 });
  });
});

describe("slash commands in the message box", () => {
  it("lists the commands under `/`, with their descriptions, and the box points at the list", async () => {
    const { el, box, cleanup } = await composer();
    type(box, "/");
    await until(() => listbox(el) !== null, "the command list");
    assert.deepEqual(optionNames(el), COMMANDS.map((c) => `/${c.name}`));
    assert.match(listbox(el)?.textContent ?? "", /Summarize the conversation\./);
    assert.equal(box.getAttribute("aria-controls"), listbox(el)?.id);
    assert.equal(box.getAttribute("aria-activedescendant"), `${listbox(el)?.id}-0`);
    type(box, "/su");
    await until(() => optionNames(el).length === 1, "filtered");
    assert.deepEqual(optionNames(el), ["/summarize"]);
    cleanup();
  });

  it("↑/↓ move, Enter picks (the text becomes `/name `), Escape closes", async () => {
    const { el, model, box, cleanup } = await composer();
    type(box, "/");
    await until(() => listbox(el) !== null, "the command list");
    press(box, "ArrowUp");
    await until(() => selected(el) === "/summarize", "wrapped to the last");
    press(box, "ArrowUp");
    await until(() => selected(el) === "/help", "moved up");
    press(box, "Enter");
    await until(() => listbox(el) === null, "closed by the pick");
    assert.equal(box.value, "/help ");
    assert.equal(model.sentOf("command").length, 0, "picking does not run it");
    type(box, "/t");
    await until(() => listbox(el) !== null, "open again");
    press(box, "Tab");
    assert.equal(box.value, "/threads ");
    type(box, "/");
    await until(() => listbox(el) !== null, "open again");
    press(box, "Escape");
    await until(() => listbox(el) === null, "closed by Escape");
    assert.equal(document.activeElement, box, "the focus stays in the box");
    cleanup();
  });

  it("sends a command to the kernel, not to the agent, and shows what it returns", async () => {
    const { el, model, box, cleanup } = await composer();
    type(box, "/summarize the last three");
    press(box, "Enter");
    const [asked] = await untilSent(model, "command");
    assert.deepEqual({ ...asked, requestId: undefined }, { kind: "command", requestId: undefined, name: "summarize", args: "the last three" });
    assert.equal(model.sentOf("send").length, 0);
    assert.equal(box.value, "", "the box is emptied");
    model.kernel({ kind: "command", requestId: asked?.requestId, name: "summarize", text: "**Three** points", download: null, error: null });
    await until(() => el.querySelector('[role="region"][aria-label="/summarize"]') !== null, "the card");
    assert.equal(el.querySelector(".agui-command-card strong")?.textContent, "Three");
    cleanup();
  });

  it("shows a failing command as an error notice", async () => {
    const { el, model, box, cleanup } = await composer();
    type(box, "/summarize");
    press(box, "Enter");
    const [asked] = await untilSent(model, "command");
    model.kernel({ kind: "command", requestId: asked?.requestId, name: "summarize", text: null, download: null, error: "/summarize failed: ValueError: boom" });
    await until(() => notices(el).includes("/summarize failed: ValueError: boom"), "the error notice");
    cleanup();
  });

  it("an unknown command says so, keeps the text, and sends nothing", async () => {
    const { el, model, box, cleanup } = await composer();
    type(box, "/nope with words");
    press(box, "Enter");
    await until(() => notices(el).includes("Unknown command /nope; /help lists them"), "the notice");
    await idle();
    assert.equal(box.value, "/nope with words");
    assert.equal(model.sentOf("command").length + model.sentOf("send").length, 0);
    cleanup();
  });

  it("`//text` sends `/text` as a message", async () => {
    const { model, box, cleanup } = await composer();
    type(box, "//etc/hosts is a file");
    press(box, "Enter");
    const [sent] = await untilSent(model, "send");
    assert.equal(sent?.text, "/etc/hosts is a file");
    assert.equal(model.sentOf("command").length, 0);
    cleanup();
  });

  it("a message that does not start with `/` is sent as before", async () => {
    const { model, box, cleanup } = await composer();
    type(box, "what does /help do?");
    press(box, "Enter");
    const [sent] = await untilSent(model, "send");
    assert.equal(sent?.text, "what does /help do?");
    cleanup();
  });
});
