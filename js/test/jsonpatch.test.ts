import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PatchError, applyJsonPatch } from "../src/mirror/jsonpatch";
import { deepFreeze } from "./helpers";

describe("applyJsonPatch", () => {
  it("applies every RFC 6902 operation", () => {
    const doc = deepFreeze({ a: { b: 1 }, list: [1, 2, 3], "we/ird~key": 0 });
    const out = applyJsonPatch(doc, [
      { op: "add", path: "/a/c", value: 2 },
      { op: "remove", path: "/list/0" },
      { op: "replace", path: "/we~1ird~0key", value: 9 },
      { op: "move", from: "/a/b", path: "/moved" },
      { op: "copy", from: "/list", path: "/copied" },
      { op: "test", path: "/moved", value: 1 },
      { op: "add", path: "/list/-", value: 4 },
    ]);
    assert.deepEqual(out, { a: { c: 2 }, list: [2, 3, 4], "we/ird~key": 9, moved: 1, copied: [2, 3] });
  });

  it("replaces the whole document at the root pointer", () => {
    assert.deepEqual(applyJsonPatch({ a: 1 }, [{ op: "replace", path: "", value: [1] }]), [1]);
    assert.equal(applyJsonPatch("x", [{ op: "add", path: "", value: null }]), null);
  });

  it("is all or nothing, and never touches its inputs", () => {
    const doc = deepFreeze({ plan: { status: "open" }, n: [1] });
    const patch = deepFreeze([
      { op: "replace", path: "/plan/status", value: "closed" },
      { op: "add", path: "/n/-", value: 2 },
      { op: "replace", path: "/absent/deeper", value: 1 },
    ]);
    assert.throws(() => applyJsonPatch(doc, patch), PatchError);
    assert.deepEqual(doc, { plan: { status: "open" }, n: [1] });
  });

  it("copies only the containers on the patched paths", () => {
    const big = { rows: Array.from({ length: 1000 }, (_, i) => ({ i })) };
    const doc = deepFreeze({ big, small: { x: 1 } });
    const out = applyJsonPatch(doc, [{ op: "replace", path: "/small/x", value: 2 }]);
    assert.equal(out.big, big);
    assert.notEqual(out.small, doc.small);
    assert.deepEqual(out.small, { x: 2 });
  });

  it("does not let later operations reach into values the patch carried in", () => {
    const value = deepFreeze({ inner: [1] });
    const out = applyJsonPatch({} as Record<string, unknown>, [
      { op: "add", path: "/v", value },
      { op: "add", path: "/v/inner/-", value: 2 },
    ]);
    assert.deepEqual(out, { v: { inner: [1, 2] } });
    assert.deepEqual(value, { inner: [1] });
  });

  it("rejects failed tests, unknown operations, bad pointers and prototype pollution", () => {
    const doc = { a: 1 };
    assert.throws(() => applyJsonPatch(doc, [{ op: "test", path: "/a", value: 2 }]), PatchError);
    assert.throws(() => applyJsonPatch(doc, [{ op: "frobnicate", path: "/a" }]), PatchError);
    assert.throws(() => applyJsonPatch(doc, [{ op: "add", path: "a", value: 1 }]), PatchError);
    assert.throws(() => applyJsonPatch(doc, [{ op: "add", path: "/__proto__/polluted", value: 1 }]), PatchError);
    assert.throws(() => applyJsonPatch(doc, "not a patch"), PatchError);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});
