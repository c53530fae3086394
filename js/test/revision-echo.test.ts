/**
 * Where the kernel grows `revision` (in marimo), the page hands each new value back once, so marimo
 * re-runs the cells that read the chat's element; elsewhere it stays 0 and nothing is sent.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeModel } from "./dom";
import { echoRevisions } from "../src/kernel/revisionEcho";

/** A model as marimo's front end makes it: a view's `set` is reported back as a change too, and
 * `save_changes` sends what the view set. */
class HostModel extends FakeModel {
  saved: Array<Record<string, unknown>> = [];
  private dirty: Record<string, unknown> = {};
  constructor(id: string) {
    super({ saved_output_id: id, revision: 0 });
  }
  override set(name: string, value: unknown): void {
    this.dirty[name] = value;
    super.set(name, value);
  }
  /** The kernel changes a trait (nothing to send back for it). */
  kernelSets(name: string, value: unknown): void {
    super.set(name, value);
  }
  save_changes(): void {
    if (Object.keys(this.dirty).length > 0) this.saved.push(this.dirty);
    this.dirty = {};
  }
}

describe("revision echo", () => {
  it("hands each new revision back once, unchanged", () => {
    const model = new HostModel("chat-a");
    const stop = echoRevisions(model);
    model.kernelSets("revision", 1);
    model.kernelSets("revision", 2);
    model.kernelSets("revision", 2); // the kernel's answer to the echo, or a repeat: nothing new
    assert.deepEqual(model.saved, [{ revision: 1 }, { revision: 2 }]);
    stop();
    model.kernelSets("revision", 3);
    assert.deepEqual(model.saved, [{ revision: 1 }, { revision: 2 }], "a closed view hands nothing back");
  });

  it("sends nothing where the kernel never grows it", () => {
    const model = new HostModel("chat-b");
    echoRevisions(model);
    model.kernelSets("status", "running");
    model.kernelSets("revision", 0);
    assert.deepEqual(model.saved, []);
  });

  it("hands a revision back once per page, whatever number of views the chat has there", () => {
    const first = new HostModel("chat-c");
    const second = new HostModel("chat-c"); // anywidget gives each view a wrapper of its own
    echoRevisions(first);
    echoRevisions(second);
    first.kernelSets("revision", 1);
    second.kernelSets("revision", 1);
    assert.equal(first.saved.length + second.saved.length, 1);
  });

  it("works on a model without a way to write (nothing to send, nothing thrown)", () => {
    const model = new FakeModel({ saved_output_id: "chat-d", revision: 0 });
    const plain = Object.assign(Object.create(Object.getPrototypeOf(model)), model) as FakeModel;
    echoRevisions({ get: (n) => plain.get(n), on: (e, c) => plain.on(e, c), off: (e, c) => plain.off(e, c), send: () => {} });
    assert.doesNotThrow(() => plain.set("revision", 1));
  });
});
