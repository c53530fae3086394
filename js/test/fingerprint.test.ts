// The state fingerprint the end-of-run `check` carries: canonical JSON (keys sorted by UTF-16
// code units, numbers as JavaScript writes them) and its CRC-32. The kernel's half
// (agui_widget/chat/_fingerprint.py) is held to this one by tests/test_fingerprint.py, which runs both.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canonicalJson, crc32, fingerprint } from "../src/mirror/fingerprint";

describe("fingerprint", () => {
  it("writes canonical JSON: no spaces, keys sorted by UTF-16 code units", () => {
    assert.equal(canonicalJson({ b: 1, a: [true, null, "x"], "\u{1F600}": 0, "\uE000": 1 }), '{"a":[true,null,"x"],"b":1,"\u{1F600}":0,"\uE000":1}');
    assert.equal(canonicalJson({ n: 1e21, m: 1e-7, o: 0.1 }), '{"m":1e-7,"n":1e+21,"o":0.1}');
  });

  it("is zlib's CRC-32 of the UTF-8 bytes", () => {
    assert.equal(crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
    assert.equal(fingerprint("héllo"), crc32(new TextEncoder().encode('"héllo"')));
  });

  it("ignores key order and remembers an object's fingerprint", () => {
    const state = { x: { y: [1, 2] }, a: "b" };
    assert.equal(fingerprint(state), fingerprint({ a: "b", x: { y: [1, 2] } }));
    assert.equal(fingerprint(state), fingerprint(state));
    assert.notEqual(fingerprint({ a: 1 }), fingerprint({ a: 2 }));
  });
});
