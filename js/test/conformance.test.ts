// The mirror against the AG-UI conformance corpus (vendored in tests/agui_conformance, or the
// folder AGUI_CONFORMANCE_DIR names): every fixture the kernel could deliver as-is (a stream the client
// consumes, after chunk expansion, with no era shims) must assemble the messages and state the
// fixture expects.
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { Mirror } from "../src/mirror/mirror";
import { isKnownEventType } from "../src/kernel/wire";
import { captureWarnings } from "./helpers";

const root = process.env.AGUI_JS_ROOT ?? process.cwd();
const corpus = process.env.AGUI_CONFORMANCE_DIR
  ? join(process.env.AGUI_CONFORMANCE_DIR, "streams")
  : resolve(root, "..", "tests", "agui_conformance", "streams");

type Fixture = {
  name: string;
  client?: unknown;
  input?: { messages?: unknown[]; state?: unknown };
  stream: Array<Record<string, unknown>>;
  expect: { outcome?: string; messages?: unknown[]; messageCount?: number; state?: unknown };
};

/** Material the kernel's enforcement stage strips before anything reaches the wire. */
const STRIPPED_BY_THE_KERNEL = new Set(["state-delta-unknown-op-dropped", "unknown-part-in-message-list"]);

/** Why the mirror is not held to this fixture, or null when it is. */
function notForTheMirror(f: Fixture): string | null {
  if (STRIPPED_BY_THE_KERNEL.has(f.name)) return "the kernel strips the unknown material first";
  if (f.expect.outcome !== "completed") return "the client rejects this stream (the kernel's verifier does too)";
  if (f.client !== undefined) return "pins an older peer (era shims run in the kernel)";
  if (f.expect.messages === undefined && f.expect.messageCount === undefined && f.expect.state === undefined) {
    return "asserts nothing about messages or state";
  }
  for (const e of f.stream) {
    const type = String(e.type);
    if (type.endsWith("_CHUNK")) return "chunk events are expanded by the kernel";
    if (!isKnownEventType(type)) return "unknown events are dropped by the kernel";
  }
  return null;
}

function subset(actual: unknown, expected: unknown, where: string): void {
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${where}: expected a list`);
    assert.equal(actual.length, expected.length, `${where}: length`);
    expected.forEach((e, i) => subset(actual[i], e, `${where}[${i}]`));
  } else if (expected && typeof expected === "object") {
    assert.ok(actual && typeof actual === "object", `${where}: expected an object`);
    for (const [k, v] of Object.entries(expected)) subset((actual as Record<string, unknown>)[k], v, `${where}.${k}`);
  } else {
    assert.deepEqual(actual, expected, where);
  }
}

const files = existsSync(corpus) ? readdirSync(corpus).filter((f) => f.endsWith(".json")).sort() : [];

describe("AG-UI conformance corpus, through the mirror", () => {
  it("finds the corpus (tests/agui_conformance, or AGUI_CONFORMANCE_DIR)", () => {
    assert.ok(files.length > 0, `no conformance fixtures at ${corpus}`);
  });
  let held = 0;
  for (const file of files) {
    const fixture = JSON.parse(readFileSync(join(corpus, file), "utf8")) as Fixture;
    const why = notForTheMirror(fixture);
    if (why !== null) continue;
    held++;
    it(fixture.name, () => {
      const mirror = new Mirror("v");
      captureWarnings(() => {
        mirror.handle({ kind: "snapshot", viewId: null, messages: fixture.input?.messages ?? [], state: fixture.input?.state ?? {}, events: [] });
        mirror.handle({ kind: "events", events: fixture.stream });
      });
      const { messages, messageCount, state } = fixture.expect;
      if (messageCount !== undefined) assert.equal(mirror.messages().length, messageCount, "messageCount");
      if (messages !== undefined) subset(mirror.messages(), messages, "messages");
      if (state !== undefined) subset(mirror.state, state, "state");
    });
  }
  it("holds the mirror to a meaningful part of the corpus", () => {
    assert.ok(held >= 15, `only ${held} fixtures apply`);
  });
});
