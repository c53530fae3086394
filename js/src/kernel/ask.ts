/**
 * A question a view asks the kernel and the answer it waits for (docs/wire.md): each question
 * carries an id of its own and waits for the kernel's message with that id; the answers go to
 * every view of the chat, and a view ignores those it did not ask for.
 */
import type { AnyModel } from "../anywidget";
import { isObject, parseKernelMessage, type KernelMessage, type ViewRequest } from "./wire";

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
export function ask<T>(channel: KernelChannel, kind: KernelMessage["kind"], make: (requestId: string) => ViewRequest, answer: (msg: KernelMessage) => T): Promise<T> {
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
