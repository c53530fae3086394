// The outside verifier the Python tests use: js/scripts/verify-events.mjs, run as a process.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, it } from "node:test";

const root = process.env.AGUI_JS_ROOT ?? process.cwd();
const script = join(root, "scripts", "verify-events.mjs");

function run(input: string) {
  const done = spawnSync(process.execPath, [script], { input, encoding: "utf8", cwd: "/" });
  return { status: done.status, stdout: done.stdout, stderr: done.stderr };
}

const valid = [
  { type: "RUN_STARTED", threadId: "t", runId: "r" },
  { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" },
  { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "Hello" },
  { type: "TEXT_MESSAGE_END", messageId: "m" },
  { type: "TOOL_CALL_START", toolCallId: "c", toolCallName: "f", parentMessageId: "m" },
  { type: "TOOL_CALL_ARGS", toolCallId: "c", delta: "{}" },
  { type: "TOOL_CALL_END", toolCallId: "c" },
  { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "success", pendingToolCallIds: ["c"] } },
];

describe("scripts/verify-events.mjs", () => {
  it("accepts a valid stream and rejects invalid ones with @ag-ui/client's message", () => {
    const streams = [
      valid,
      valid.slice(1), // does not start with RUN_STARTED
      [valid[0], valid[2]], // content without a start
      [valid[0], valid[1], valid[7]], // finished with a message still open
    ];
    const { status, stdout, stderr } = run(JSON.stringify({ streams }));
    assert.equal(status, 0, stderr);
    const lines = stdout.trim().split("\n");
    assert.equal(lines.length, 1, "stdout holds the verdict line only");
    const { results } = JSON.parse(lines[0] as string);
    assert.equal(results.length, 4);
    assert.deepEqual(results[0], { ok: true });
    for (const bad of results.slice(1)) {
      assert.equal(bad.ok, false);
      assert.equal(typeof bad.error, "string");
      assert.ok(bad.error.length > 0);
    }
    assert.match(results[1].error, /RUN_STARTED/);
  });

  it("answers an empty list of streams", () => {
    const { status, stdout } = run('{"streams": []}');
    assert.equal(status, 0);
    assert.deepEqual(JSON.parse(stdout), { results: [] });
  });

  it("fails with exit code 2 on input that is not {streams: [...]}", () => {
    assert.equal(run("not json").status, 2);
    assert.equal(run('{"events": []}').status, 2);
  });
});
