/**
 * Frontend tools whose ToolSpec has `ui: "handler"`: their JavaScript runs in the browser, once
 * per tool call, and its return value goes back as `tool_result` (docs/wire.md).
 *
 * Once: every view of one chat in a page shares a registry (`perChat`: anywidget wraps the model
 * anew for each view). The first view that rendered and is still alive runs the handlers; the
 * others only show them. A
 * tool call id, once started in this page, is never started again, even if its pending entry
 * comes and goes or the leading view closes. Across pages (a second browser tab) the kernel
 * decides: a page claims a call first (`claim`), and runs it only once the pending entry names
 * one of its views (`claimedBy`); the first claim wins, so the others show the call as handled
 * elsewhere. `takeOver` lets a page run it after all (the claiming tab was closed).
 */
import { setAccent } from "./accent";
import type { AnyModel } from "../anywidget";
import type { Connection } from "../kernel/connection";
import { warn } from "../util/log";
import { perChat } from "../kernel/perChat";
import type { PendingTool, ToolSpec } from "../kernel/wire";

/** What a handler receives as its second parameter. */
export type HandlerContext = {
  /** an element of its own, shown with the tool call, for anything the handler draws */
  el: HTMLElement;
  model: AnyModel;
  /** sets the chat's accent colour (`--agui-accent`); the kernel keeps it for every view (./accent.ts) */
  setAccent(color: string | null | undefined): void;
};

type AsyncFn = (args: unknown, ctx: HandlerContext) => Promise<unknown>;
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
  ...params: string[]
) => AsyncFn;

type Shared = {
  runners: HandlerRunner[];
  started: Set<string>;
  /** calls this page asked to run (a claim sent, not yet granted) */
  claimed: Set<string>;
  /** every view of the model this page has had: a claim by any of them is this page's */
  views: Set<string>;
};
const sharedOf = perChat<Shared>(() => ({ runners: [], started: new Set(), claimed: new Set(), views: new Set() }));

/** What a handler's result becomes on the wire: JSON, or `{error}` saying why it is not. */
export function resultForWire(value: unknown): unknown {
  if (value === undefined) return null;
  try {
    JSON.stringify(value);
    return value;
  } catch (error) {
    return { error: `the handler returned a value that is not JSON: ${String(error)}` };
  }
}

export class HandlerRunner {
  private readonly shared: Shared;
  private readonly outputs = new Map<string, HTMLElement>();
  private readonly running = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private readonly unsubscribe: Array<() => void>;
  private disposed = false;

  constructor(private readonly conn: Connection) {
    this.shared = sharedOf(conn.model);
    this.shared.runners.push(this);
    this.shared.views.add(conn.viewId);
    const check = () => this.check();
    this.unsubscribe = [conn.traits.subscribe("pending", check), conn.traits.subscribe("frontend_tools", check)];
  }

  /** The first live view of the model in this page runs the handlers. */
  isLeader(): boolean {
    return this.shared.runners[0] === this;
  }

  /** Claims every pending call with a handler that nobody claimed, and starts those the kernel
   * gave to this page (once each). */
  check(): void {
    if (this.disposed || !this.isLeader()) return;
    const tools = this.conn.traits.get("frontend_tools");
    for (const entry of this.conn.traits.get("pending")) {
      if (entry.kind !== "tool" || this.shared.started.has(entry.toolCallId)) continue;
      const spec = tools.find((t) => t.name === entry.name);
      if (!spec || spec.ui !== "handler" || !spec.handler) continue;
      if (entry.claimedBy === null) {
        if (!this.shared.claimed.has(entry.toolCallId)) {
          this.shared.claimed.add(entry.toolCallId);
          this.conn.send({ kind: "claim", toolCallId: entry.toolCallId, viewId: this.conn.viewId });
        }
        continue;
      }
      if (!this.shared.views.has(entry.claimedBy)) continue; // another page runs it
      this.shared.started.add(entry.toolCallId);
      void this.run(entry, spec);
    }
  }

  /** True when another page (a second tab) runs this pending call's handler. */
  handledElsewhere(entry: PendingTool): boolean {
    return entry.claimedBy !== null && !this.shared.views.has(entry.claimedBy);
  }

  /** Runs a call here although another page claimed it (that tab was closed, say). */
  takeOver(toolCallId: string): void {
    this.conn.send({ kind: "claim", toolCallId, viewId: this.conn.viewId, takeOver: true });
  }

  /** The element a handler of this call draws into, once it started in this view. */
  output(toolCallId: string): HTMLElement | undefined {
    return this.outputs.get(toolCallId);
  }

  isRunning(toolCallId: string): boolean {
    return this.running.has(toolCallId);
  }

  /** True when some view of this model in this page started this call's handler. */
  wasStarted(toolCallId: string): boolean {
    return this.shared.started.has(toolCallId);
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const off of this.unsubscribe) off();
    const wasLeader = this.isLeader();
    this.shared.runners = this.shared.runners.filter((r) => r !== this);
    this.listeners.clear();
    // The next view takes over whatever is still waiting for a handler.
    if (wasLeader) this.shared.runners[0]?.check();
  }

  private async run(entry: PendingTool, spec: ToolSpec): Promise<void> {
    const { toolCallId } = entry;
    const el = document.createElement("div");
    el.className = "agui-handler-output";
    this.outputs.set(toolCallId, el);
    this.running.add(toolCallId);
    this.emit();
    const ctx: HandlerContext = {
      el,
      model: this.conn.model,
      setAccent: (color) => setAccent(this.conn, color),
    };
    let result: unknown;
    try {
      const handler = new AsyncFunction("args", "ctx", spec.handler ?? "");
      result = resultForWire(await handler(entry.args, ctx));
    } catch (error) {
      warn(`the handler of tool ${spec.name} failed:`, error);
      result = { error: String(error) };
    }
    this.running.delete(toolCallId);
    // Sent through the model even if this view closed meanwhile: the answer still counts.
    try {
      this.conn.model.send({ kind: "tool_result", toolCallId, result });
    } catch (error) {
      warn(`could not send the result of tool call ${toolCallId}:`, error);
    }
    this.emit();
  }

  private emit(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
