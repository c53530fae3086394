/**
 * What `@` in the message box asks the kernel (docs/wire.md): the user's variables (`variables`)
 * and one variable's summary (`inspect_variable`).
 */
import { ask, type KernelChannel } from "./ask";
import type { VariableEntry } from "./wire";

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
