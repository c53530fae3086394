/** What every component of one view can reach: its connection, its handler runner, and a way to
 * ask the transcript to follow the newest message again (or to stay where it is). */
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Connection } from "../kernel/connection";
import type { HandlerRunner } from "../page/handlers";

/**
 * "Follow the newest message from now on": called by whatever starts a run from this view (Send,
 * Edit's "Save and send", Regenerate, Retry, a suggestion), heard by the transcript's scroller.
 * "Stay here" is its opposite: an edit box opened above the end must not be scrolled away.
 */
export class Follower {
  private readonly listeners = new Set<(following: boolean) => void>();

  follow(): void {
    this.tell(true);
  }

  stay(): void {
    this.tell(false);
  }

  subscribe(listener: (following: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private tell(following: boolean): void {
    for (const listener of [...this.listeners]) listener(following);
  }
}

export type ViewContext = { conn: Connection; runner: HandlerRunner; follower: Follower };

export const ViewCtx = createContext<ViewContext | null>(null);

export function useView(): ViewContext {
  const ctx = useContext(ViewCtx);
  if (!ctx) throw new Error("agui-widget: a component rendered outside its view");
  return ctx;
}
