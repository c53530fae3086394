#!/usr/bin/env node
// Chats with an AG-UI HTTP endpoint through the official client's HttpAgent (@ag-ui/client), as a
// web app would, and prints what the client ended up with. An outside check for the Python tests:
// the request building, SSE parsing, verification and message/state application are the
// package's, not ours.
//
// Usage:
//   node js/scripts/httpagent-chat.mjs < input.json
//
// stdin:  {"url": str, "threadId": str, "state"?: any,
//          "turns": [{"user": str, "tools"?: Tool[], "toolResult"?: any}, ...]}
//         Each turn adds a user message and runs the agent with `tools`. When the run leaves a
//         tool call without a result and the turn has `toolResult`, a tool message with that
//         result (JSON text) is added and the agent runs again (the AG-UI frontend-tool flow).
// stdout: one JSON line:
//         {"runs": [{"turn": int, "events": [type, ...], "error": str | null}],
//          "messages": Message[], "state": any}
// exit:   0 when the line was printed; 2 when stdin is not that shape.
//
// Needs `npm ci` in js/ first (it imports @ag-ui/client from js/node_modules).

import { HttpAgent } from "@ag-ui/client";

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

function unansweredToolCalls(messages) {
  const answered = new Set(messages.filter((m) => m.role === "tool").map((m) => m.toolCallId));
  return messages.flatMap((m) => (m.role === "assistant" ? m.toolCalls ?? [] : [])).filter((call) => !answered.has(call.id));
}

async function run(agent, tools, turn, runs) {
  const events = [];
  let error = null;
  try {
    await agent.runAgent({ tools }, { onEvent: ({ event }) => void events.push(event.type) });
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  }
  runs.push({ turn, events, error });
}

async function main() {
  let input;
  try {
    input = JSON.parse(await readStdin());
  } catch (error) {
    process.stderr.write(`httpagent-chat: stdin is not JSON: ${error.message}\n`);
    return 2;
  }
  if (!input || typeof input.url !== "string" || !Array.isArray(input.turns)) {
    process.stderr.write('httpagent-chat: expected {"url": str, "turns": [...]} on stdin\n');
    return 2;
  }
  const toStderr = (...args) => process.stderr.write(`${args.map(String).join(" ")}\n`);
  Object.assign(console, { log: toStderr, info: toStderr, debug: toStderr, warn: toStderr });

  const agent = new HttpAgent({ url: input.url, threadId: input.threadId, initialState: input.state ?? {} });
  const runs = [];
  for (const [index, turn] of input.turns.entries()) {
    const tools = turn.tools ?? [];
    agent.addMessage({ id: `user-${index}`, role: "user", content: turn.user });
    await run(agent, tools, index, runs);
    const pending = unansweredToolCalls(agent.messages);
    if (pending.length && "toolResult" in turn) {
      for (const call of pending) {
        agent.addMessage({ id: `tool-${call.id}`, role: "tool", toolCallId: call.id, content: JSON.stringify(turn.toolResult) });
      }
      await run(agent, tools, index, runs);
    }
  }
  process.stdout.write(`${JSON.stringify({ runs, messages: agent.messages, state: agent.state })}\n`);
  return 0;
}

process.exitCode = await main();
