/**
 * A live widget in an answer: an ipywidget a tool returned (a slider, a FigureWidget, a map, an
 * anywidget), shown as itself and tied to the kernel through the page's widget manager.
 *
 * The bundle names the widget's model (`application/vnd.jupyter.widget-view+json`). The view asks
 * the widget manager anywidget gives our model (`model.widget_manager`: JupyterLab, Notebook 7,
 * VS Code) for that model, creates a view of it and attaches it here, as Jupyter's own output area
 * does (a Lumino widget attached to our element). Until then, and for good when there is no
 * manager (a served page), the model is gone (a restarted kernel, a saved notebook) or it closes
 * later, the bundle's static parts stand in. The view of the widget is disposed with this one.
 * Keys pressed in it are the widget's, not the notebook's shortcuts, as in all of the chat
 * (./keys.ts).
 */
import type { ComponentChildren } from "preact";
import { useContext, useEffect, useRef, useState } from "preact/hooks";
import { isObject, type MimeBundle } from "../kernel/wire";
import { ViewCtx } from "./context";

export const WIDGET_VIEW = "application/vnd.jupyter.widget-view+json";

/** What this view uses of an ipywidgets widget manager (@jupyter-widgets/base's). */
export interface WidgetManagerLike {
  get_model(modelId: string): Promise<unknown>;
  create_view(model: unknown, options?: Record<string, unknown>): Promise<unknown>;
}

/** What this view uses of a widget model and of a view of it (Backbone's events, ipywidgets'). */
type WidgetModelLike = {
  get?: (name: string) => unknown;
  on?: (event: string, callback: (...args: unknown[]) => void) => void;
  off?: (event: string, callback: (...args: unknown[]) => void) => void;
  comm_live?: boolean;
};
type LuminoLike = { node?: unknown; dispose?: () => void; constructor?: { attach?: (widget: unknown, host: HTMLElement) => void } };
type WidgetViewLike = { el?: unknown; luminoWidget?: LuminoLike; pWidget?: LuminoLike; remove?: () => void; trigger?: (event: string) => void };

/** The model id a bundle shows live, or null. */
export function widgetModelId(bundle: MimeBundle): string | null {
  const view = bundle[WIDGET_VIEW];
  const id = isObject(view) ? view.model_id : undefined;
  return typeof id === "string" && id !== "" ? id : null;
}

/** A bundle without its widget view: what shows while the widget is not live. */
export function staticParts(bundle: MimeBundle): MimeBundle {
  const { [WIDGET_VIEW]: _view, ...rest } = bundle;
  return rest;
}

/** The widget manager anywidget gives a model, if the page has one. */
export function widgetManagerOf(model: unknown): WidgetManagerLike | null {
  const manager = (model as { widget_manager?: unknown } | null | undefined)?.widget_manager;
  if (!manager || typeof manager !== "object") return null;
  const { get_model, create_view } = manager as Partial<WidgetManagerLike>;
  return typeof get_model === "function" && typeof create_view === "function" ? (manager as WidgetManagerLike) : null;
}

/** A chat's own model (ours, or another chat's): never shown inside a chat, where its transcript
 * would show it again, and again. The kernel keeps chats out of bundles; a bundle from elsewhere
 * (a remote agent, a loaded thread) could still name one. */
export function isChatModel(model: unknown): boolean {
  const get = (model as WidgetModelLike | null | undefined)?.get;
  if (typeof get !== "function") return false;
  const read = (name: string) => get.call(model, name);
  return read("saved_output_id") !== undefined && read("agent_names") !== undefined;
}

/** Puts a widget's view into `host`; returns how to take it away again. */
export function attachView(view: WidgetViewLike, host: HTMLElement): () => void {
  const lumino = view.luminoWidget ?? view.pWidget;
  const attach = lumino?.constructor?.attach;
  if (lumino && typeof attach === "function") {
    // Lumino's Widget.attach (a static every widget class inherits): tells the view it is shown
    attach.call(lumino.constructor, lumino, host);
  } else if (view.el instanceof HTMLElement) {
    host.appendChild(view.el);
    view.trigger?.("displayed");
  }
  return () => disposeView(view);
}

/** Ends a widget's view (its Lumino widget disposes the view with it). */
export function disposeView(view: WidgetViewLike): void {
  const lumino = view.luminoWidget ?? view.pWidget;
  if (lumino && typeof lumino.dispose === "function") lumino.dispose();
  else view.remove?.();
}

type Live = "waiting" | "live" | "static";

/** The widget a bundle names, live when the page's widget manager has its model; `children`
 * (the static bundle) otherwise. */
export function LiveWidget({ modelId, children }: { modelId: string; children: ComponentChildren }) {
  const view = useContext(ViewCtx);
  const hostRef = useRef<HTMLDivElement>(null);
  const manager = widgetManagerOf(view?.conn.model);
  const [state, setState] = useState<Live>(manager ? "waiting" : "static");
  useEffect(() => {
    const host = hostRef.current;
    if (!manager || !host) return setState("static");
    let current = true;
    let detach: (() => void) | null = null;
    let model: WidgetModelLike | null = null;
    const gone = () => {
      if (!current) return;
      detach?.();
      detach = null;
      setState("static");
    };
    const onLive = () => {
      if (model?.comm_live === false) gone();
    };
    setState("waiting");
    manager
      .get_model(modelId)
      .then((found) => {
        if (!current) return null;
        if (isChatModel(found)) throw new Error("a chat is not shown inside a chat");
        model = found as WidgetModelLike;
        return manager.create_view(found);
      })
      .then((created) => {
        if (created === null || created === undefined) return;
        const widgetView = created as WidgetViewLike;
        if (!current) return disposeView(widgetView);
        if (model?.comm_live === false) {
          disposeView(widgetView);
          throw new Error("the widget's kernel is gone");
        }
        detach = attachView(widgetView, host);
        model?.on?.("destroy", gone);
        model?.on?.("comm_live_update", onLive);
        setState("live");
      })
      .catch(gone);
    return () => {
      current = false;
      model?.off?.("destroy", gone);
      model?.off?.("comm_live_update", onLive);
      detach?.();
    };
  }, [modelId, manager]);
  return (
    <div class="agui-bundle agui-live-widget" data-mime={WIDGET_VIEW} data-live={state}>
      <div ref={hostRef} class="agui-live-widget-host" />
      {state !== "live" && children}
    </div>
  );
}
