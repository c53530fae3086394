/**
 * What the user decided about calls that asked for approval, as far as this page knows.
 *
 * A confirm tool's answer (`{approved}`) becomes the call's result, so every view and every reload
 * reads it there. An interrupt's answer (the resume payload, or a cancelled status) goes to the
 * agent only, which writes the call's result in its own words; so the views of one model in this
 * page share what was answered here, and which calls asked at all (whose results may then be
 * read for a denial). Shared per model, like the handler runner: one model object per page.
 */
import type { AnyModel } from "../anywidget";
import { perChat } from "../kernel/perChat";
import type { Mirror } from "../mirror/mirror";
import { isObject } from "../kernel/wire";
import type { Decision } from "./callState";

export class Decisions {
  private readonly asked = new Set<string>();
  private readonly decided = new Map<string, Decision>();
  private readonly listeners = new Set<() => void>();

  /** A call's approval was asked (an interrupt about it, or a confirm tool call) in this page. */
  markAsked(toolCallId: string): void {
    if (this.asked.has(toolCallId)) return;
    this.asked.add(toolCallId);
    this.emit();
  }

  wasAsked(toolCallId: string): boolean {
    return this.asked.has(toolCallId);
  }

  decide(toolCallId: string, decision: Decision): void {
    if (this.decided.get(toolCallId) === decision) return;
    this.decided.set(toolCallId, decision);
    this.asked.add(toolCallId);
    this.emit();
  }

  decision(toolCallId: string): Decision | null {
    return this.decided.get(toolCallId) ?? null;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

/** The decisions of one chat, shared by its views in this page. */
export const decisionsOf: (model: AnyModel) => Decisions = perChat(() => new Decisions());

type Scan = { base: number; length: number; ids: ReadonlySet<string> };
const scans = new WeakMap<Mirror, Scan>();

/**
 * The calls an interrupt asked about, read from the event log this view holds (RUN_FINISHED with
 * an `interrupt` outcome): what tells a view opened later that a call asked for approval.
 */
export function interruptedCalls(mirror: Mirror): ReadonlySet<string> {
  const events = mirror.events();
  const cached = scans.get(mirror);
  if (cached && cached.base === mirror.eventsBase && cached.length === events.length) return cached.ids;
  const ids = new Set<string>();
  for (const event of events) {
    if (event.type !== "RUN_FINISHED") continue;
    const outcome = (event as { outcome?: unknown }).outcome;
    if (!isObject(outcome) || outcome.type !== "interrupt" || !Array.isArray(outcome.interrupts)) continue;
    for (const item of outcome.interrupts) {
      if (isObject(item) && typeof item.toolCallId === "string") ids.add(item.toolCallId);
    }
  }
  scans.set(mirror, { base: mirror.eventsBase, length: events.length, ids });
  return ids;
}
