import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatNumber } from "../src/view/RunSettings";
import { FakeModel } from "./dom";
import { connected, press, until } from "./mount";

const SETTINGS = {
  model: { kind: "choice", choices: ["gpt-4o-mini", "llama3.2"], default: "gpt-4o-mini" },
  temperature: { kind: "range", min: 0, max: 2, default: 0.7, step: 0.02, integer: false },
  stream: { kind: "switch", default: true },
};
const VALUES = { model: "gpt-4o-mini", temperature: 0.7, stream: true };

const group = (el: ParentNode) => el.querySelector('[role="group"][aria-label="Run settings"]');
const control = (el: ParentNode, name: string) => {
  const label = [...el.querySelectorAll(".agui-setting")].find((l) => l.querySelector(".agui-setting-name")?.textContent === name);
  return label?.querySelector("select, input") as HTMLInputElement & HTMLSelectElement;
};

function fire(target: Element, type: string) {
  target.dispatchEvent(new (globalThis as any).Event(type, { bubbles: true }));
}

describe("the run settings picker", () => {
  it("is absent for a chat without settings", async () => {
    const { el } = await connected([], new FakeModel({}));
    assert.equal(group(el), null);
  });

  it("draws a select, a slider with its value and a switch, named by their settings", async () => {
    const { el } = await connected([], new FakeModel({ settings: SETTINGS, setting_values: VALUES }));
    assert.ok(group(el), "no run settings group");
    const model = control(el, "model");
    assert.equal(model.tagName, "SELECT");
    assert.deepEqual([...model.options].map((o) => o.textContent), ["gpt-4o-mini", "llama3.2"]);
    assert.equal(model.selectedIndex, 0);
    const temperature = control(el, "temperature");
    assert.equal(temperature.type, "range");
    assert.equal([temperature.min, temperature.max, temperature.step, temperature.value].join(" "), "0 2 0.02 0.7");
    assert.equal(el.querySelector(".agui-setting-value")?.textContent, "0.7");
    const stream = control(el, "stream");
    assert.equal(stream.type, "checkbox");
    assert.equal(stream.getAttribute("role"), "switch");
    assert.equal(stream.checked, true);
    assert.equal(stream.closest("label")?.textContent, "stream", "the label names the switch");
  });

  it("asks the kernel for each change and shows the kernel's value", async () => {
    const model = new FakeModel({ settings: SETTINGS, setting_values: VALUES });
    const { el } = await connected([], model);
    const select = control(el, "model");
    select.value = "1";
    fire(select, "change");
    assert.deepEqual(model.sentOf("settings"), [{ kind: "settings", values: { model: "llama3.2" } }]);
    assert.equal(select.selectedIndex, 0, "the kernel decides: nothing changes before it answers");
    model.set("setting_values", { ...VALUES, model: "llama3.2" });
    await until(() => control(el, "model").selectedIndex === 1, "the select shows the kernel's value");

    const slider = control(el, "temperature");
    slider.value = "1.2";
    fire(slider, "input");
    await until(() => el.querySelector(".agui-setting-value")?.textContent === "1.2", "the value shown while it moves");
    fire(slider, "change");
    assert.deepEqual(model.sentOf("settings")[1], { kind: "settings", values: { temperature: 1.2 } });

    const toggle = control(el, "stream");
    toggle.click();
    assert.deepEqual(model.sentOf("settings")[2], { kind: "settings", values: { stream: false } });
    assert.equal(toggle.checked, true, "the switch waits for the kernel");
  });

  it("stays usable during a run (a change applies to the next run) and keeps keys in the chat", async () => {
    const model = new FakeModel({ settings: SETTINGS, setting_values: VALUES, status: "running" });
    const { el } = await connected([], model);
    const select = control(el, "model");
    assert.equal(select.disabled, false);
    let reachedNotebook = false;
    el.ownerDocument.addEventListener("keydown", () => (reachedNotebook = true), { once: true });
    press(select, "ArrowDown");
    assert.equal(reachedNotebook, false);
  });

  it("follows a thread switch: the kernel's new values are shown", async () => {
    const model = new FakeModel({ settings: SETTINGS, setting_values: { ...VALUES, temperature: 1.5 } });
    const { el } = await connected([], model);
    assert.equal(control(el, "temperature").value, "1.5");
    model.set("setting_values", VALUES);
    await until(() => control(el, "temperature").value === "0.7", "the slider shows the other thread's value");
  });

  it("ignores malformed settings", async () => {
    const { el } = await connected([], new FakeModel({ settings: { x: { kind: "dial" } }, setting_values: "no" }));
    assert.equal(group(el), null);
  });

  it("shows numbers without float noise", () => {
    assert.equal(formatNumber(0.7000000000000001), "0.7");
    assert.equal(formatNumber(3), "3");
    assert.equal(formatNumber(0.125), "0.13");
  });
});
