/** What every component of one view can reach: its connection and its handler runner. */
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Connection } from "../connection";
import type { HandlerRunner } from "../handlers";

export type ViewContext = { conn: Connection; runner: HandlerRunner };

export const ViewCtx = createContext<ViewContext | null>(null);

export function useView(): ViewContext {
  const ctx = useContext(ViewCtx);
  if (!ctx) throw new Error("agui-widget: a component rendered outside its view");
  return ctx;
}
