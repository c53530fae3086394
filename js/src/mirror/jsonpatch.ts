/**
 * RFC 6902 application for the mirror: `fast-json-patch` does the operations (validation,
 * pointer rules, `test` equality); this wrapper makes it atomic and copy-on-write.
 *
 * `fast-json-patch` either mutates the document in place (a failing op half-way leaves a half
 * applied patch) or deep-clones the whole document first (a one-key change in a 1 MB state would
 * cost the whole megabyte). Here, before each op, the containers on its path are shallow-copied
 * once, and only those copies are mutated: the input document is never touched, unchanged
 * subtrees keep their identity (so a view can skip them), a failing patch leaves the old value
 * in place, and the cost is the patch's paths, not the document's size.
 */
import { applyOperation, validator } from "fast-json-patch";
import type { JsonPatch } from "../kernel/wire";

export class PatchError extends Error {
  override name = "PatchError";
}

const hasOwn = (obj: object, key: string) => Object.prototype.hasOwnProperty.call(obj, key);

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return typeof value === "object" && value !== null;
}

function cloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

function unescapeToken(token: string): string {
  return token.indexOf("~") === -1 ? token : token.replace(/~1/g, "/").replace(/~0/g, "~");
}

/**
 * Returns `root` with every container on `pointer` (all but the last token's target) owned by
 * this patch, copying the ones that are not yet. Walking stops where the path does not resolve;
 * `applyOperation` then reports the error.
 */
function ownPath(root: unknown, pointer: string, owned: WeakSet<object>): unknown {
  if (pointer === "" || !isContainer(root)) return root;
  const own = (value: Record<string, unknown> | unknown[]) => {
    if (owned.has(value)) return value;
    const copy = Array.isArray(value) ? value.slice() : { ...value };
    owned.add(copy);
    return copy;
  };
  const newRoot = own(root);
  const tokens = pointer.split("/");
  let parent: Record<string, unknown> | unknown[] = newRoot;
  // tokens[0] is "" (the pointer starts with "/"); the last token names the target itself.
  for (let i = 1; i < tokens.length - 1; i++) {
    const key = unescapeToken(tokens[i] as string);
    if (!hasOwn(parent, key)) break;
    const child = (parent as Record<string, unknown>)[key];
    if (!isContainer(child)) break;
    const mine = own(child);
    (parent as Record<string, unknown>)[key] = mine;
    parent = mine;
  }
  return newRoot;
}

const MUTATING = new Set(["add", "remove", "replace", "move", "copy"]);

/**
 * Applies `patch` to `document` and returns the new document. Never mutates `document` nor the
 * patch (values are copied in, so a message object shared by two views stays untouched).
 * Throws PatchError, with the old document intact, when any operation fails.
 */
export function applyJsonPatch<T>(document: T, patch: JsonPatch | unknown): T {
  if (!Array.isArray(patch)) throw new PatchError("a JSON Patch must be a list of operations");
  const owned = new WeakSet<object>();
  let doc: unknown = document;
  for (let i = 0; i < patch.length; i++) {
    const op = cloneJson(patch[i]) as Record<string, unknown>;
    try {
      validator(op as never, i);
      if (MUTATING.has(op.op as string)) {
        doc = ownPath(doc, op.path as string, owned);
        if (typeof op.from === "string") doc = ownPath(doc, op.from, owned);
      }
      doc = applyOperation(doc, op as never, true, true, true, i).newDocument;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new PatchError(`operation ${i} (${String(op?.op)} ${String(op?.path)}) failed: ${message}`);
    }
  }
  return doc as T;
}
