/**
 * What `@` in the message box asks the kernel (docs/wire.md): the user's variables (`variables`)
 * and one variable's summary (`inspect_variable`). Each question carries an id of its own and
 * waits for the answer with that id; the answers go to every view of the chat, and a view ignores
 * those it did not ask for.
 */
import type { AnyModel } from "../anywidget";
import { isObject, parseKernelMessage, type KernelMessage, type VariableEntry, type ViewRequest } from "./wire";

/** The part of a view's connection a question needs. */
export type KernelChannel = { readonly model: AnyModel; readonly viewId: string; send(request: ViewRequest): boolean };

/** How long a question waits for its answer. A kernel running a cell reads nothing until the cell
 * ends, so this is long: the list says it is waiting meanwhile. */
export const ANSWER_TIMEOUT_MS = 120_000;

let asked = 0;

/**
 * Sends the request `make(requestId)` and resolves with what `answer` makes of the kernel's
 * message of `kind` carrying that id; rejects when the request cannot go, with the kernel's
 * reason, or when no answer comes in time.
 */
function ask<T>(channel: KernelChannel, kind: KernelMessage["kind"], make: (requestId: string) => ViewRequest, answer: (msg: KernelMessage) => T): Promise<T> {
  const requestId = `${channel.viewId}:${++asked}`;
  return new Promise<T>((resolve, reject) => {
    const finish = () => {
      clearTimeout(timer);
      channel.model.off("msg:custom", onMessage);
    };
    const onMessage = (raw: unknown) => {
      if (!isObject(raw) || raw.kind !== kind || raw.requestId !== requestId) return;
      const msg = parseKernelMessage(raw);
      if (msg === null) return;
      finish();
      try {
        resolve(answer(msg));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error("The kernel did not answer."));
    }, ANSWER_TIMEOUT_MS);
    (timer as { unref?: () => void }).unref?.();
    channel.model.on("msg:custom", onMessage);
    if (!channel.send(make(requestId))) {
      finish();
      reject(new Error("The kernel is not connected."));
    }
  });
}

/** The user's variables, as the kernel lists them. */
export function askVariables(channel: KernelChannel): Promise<VariableEntry[]> {
  return ask(channel, "variables", (requestId) => ({ kind: "variables", requestId }), (msg) => {
    if (msg.kind !== "variables") throw new Error("The kernel answered something else.");
    if (msg.error !== null) throw new Error(msg.error);
    return msg.variables;
  });
}

/** One variable's summary, as the kernel makes it (bounded). */
export function askSummary(channel: KernelChannel, name: string): Promise<string> {
  return ask(channel, "variable", (requestId) => ({ kind: "inspect_variable", requestId, name }), (msg) => {
    if (msg.kind !== "variable") throw new Error("The kernel answered something else.");
    if (msg.summary === null) throw new Error(msg.error ?? `The kernel has no summary of ${name}.`);
    return msg.summary;
  });
}
