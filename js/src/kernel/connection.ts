/**
 * One view's link to the kernel: its viewId, its mirror of the conversation, the synced traits,
 * the notices, and the requests it sends (docs/wire.md); whether the kernel is still there; and
 * what the transcript keeps that the mirror does not (past runs, when messages appeared).
 */
import type { AnyModel, ModelCallback } from "../anywidget";
import { MessageClock, eventTimes } from "../mirror/clock";
import { RunHistory } from "../mirror/history";
import { warn } from "../util/log";
import { Mirror, textOf } from "../mirror/mirror";
import { NoticeStore } from "./notices";
import { Outbox, type ShownUser } from "./outbox";
import { TraitStore } from "./traits";
import { type AguiEvent, type KernelMessage, type MediaPart, type ViewRequest, checkEvent, parseKernelMessage } from "./wire";

/** At most one snapshot request per this many ms when the copy needs repair. */
const RESYNC_INTERVAL_MS = 1000;

/**
 * Whether the kernel end of this view's comm is still there.
 *
 * - `live`: requests reach the chat in the kernel.
 * - `restarted`: the notebook restarted (or changed) its kernel. JupyterLab and Notebook 7 mark
 *   every widget model of the old kernel as no longer live (ipywidgets' `comm_live` turns false,
 *   announced by the model's `comm_live_update` event): the chat this view showed is gone with
 *   the old kernel, and a restarted kernel never brings that model back.
 * - `lost`: a request could not be sent (the comm is closed or the kernel is gone), or the
 *   kernel closed the comm. Front ends that never announce a restart end up here at the first
 *   request.
 *
 * - `unanswered`: nothing answered this view's hello (a page saved or exported with the widget but
 *   no kernel, or a front end that does not pass the chat's messages on). It turns `live` when a
 *   snapshot comes after all; the view keeps saying hello meanwhile.
 *
 * Either way the view stays as it was, read-only, until its cell runs again.
 */
export type Link = "live" | "restarted" | "lost" | "unanswered";

/** A view whose hello got no snapshot in this many ms says that no kernel answered. */
export const NO_ANSWER_MS = 15_000;
/** How often a view nobody answered says hello again. */
const HELLO_AGAIN_MS = 5_000;

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

const RUN_ENDS = new Set<string>(["RUN_FINISHED", "RUN_ERROR"]);

/** A timer that does not keep a Node process (the tests) alive; browsers have no such notion. */
function background<T>(timer: T): T {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}

export class Connection {
  readonly mirror: Mirror;
  readonly traits: TraitStore;
  readonly notices = new NoticeStore();
  readonly history = new RunHistory();
  readonly clock = new MessageClock();
  readonly outbox: Outbox;
  private readonly onCustom: ModelCallback;
  private readonly onCommLive: ModelCallback;
  private readonly onCommClose: ModelCallback;
  private readonly offResync: () => void;
  private readonly offClock: () => void;
  private readonly offOutbox: Array<() => void>;
  /** Hellos said, and snapshots that answered one: what a waiting message was sent before. */
  private hellosSaid = 0;
  private hellosAnswered = 0;
  private lastHello = Number.NEGATIVE_INFINITY;
  private resyncTimer: ReturnType<typeof setTimeout> | undefined;
  /** Until the first snapshot: the wait for it, then the hellos said again (cleared either way). */
  private answerTimer: ReturnType<typeof setTimeout> | undefined;
  private disposed = false;
  private _link: Link = "live";
  private linkListeners = new Set<() => void>();
  /** Set while a snapshot is applied, with its events' times, for the clock. */
  private snapshotTimes: Map<string, number> | null = null;
  private liveTimes: Map<string, number> = new Map();

  constructor(
    readonly model: AnyModel,
    readonly viewId: string = newViewId(),
  ) {
    this.mirror = new Mirror(viewId);
    this.traits = new TraitStore(model);
    this.outbox = new Outbox(
      () => this.usersShown(),
      (notice) => this.notices.add(notice.level, notice.text),
    );
    // A waiting message is confirmed by the transcript or the queue, whichever shows it first.
    const recheck = () => this.outbox.check();
    this.offOutbox = [
      this.mirror.subscribe("list", recheck),
      this.mirror.subscribe("ready", recheck),
      this.traits.subscribe("queued", recheck),
    ];
    this.onCustom = (content: unknown) => {
      const msg = parseKernelMessage(content);
      if (msg === null) return;
      if (msg.kind === "notice") {
        this.notices.add(msg.level, msg.text);
        if (msg.text.startsWith("send: ")) this.outbox.refused();
      } else this.receive(msg);
    };
    model.on("msg:custom", this.onCustom);
    const conn = this;
    // ipywidgets calls this with the view as `this`; a model that says it is live again (no
    // front end does so today) is not a loss.
    this.onCommLive = function (this: unknown) {
      const model = (this as { model?: { comm_live?: unknown } } | null | undefined)?.model;
      if (model?.comm_live === true) return;
      conn.lose("restarted");
    };
    model.on("comm_live_update", this.onCommLive);
    this.onCommClose = () => this.lose("lost");
    model.on("comm:close", this.onCommClose);
    this.offResync = this.mirror.subscribe("resync", () => this.requestSnapshot());
    this.offClock = this.mirror.onChange((change) => {
      const present = [...change.messages].filter((id) => this.mirror.message(id) !== undefined);
      if (this.snapshotTimes !== null) this.clock.fromSnapshot(present, this.snapshotTimes);
      else this.clock.fromLive(present, this.liveTimes);
    });
    // The chat's predictive-state rules, which the mirror applies to every TOOL_CALL_ARGS.
    const predictRules = () => this.mirror.setPredictRules(this.traits.get("predict_state"));
    predictRules();
    this.traits.subscribe("predict_state", predictRules);
  }

  /** Says hello: the kernel answers with a snapshot addressed to this view. */
  start(): void {
    this.hello();
    this.answerTimer = background(setTimeout(() => this.noAnswer(), NO_ANSWER_MS));
  }

  /** No snapshot came: say so (the link is `unanswered`) and keep asking. */
  private noAnswer(): void {
    if (this.disposed || this.mirror.ready || this._link !== "live") return;
    this.setLink("unanswered");
    this.answerTimer = background(
      setInterval(() => {
        try {
          this.lastHello = Date.now();
          this.model.send({ kind: "hello", viewId: this.viewId });
          this.hellosSaid++;
        } catch {
          // still nobody there
        }
      }, HELLO_AGAIN_MS),
    );
  }

  private setLink(link: Link): void {
    this._link = link;
    for (const listener of [...this.linkListeners]) listener();
  }

  get link(): Link {
    return this._link;
  }

  get live(): boolean {
    return this._link === "live";
  }

  /** Calls `listener` when the link is lost. */
  subscribeLink(listener: () => void): () => void {
    this.linkListeners.add(listener);
    return () => this.linkListeners.delete(listener);
  }

  /** Sends a request; false when it could not go (the kernel is gone: the caller keeps what the
   * user typed). */
  send(request: ViewRequest): boolean {
    if (this.disposed || !this.live) return false;
    try {
      this.model.send(request);
      return true;
    } catch (error) {
      // A value JSON cannot carry (a cycle, a BigInt) fails this request alone.
      if (error instanceof TypeError) {
        warn(`could not send ${request.kind}:`, error);
        this.notices.add("error", `Could not send this to the kernel (${request.kind}).`);
      } else {
        this.lose("lost");
      }
      return false;
    }
  }

  /** Sends a user message and shows it as waiting until the kernel shows it (./outbox.ts); false
   * when it could not go (the caller keeps what the user typed). */
  sendMessage(text: string, files: readonly File[] = [], attachments: MediaPart[] = []): boolean {
    const request: ViewRequest = attachments.length > 0 ? { kind: "send", text, attachments } : { kind: "send", text };
    if (!this.send(request)) return false;
    this.outbox.add(text, files, this.hellosSaid);
    return true;
  }

  /** The user messages the kernel shows: its transcript's, then its queue's (null before the
   * first snapshot). */
  private usersShown(): ShownUser[] | null {
    if (!this.mirror.ready) return null;
    const users: ShownUser[] = [];
    for (const m of this.mirror.messages()) if (m.role === "user") users.push({ id: m.id, text: textOf(m.content) });
    for (const q of this.traits.get("queued")) users.push(q);
    return users;
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
    clearInterval(this.answerTimer);
    this.model.off("msg:custom", this.onCustom);
    this.model.off("comm_live_update", this.onCommLive);
    this.model.off("comm:close", this.onCommClose);
    this.offResync();
    this.offClock();
    for (const off of this.offOutbox) off();
    this.outbox.dispose();
    this.traits.dispose();
    this.notices.dispose();
    this.linkListeners.clear();
  }

  private lose(reason: "restarted" | "lost"): void {
    if (this.disposed || (this._link !== "live" && this._link !== "unanswered")) return;
    clearInterval(this.answerTimer);
    if (this.resyncTimer !== undefined) clearTimeout(this.resyncTimer);
    this.resyncTimer = undefined;
    this.setLink(reason);
    this.outbox.lost();
  }

  /** Applies a kernel message to the mirror, and to the history and the clock around it. */
  private receive(msg: Exclude<KernelMessage, { kind: "notice" }>): void {
    if (msg.kind === "snapshot") {
      if (msg.viewId !== null && msg.viewId !== this.viewId) return;
      if (msg.viewId === this.viewId) this.hellosAnswered++;
      clearInterval(this.answerTimer);
      if (this._link === "unanswered") this.setLink("live");
      this.snapshotTimes = eventTimes(msg.events);
      try {
        this.mirror.apply(msg);
      } finally {
        this.snapshotTimes = null;
      }
      this.history.snapshot(this.mirror.events(), this.mirror.messages());
      this.outbox.helloAnswered(this.hellosAnswered);
      return;
    }
    if (msg.kind !== "events" || !this.mirror.ready) {
      this.mirror.apply(msg);
      return;
    }
    // A run's record needs the transcript as it stands when that run ends, so a batch that ends
    // a run and goes on (the next run of the turn) is applied in two parts.
    this.liveTimes = eventTimes(msg.events);
    // Each event's arrival time goes with it (none when the kernel did not say).
    const timed = msg.times.length === msg.events.length;
    try {
      let from = 0;
      for (let i = 0; i < msg.events.length; i++) {
        const type = (msg.events[i] as { type?: unknown } | undefined)?.type;
        if (i === msg.events.length - 1 || (typeof type === "string" && RUN_ENDS.has(type))) {
          const part = msg.events.slice(from, i + 1);
          const times = timed ? msg.times.slice(from, i + 1) : [];
          from = i + 1;
          this.mirror.apply(part.length === msg.events.length ? msg : { kind: "events", events: part, times });
          for (const event of part) if (checkEvent(event) === null) this.history.event(event as AguiEvent, this.mirror.messages());
        }
      }
      if (msg.events.length === 0) this.mirror.apply(msg);
    } finally {
      this.liveTimes = new Map();
    }
  }

  private hello(): void {
    this.lastHello = Date.now();
    if (this.send({ kind: "hello", viewId: this.viewId })) this.hellosSaid++;
  }
}
