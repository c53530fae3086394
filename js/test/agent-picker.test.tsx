import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeModel } from "./dom";
import { connected, press, until } from "./mount";

const picker = (el: ParentNode) => el.querySelector('select[aria-label="Agent"]') as HTMLSelectElement | null;

function choose(select: HTMLSelectElement, value: string) {
  select.value = value;
  select.dispatchEvent(new (globalThis as any).Event("change", { bubbles: true }));
}

describe("the agent picker", () => {
  it("is absent for a chat of one agent", async () => {
    const { el } = await connected([], new FakeModel({ agent_names: [], agent_name: "" }));
    assert.equal(picker(el), null);
  });

  it("lists the agents, shows the active one, and asks the kernel to switch", async () => {
    const model = new FakeModel({ agent_names: ["planner", "coder"], agent_name: "planner" });
    const { el } = await connected([], model);
    const select = picker(el);
    assert.ok(select, "no agent picker");
    assert.deepEqual([...select.options].map((o) => o.value), ["planner", "coder"]);
    assert.equal(select.value, "planner");
    choose(select, "coder");
    assert.deepEqual(model.sentOf("select_agent"), [{ kind: "select_agent", name: "coder" }]);
    assert.equal(select.value, "planner", "the kernel decides: nothing changes before it answers");
    model.set("agent_name", "coder");
    await until(() => picker(el)?.value === "coder", "the picker shows the kernel's agent");
  });

  it("is a plain select, so the keyboard works and keys stay in the chat", async () => {
    const model = new FakeModel({ agent_names: ["a", "b"], agent_name: "a" });
    const { el } = await connected([], model);
    const select = picker(el) as HTMLSelectElement;
    assert.equal(select.tagName, "SELECT");
    assert.equal(select.closest("label")?.textContent?.includes("Agent"), true);
    let reachedNotebook = false;
    el.ownerDocument.addEventListener("keydown", () => (reachedNotebook = true), { once: true });
    press(select, "ArrowDown");
    assert.equal(reachedNotebook, false);
  });

  it("is disabled while a run is active and picking the same agent sends nothing", async () => {
    const model = new FakeModel({ agent_names: ["a", "b"], agent_name: "a", status: "running" });
    const { el } = await connected([], model);
    assert.equal(picker(el)?.disabled, true);
    model.set("status", "idle");
    await until(() => picker(el)?.disabled === false, "the picker enabled when the run ends");
    const select = picker(el) as HTMLSelectElement;
    choose(select, "a");
    assert.deepEqual(model.sentOf("select_agent"), []);
  });

  it("drops malformed names", async () => {
    const model = new FakeModel({ agent_names: ["a", 3, "", "b"], agent_name: "a" });
    const { el } = await connected([], model);
    assert.deepEqual([...(picker(el) as HTMLSelectElement).options].map((o) => o.value), ["a", "b"]);
  });
});

describe("a refused message", () => {
  it("shows the guard's reason under the message", async () => {
    const refused = { id: "u1", role: "user", content: "my password", metadata: { agui_widget: { refused: "No passwords, please." } } };
    const { el } = await connected([refused]);
    assert.match(el.querySelector(".agui-refused")?.textContent ?? "", /Not sent: No passwords, please\./);
  });
});
