/**
 * One view's link to the kernel: its viewId, its mirror of the conversation, the synced traits,
 * the notices, and the requests it sends (docs/wire.md).
 */
import type { AnyModel, ModelCallback } from "./anywidget";
import { warn } from "./log";
import { Mirror } from "./mirror";
import { NoticeStore } from "./notices";
import { TraitStore } from "./traits";
import { type ViewRequest, parseKernelMessage } from "./wire";

/** At most one snapshot request per this many ms when the copy needs repair. */
const RESYNC_INTERVAL_MS = 1000;

export function newViewId(): string {
  const c = (globalThis as { crypto?: Crypto }).crypto;
  // randomUUID exists only in secure contexts (https, localhost); a notebook served over plain
  // http elsewhere still has getRandomValues.
  if (c && typeof c.randomUUID === "function") return c.randomUUID();
  if (c && typeof c.getRandomValues === "function") {
    return Array.from(c.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
  }
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

export class Connection {
  readonly mirror: Mirror;
  readonly traits: TraitStore;
  readonly notices = new NoticeStore();
  private readonly onCustom: ModelCallback;
  private readonly offResync: () => void;
  private lastHello = Number.NEGATIVE_INFINITY;
  private resyncTimer: ReturnType<typeof setTimeout> | undefined;
  private disposed = false;

  constructor(
    readonly model: AnyModel,
    readonly viewId: string = newViewId(),
  ) {
    this.mirror = new Mirror(viewId);
    this.traits = new TraitStore(model);
    this.onCustom = (content: unknown) => {
      const msg = parseKernelMessage(content);
      if (msg === null) return;
      if (msg.kind === "notice") this.notices.add(msg.level, msg.text);
      else this.mirror.apply(msg);
    };
    model.on("msg:custom", this.onCustom);
    this.offResync = this.mirror.subscribe("resync", () => this.requestSnapshot());
    // The chat's predictive-state rules, which the mirror applies to every TOOL_CALL_ARGS.
    const predictRules = () => this.mirror.setPredictRules(this.traits.get("predict_state"));
    predictRules();
    this.traits.subscribe("predict_state", predictRules);
  }

  /** Says hello: the kernel answers with a snapshot addressed to this view. */
  start(): void {
    this.hello();
  }

  send(request: ViewRequest): void {
    if (this.disposed) return;
    try {
      this.model.send(request);
    } catch (error) {
      warn(`could not send ${request.kind}:`, error);
      this.notices.add("error", `Could not reach the kernel (${request.kind}).`);
    }
  }

  /** Asks for a fresh snapshot (this copy diverged), at most once per RESYNC_INTERVAL_MS. */
  requestSnapshot(): void {
    if (this.disposed || this.resyncTimer !== undefined) return;
    const wait = this.lastHello + RESYNC_INTERVAL_MS - Date.now();
    if (wait <= 0) {
      this.hello();
      return;
    }
    this.resyncTimer = setTimeout(() => {
      this.resyncTimer = undefined;
      this.hello();
    }, wait);
  }

  dispose(): void {
    this.disposed = true;
    if (this.resyncTimer !== undefined) clearTimeout(this.resyncTimer);
    this.model.off("msg:custom", this.onCustom);
    this.offResync();
    this.traits.dispose();
    this.notices.dispose();
  }

  private hello(): void {
    this.lastHello = Date.now();
    this.send({ kind: "hello", viewId: this.viewId });
  }
}
