/**
 * The checks an A2UI surface passes before it is drawn: its operations are A2UI v0.9 messages,
 * each with one operation; its components are the catalogue's; and no string in it is a URL that
 * could run script (`javascript:`, `vbscript:`, an HTML `data:` URL), wherever it stands (a
 * component's property, or the data model a property may be bound to). A surface that fails is
 * not drawn at all: the view shows why, and the activity's content as JSON.
 */

const OPERATIONS = ["createSurface", "updateComponents", "updateDataModel", "deleteSurface"] as const;
const SCRIPT_URL = /^[\s\u0000-\u001f]*(?:javascript|vbscript|data\s*:\s*(?:text\/html|application\/xhtml|image\/svg))/i;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The first string in `value` that could run script as a URL, or null. */
function scriptUrlIn(value: unknown, depth = 0): string | null {
  if (typeof value === "string") return SCRIPT_URL.test(value.replace(/[\s\u0000-\u001f]+/g, "")) ? value : null;
  if (depth > 64 || typeof value !== "object" || value === null) return null;
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    const found = scriptUrlIn(item, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

/** The surfaces given components, none of them "root" (A2UI draws from "root": they would stay blank). */
function surfacesWithoutRoot(operations: Record<string, unknown>[]): string[] {
  const hasRoot = new Map<string, boolean>();
  for (const op of operations) {
    const update = op.updateComponents as { surfaceId: string; components: Array<{ id?: unknown }> } | undefined;
    if (!update) continue;
    const root = update.components.some((c) => c.id === "root");
    hasRoot.set(update.surfaceId, (hasRoot.get(update.surfaceId) ?? false) || root);
  }
  return [...hasRoot].filter(([, root]) => !root).map(([id]) => id);
}

/** The operations, checked; throws an Error saying what is wrong. */
export function checkOperations(operations: unknown, knownComponent: (name: string) => boolean): Record<string, unknown>[] {
  if (!Array.isArray(operations) || operations.length === 0) throw new Error("a2ui_operations is not a list of A2UI messages");
  operations.forEach((op, i) => {
    if (!isRecord(op)) throw new Error(`operation ${i} is not an object`);
    const kinds = OPERATIONS.filter((k) => k in op);
    if (kinds.length !== 1) throw new Error(`operation ${i} has ${kinds.length === 0 ? "no" : "more than one"} A2UI operation`);
    const body = op[kinds[0]!];
    if (!isRecord(body) || typeof body.surfaceId !== "string") throw new Error(`operation ${i} (${kinds[0]}) names no surfaceId`);
    if (kinds[0] === "updateComponents") {
      if (!Array.isArray(body.components)) throw new Error(`operation ${i}: components is not a list`);
      for (const c of body.components) {
        const name = isRecord(c) ? c.component : undefined;
        if (typeof name !== "string" || !knownComponent(name)) {
          throw new Error(`the component ${JSON.stringify(name ?? null)} is not in the basic catalogue`);
        }
      }
    }
  });
  const withoutRoot = surfacesWithoutRoot(operations as Record<string, unknown>[]);
  if (withoutRoot.length > 0) throw new Error(`no component of the surface ${JSON.stringify(withoutRoot[0])} has the id "root", where drawing starts`);
  const unsafe = scriptUrlIn(operations);
  if (unsafe !== null) throw new Error(`the surface holds a URL that could run script (${unsafe.slice(0, 40)})`);
  return operations as Record<string, unknown>[];
}
