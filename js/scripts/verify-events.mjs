#!/usr/bin/env node
// Runs AG-UI event streams through the official client's verifier (`verifyEvents` from
// @ag-ui/client, the RxJS operator its agents apply to every stream) and prints its verdicts.
// An outside check for the Python tests: the rules are the package's, not ours.
//
// Usage:
//   node js/scripts/verify-events.mjs < input.json
//
// stdin:  {"streams": [[event, ...], ...]}   each event is camelCase AG-UI JSON, as the kernel
//                                            sends it (model_dump(mode="json", by_alias=True))
// stdout: one JSON line, one verdict per stream, in order:
//         {"results": [{"ok": true} | {"ok": false, "error": "message"}, ...]}
// exit:   0 when verdicts were printed (whatever they are); 2 when stdin is not that shape.
//         Anything the library logs goes to stderr, so stdout holds only the verdict line.
//
// Needs `npm ci` in js/ first (it imports @ag-ui/client and rxjs from js/node_modules).

import { verifyEvents } from "@ag-ui/client";
import { from, lastValueFrom, toArray } from "rxjs";

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

async function verdict(stream, index) {
  if (!Array.isArray(stream)) return { ok: false, error: `stream ${index} is not a list of events` };
  try {
    // verifyEvents(debugLogger): false turns its debug logging off.
    await lastValueFrom(from(stream).pipe(verifyEvents(false), toArray()));
    return { ok: true };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

async function main() {
  let input;
  try {
    input = JSON.parse(await readStdin());
  } catch (error) {
    process.stderr.write(`verify-events: stdin is not JSON: ${error.message}\n`);
    return 2;
  }
  if (!input || typeof input !== "object" || !Array.isArray(input.streams)) {
    process.stderr.write('verify-events: expected {"streams": [[event, ...], ...]} on stdin\n');
    return 2;
  }
  // Keep stdout for the verdict line only.
  const toStderr = (...args) => process.stderr.write(`${args.map(String).join(" ")}\n`);
  const saved = { log: console.log, info: console.info, debug: console.debug };
  Object.assign(console, { log: toStderr, info: toStderr, debug: toStderr });
  const results = [];
  try {
    for (let i = 0; i < input.streams.length; i++) results.push(await verdict(input.streams[i], i));
  } finally {
    Object.assign(console, saved);
  }
  process.stdout.write(`${JSON.stringify({ results })}\n`);
  return 0;
}

process.exitCode = await main();
