/**
 * An A2UI surface in the transcript: an activity message of type `a2ui-surface`, as
 * `@ag-ui/a2ui-middleware` makes it (content `{a2ui_operations: [...]}`, or `{status}` while an
 * agent's render tool call is still being built). The surface is drawn by A2UI's own renderer,
 * loaded from the kernel on first use (./load.ts), in the chat's theme; what the user does on it
 * goes to the kernel as an `a2ui_action` request, which starts the agent's next turn. A surface
 * that cannot be drawn (malformed operations, an unknown surface or component, an unsafe URL, no
 * renderer) shows why above the generic activity card (`fallback`); the chat goes on.
 */
import type { ComponentChildren } from "preact";
import { useContext, useEffect, useRef, useState } from "preact/hooks";
import { isObject } from "../kernel/wire";
import { ViewCtx } from "../view/context";
import { isDarkTheme } from "../view/vega";
import { loadA2ui } from "./load";

export const A2UI_ACTIVITY = "a2ui-surface";
const OPERATIONS_KEY = "a2ui_operations";

type SurfaceState = { kind: "loading" } | { kind: "drawn" } | { kind: "failed"; why: string };

/** What a lifecycle status (no operations yet) says. */
function statusText(content: Record<string, unknown>): string | null {
  const { status } = content;
  if (status === "building") return "Building the surface…";
  if (status === "retrying") {
    const of = typeof content.maxAttempts === "number" ? ` of ${content.maxAttempts}` : "";
    return `The surface was not valid; the agent is trying again (attempt ${String(content.attempt ?? "?")}${of})…`;
  }
  if (status === "failed") return `The agent could not build the surface: ${String(content.error ?? "no reason given")}`;
  return null;
}

export function A2uiSurface({ content, fallback }: { content: unknown; fallback: ComponentChildren }) {
  const record = isObject(content) ? content : {};
  const operations = record[OPERATIONS_KEY];
  if (operations === undefined) {
    const status = statusText(record);
    if (status !== null) {
      return (
        <div class="agui-activity agui-a2ui" data-activity-type={A2UI_ACTIVITY} data-a2ui={String(record.status)}>
          <div class="agui-bundle-note">{status}</div>
        </div>
      );
    }
    return <Failed why={`the activity's content has no ${OPERATIONS_KEY}`} fallback={fallback} />;
  }
  return <Drawn operations={operations} fallback={fallback} />;
}

function Failed({ why, fallback }: { why: string; fallback: ComponentChildren }) {
  return (
    <div class="agui-a2ui-failed" data-a2ui="failed">
      <div class="agui-bundle-note agui-a2ui-error" role="status">
        A2UI surface not drawn: {why}
      </div>
      {fallback}
    </div>
  );
}

function Drawn({ operations, fallback }: { operations: unknown; fallback: ComponentChildren }) {
  const view = useContext(ViewCtx);
  const ref = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<SurfaceState>({ kind: "loading" });
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (!view) {
      setState({ kind: "failed", why: "this view has no kernel to load the A2UI renderer from" });
      return;
    }
    let live = true;
    let dispose: (() => void) | null = null;
    setState({ kind: "loading" });
    loadA2ui(view.conn)
      .then((renderer) => {
        if (!live) return;
        const mounted = renderer.mount(el, operations, {
          dark: isDarkTheme(el),
          onAction: (action) => view.conn.send({ kind: "a2ui_action", action }),
        });
        dispose = () => mounted.dispose();
        setState({ kind: "drawn" });
      })
      .catch((error: unknown) => {
        if (!live) return;
        el.replaceChildren();
        setState({ kind: "failed", why: error instanceof Error ? error.message : String(error) });
      });
    return () => {
      live = false;
      dispose?.();
      el.replaceChildren();
    };
  }, [operations, view]);
  return (
    <div class={`agui-a2ui${state.kind === "drawn" ? " agui-activity" : ""}`} data-activity-type={A2UI_ACTIVITY} data-a2ui={state.kind}>
      <div ref={ref} class="agui-a2ui-surface" />
      {state.kind === "loading" && <div class="agui-bundle-note">Loading the surface…</div>}
      {state.kind === "failed" && <Failed why={state.why} fallback={fallback} />}
    </div>
  );
}
