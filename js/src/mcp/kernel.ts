/**
 * What an MCP App's card asks the kernel (docs/wire.md): the app's HTML (`mcp_app`), and the
 * app's calls to its server (`mcp_call`, `mcp_read`).
 */
import { ask, type KernelChannel } from "../kernel/ask";
import type { McpAppMessage, McpResultMessage } from "../kernel/generated/wire";
import type { KernelMessage } from "../kernel/wire";

function expect<M extends McpAppMessage | McpResultMessage>(kind: M["kind"]): (msg: KernelMessage) => M {
  return (msg) => {
    if (msg.kind !== kind) throw new Error("The kernel answered something else.");
    return msg as M;
  };
}

export type AppSource = { html: string; csp: Record<string, unknown> | null };

/** The app of call `toolCallId`'s tool, read from its server by the kernel. */
export async function askApp(channel: KernelChannel, toolCallId: string): Promise<AppSource> {
  const msg = await ask(channel, "mcp_app", (requestId) => ({ kind: "mcp_app", requestId, toolCallId }), expect<McpAppMessage>("mcp_app"));
  if (msg.html === null) throw new Error(msg.error ?? "The kernel has no app for this call.");
  return { html: msg.html, csp: msg.csp };
}

/** The kernel's answer to an app's `tools/call`: the result, or that the user must approve first. */
export type CallAnswer = { result: Record<string, unknown> } | { needsApproval: string };

export async function askCall(channel: KernelChannel, toolCallId: string, name: string, args: Record<string, unknown>, approved: boolean): Promise<CallAnswer> {
  const request = (requestId: string) => ({ kind: "mcp_call" as const, requestId, toolCallId, name, arguments: args, approved });
  const msg = await ask(channel, "mcp_result", request, expect<McpResultMessage>("mcp_result"));
  if (msg.needsApproval) return { needsApproval: msg.error ?? `${name} needs the user's approval.` };
  if (msg.result === null) throw new Error(msg.error ?? `The kernel could not call ${name}.`);
  return { result: msg.result };
}

export async function askRead(channel: KernelChannel, toolCallId: string, uri: string): Promise<Record<string, unknown>> {
  const msg = await ask(channel, "mcp_result", (requestId) => ({ kind: "mcp_read", requestId, toolCallId, uri }), expect<McpResultMessage>("mcp_result"));
  if (msg.result === null) throw new Error(msg.error ?? `The kernel could not read ${uri}.`);
  return msg.result;
}
