/** What every component of one view can reach: its connection, its handler runner, and a way to
 * ask the transcript to follow the newest message again. */
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Connection } from "../connection";
import type { HandlerRunner } from "../handlers";

/**
 * "Follow the newest message from now on": called by whatever starts a run from this view (Send,
 * Edit's "Save and send", Regenerate, Retry, a suggestion), heard by the transcript's scroller.
 */
export class Follower {
  private readonly listeners = new Set<() => void>();

  follow(): void {
    for (const listener of [...this.listeners]) listener();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export type ViewContext = { conn: Connection; runner: HandlerRunner; follower: Follower };

export const ViewCtx = createContext<ViewContext | null>(null);

export function useView(): ViewContext {
  const ctx = useContext(ViewCtx);
  if (!ctx) throw new Error("agui-widget: a component rendered outside its view");
  return ctx;
}
