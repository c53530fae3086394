/**
 * What the views of one chat in one page share (who runs a browser tool, the accent, what the user
 * decided). anywidget hands each view a wrapper of its own around the chat's model, so the model
 * object cannot be the key: the chat's `saved_output_id`, one per AgentChat and never changed, is.
 * A model without one (an older kernel) falls back to its own object.
 */
import type { AnyModel } from "../anywidget";

export function perChat<T>(make: () => T): (model: AnyModel) => T {
  const byChat = new Map<string, T>();
  const byModel = new WeakMap<AnyModel, T>();
  return (model) => {
    const id = model.get("saved_output_id");
    if (typeof id === "string" && id !== "") {
      let found = byChat.get(id);
      if (found === undefined) byChat.set(id, (found = make()));
      return found;
    }
    let found = byModel.get(model);
    if (found === undefined) byModel.set(model, (found = make()));
    return found;
  };
}
