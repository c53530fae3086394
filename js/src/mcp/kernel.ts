/**
 * What an MCP App's card asks the kernel (docs/wire.md): the app's HTML (`mcp_app`), and the
 * app's calls to its server (`mcp_call`, `mcp_read`). Each question carries an id of its own and
 * waits for the answer with that id; the answers go to every view, and a view ignores the rest.
 */
import type { AnyModel } from "../anywidget";
import type { McpAppMessage, McpResultMessage } from "../kernel/generated/wire";
import { isObject, parseKernelMessage, type ViewRequest } from "../kernel/wire";

/** The part of a view's connection a question needs. */
export type KernelChannel = { readonly model: AnyModel; readonly viewId: string; send(request: ViewRequest): boolean };

/** How long a question waits: a kernel running a cell reads nothing until the cell ends. */
export const MCP_ANSWER_MS = 120_000;

let asked = 0;

function ask<M extends McpAppMessage | McpResultMessage>(channel: KernelChannel, kind: M["kind"], make: (requestId: string) => ViewRequest): Promise<M> {
  const requestId = `${channel.viewId}:mcp:${++asked}`;
  return new Promise<M>((resolve, reject) => {
    const finish = () => {
      clearTimeout(timer);
      channel.model.off("msg:custom", onMessage);
    };
    const onMessage = (raw: unknown) => {
      if (!isObject(raw) || raw.kind !== kind || raw.requestId !== requestId) return;
      const msg = parseKernelMessage(raw);
      if (msg === null || msg.kind !== kind) return;
      finish();
      resolve(msg as M);
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error("The kernel did not answer."));
    }, MCP_ANSWER_MS);
    (timer as { unref?: () => void }).unref?.();
    channel.model.on("msg:custom", onMessage);
    if (!channel.send(make(requestId))) {
      finish();
      reject(new Error("The kernel is not connected."));
    }
  });
}

export type AppSource = { html: string; csp: Record<string, unknown> | null };

/** The app of call `toolCallId`'s tool, read from its server by the kernel. */
export async function askApp(channel: KernelChannel, toolCallId: string): Promise<AppSource> {
  const msg = await ask<McpAppMessage>(channel, "mcp_app", (requestId) => ({ kind: "mcp_app", requestId, toolCallId }));
  if (msg.html === null) throw new Error(msg.error ?? "The kernel has no app for this call.");
  return { html: msg.html, csp: msg.csp };
}

/** The kernel's answer to an app's `tools/call`: the result, or that the user must approve first. */
export type CallAnswer = { result: Record<string, unknown> } | { needsApproval: string };

export async function askCall(channel: KernelChannel, toolCallId: string, name: string, args: Record<string, unknown>, approved: boolean): Promise<CallAnswer> {
  const msg = await ask<McpResultMessage>(channel, "mcp_result", (requestId) => ({ kind: "mcp_call", requestId, toolCallId, name, arguments: args, approved }));
  if (msg.needsApproval) return { needsApproval: msg.error ?? `${name} needs the user's approval.` };
  if (msg.result === null) throw new Error(msg.error ?? `The kernel could not call ${name}.`);
  return { result: msg.result };
}

export async function askRead(channel: KernelChannel, toolCallId: string, uri: string): Promise<Record<string, unknown>> {
  const msg = await ask<McpResultMessage>(channel, "mcp_result", (requestId) => ({ kind: "mcp_read", requestId, toolCallId, uri }));
  if (msg.result === null) throw new Error(msg.error ?? `The kernel could not read ${uri}.`);
  return msg.result;
}
