/**
 * AG-UI's vocabulary as it travels between the kernel and a view: camelCase JSON, with `type` as
 * a plain string. The types come from `@ag-ui/core` (types only: nothing of that package ends up
 * in the bundle); the widget's own messages are declared in Python (js/src/kernel/generated/wire.ts).
 */
import type * as core from "@ag-ui/core";

export type Message = core.Message;
export type Role = Message["role"];
export type ToolCall = core.ToolCall;
export type ContentPart = core.ContentPart;
export type JsonPatchOperation = core.JsonPatchOperation;
export type JsonPatch = core.JsonPatch;

/** `@ag-ui/core` types `type` as an enum member; on the wire it is that member's string. */
type Plain<E> = E extends { type: infer T extends string } ? Omit<E, "type"> & { type: `${T}` } : never;

/** One AG-UI event as the kernel sends it. */
export type AguiEvent = Plain<core.Event>;
export type AguiEventType = AguiEvent["type"];
export type EventOf<T extends AguiEventType> = Extract<AguiEvent, { type: T }>;
