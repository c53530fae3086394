#!/usr/bin/env node
// The Node side of tests/test_differential.py: a long-lived helper that answers, one JSON line
// per request, what the view's Mirror (js/src/mirror/mirror.ts) and the official @ag-ui/client make of
// a stream. Started once per pytest session, so each generated example costs milliseconds.
//
// At start-up it bundles test-support/differential.ts (and through it src/mirror/mirror.ts) with
// esbuild, as scripts/run-tests.mjs bundles the unit tests, into a temporary directory inside
// node_modules/.cache (so the bundle resolves @ag-ui/client and rxjs, left external, from
// js/node_modules), imports it, and prints {"ready": true}.
//
// stdin, one JSON object per line:
//   {"id": n,
//    "mirror": [kernel message, ...],                  optional: widget-wire messages, in order
//    "client": {"messages": [...], "state": any,       optional: the seed and the raw producer
//               "events": [event, ...]}}                events for AbstractAgent.runAgent()
// stdout, one JSON line per request, in order:
//   {"id": n, "mirror": {"messages", "state"},
//    "client": {"accepted", "error", "messages", "state"}, "warnings": [text, ...]}
//   or {"id": n, "failure": text} when the helper itself broke.
// Everything the libraries log is collected into "warnings" (stdout carries only answers).
//
// Lone UTF-16 surrogates survive both ways: the Python side sends \udXXX escapes, and
// JSON.stringify escapes a lone surrogate it writes.

import * as esbuild from "esbuild";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const WARNINGS_KEPT = 20;

let warnings = [];
const collect = (...args) => {
  if (warnings.length < WARNINGS_KEPT) {
    warnings.push(args.map((a) => (a instanceof Error ? a.message : typeof a === "string" ? a : safeJson(a))).join(" "));
  }
};
function safeJson(value) {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
Object.assign(console, { log: collect, info: collect, debug: collect, warn: collect, error: collect });

const cache = join(root, "node_modules", ".cache");
mkdirSync(cache, { recursive: true });
const out = mkdtempSync(join(cache, "agui-widget-differential-"));
const cleanUp = () => rmSync(out, { recursive: true, force: true });
process.on("exit", cleanUp);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(1));

async function load() {
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: [join(root, "test-support", "differential.ts")],
    outfile: join(out, "differential.mjs"),
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "silent",
    external: ["@ag-ui/client", "rxjs"],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  return import(pathToFileURL(join(out, "differential.mjs")).href);
}

async function answer(readers, request) {
  warnings = [];
  const reply = { id: request.id };
  if (request.mirror !== undefined) reply.mirror = readers.mirrorRead(request.mirror);
  if (request.client !== undefined) {
    const { messages, state, events } = request.client;
    reply.client = await readers.clientRead(messages, state, events);
  }
  reply.warnings = warnings;
  return reply;
}

function write(reply) {
  process.stdout.write(`${JSON.stringify(reply)}\n`);
}

const readers = await load();
write({ ready: true });
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line.trim() === "") continue;
  let request;
  try {
    request = JSON.parse(line);
    write(await answer(readers, request));
  } catch (error) {
    write({ id: request?.id ?? null, failure: error instanceof Error ? error.stack ?? error.message : String(error) });
  }
}
