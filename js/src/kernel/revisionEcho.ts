/**
 * marimo re-runs the cells that read a widget's value (`mo.ui.anywidget(chat)`) only when a view
 * sends that value: the kernel's own trait changes do not count. So where the kernel grows the
 * `revision` trait (in marimo, on a change of the state, the transcript or the status), the page
 * hands each new value back, unchanged and once, whatever number of views of the chat it shows.
 * Elsewhere `revision` stays 0 and nothing is sent.
 */
import type { AnyModel } from "../anywidget";
import { perChat } from "./perChat";

/** What anywidget's model offers to write a trait (every host has it; the view writes no other). */
interface WritableModel extends AnyModel {
  set?(name: string, value: unknown): void;
  save_changes?(): void;
}

const handedBack = perChat(() => ({ revision: 0 }));

export function echoRevisions(model: WritableModel): () => void {
  const page = handedBack(model);
  const onChange = () => {
    const revision = model.get("revision");
    if (typeof revision !== "number" || revision <= page.revision) return;
    page.revision = revision; // before `set`: a host that reports its own write calls back here
    model.set?.("revision", revision);
    model.save_changes?.();
  };
  model.on("change:revision", onChange);
  return () => model.off("change:revision", onChange);
}
