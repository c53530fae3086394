/**
 * The view's copy of the conversation (transcript, shared state, the run), kept in step with the
 * kernel by the custom messages of docs/wire.md. Pure TypeScript, no DOM.
 *
 * Why not `@ag-ui/client`'s `defaultApplyEvents`: measured with esbuild, importing it bundles to
 * 308 KB minified / 63 KB gzipped (rxjs, zod, uuid, untruncate-json), more than this whole view;
 * it needs an `AbstractAgent` and an Observable pipeline, and it structured-clones the whole
 * message list on every emitted mutation, i.e. per token, where this mirror must do O(1) work per
 * delta and say which message changed. So the mirror is its own small reducer that follows the
 * client's rules where they matter for display (tool calls attach to `parentMessageId`, a tool
 * result sits right after the assistant message that made the call, a re-opened message appends,
 * MESSAGES_SNAPSHOT reconciles by id, a failing STATE_DELTA changes nothing), types from
 * `@ag-ui/core` (type-only), and `fast-json-patch` (about 4 KB gzipped) through ./jsonpatch.
 * It applies events the way the kernel's reducer (agui_widget/pipeline/_reducer.py) does, and the kernel
 * stays the truth: the `check` sent at the end of every run compares the two transcripts and
 * states, and a difference makes the view ask for a fresh snapshot ("resync").
 *
 * Immutability contract (what lets the view re-render only what changed, and lets two views in
 * one page share the kernel's message objects): the mirror never mutates a message, a tool call
 * or a state value it was given. A changed message is a new object in its slot; the array
 * returned by `messages()` is a new array only when membership or order changes (so a streaming
 * token costs O(1), whatever the length of the transcript).
 */
import * as untruncateModule from "untruncate-json";
import { fingerprint } from "./fingerprint";
import { PatchError, applyJsonPatch } from "./jsonpatch";
import { preview, warn } from "../util/log";
import {
  type AguiEvent,
  type CheckEntry,
  type EventOf,
  type JsonPatch,
  type KernelMessage,
  type Message,
  type PredictRule,
  type RenderMessage,
  type RunRecordMessage,
  type RunRecordRequest,
  type ToolCall,
  checkEvent,
  isKnownEventType,
  parsePredictRule,
  parseKernelMessage,
} from "../kernel/wire";

/** Things a view can listen to, besides single messages. */
export type Topic =
  /** first snapshot applied */
  | "ready"
  /** membership or order of the transcript changed */
  | "list"
  /** the shared state changed */
  | "state"
  /** run info changed (active, error, steps, first output) */
  | "run"
  /** the event log grew (for the inspector) */
  | "events"
  /** this copy no longer matches the kernel: ask for a fresh snapshot */
  | "resync"
  /** a Python renderer's output arrived or went (tool calls, state) */
  | "renders"
  /** a sub-agent started, finished or failed */
  | "subagents"
  /** a run's record arrived, or was asked for (for the inspector) */
  | "records";

/** A sub-agent run, from SUBAGENT_* events (nested events carry its `subagentRunId`). */
export type SubagentInfo = {
  id: string;
  name: string;
  description: string;
  status: "running" | "finished" | "error";
  error: string;
  parentToolCallId: string | null;
};

/**
 * A run's record as this view has it (docs/wire.md, `run_record`): asked and not yet answered,
 * the kernel's text, or the kernel's reason for having none. `partial`: the text came while its
 * run went on, and the run has ended since, so it lacks the run's last events.
 */
export type RunRecordEntry = { status: "asking" } | { status: "ready"; text: string; partial?: boolean } | { status: "error"; error: string };

/** How many answered run records a view keeps: each holds its run's whole input (the transcript
 * so far), so they are bounded; the oldest answer is dropped first. */
export const RECORDS_KEPT = 20;

/** How long a `run_record` question waits for its answer before the view says none came (a
 * kernel too old to know the request refuses it with a notice, and never answers). */
export const RECORD_ANSWER_MS = 20_000;
/** The longest run id a `run_record` request may name (agui_widget/wire/_requests.py). */
const MAX_RUN_ID = 200;

/** The CUSTOM event an agent sends to make state follow a tool's streamed arguments. */
export const PREDICT_STATE_EVENT = "PredictState";

export type RunInfo = {
  /** between RUN_STARTED and RUN_FINISHED / RUN_ERROR */
  active: boolean;
  threadId: string;
  runId: string;
  /** RUN_ERROR's message for the latest run, "" otherwise */
  error: string;
  errorCode: string;
  /** open STEP_STARTED names, oldest first (steps marked `metadata.agui_widget.internal` are left out) */
  steps: string[];
  /** STEP_FINISHED names of this run, oldest first (the last STEPS_KEPT) */
  finishedSteps: string[];
  /** true once the active run produced a message, a tool call or reasoning */
  sawOutput: boolean;
  /** the RUN_FINISHED outcome of the latest run, when it had one */
  outcome: unknown;
};

/** What one kernel message changed; listeners are told after the whole message is applied. */
export type Change = { topics: ReadonlySet<Topic>; messages: ReadonlySet<string> };

export type ToolMessage = Extract<Message, { role: "tool" }>;
type AssistantMessage = Extract<Message, { role: "assistant" }>;
type Loose = Record<string, unknown>;

/** How many events the mirror keeps for the inspector (it holds at most 1.5 times as many
 * between two trims, so appending stays O(1) amortised). */
export const EVENT_LOG_LIMIT = 2000;
/** How many finished steps a run remembers for the progress line. */
const STEPS_KEPT = 50;

/** The run info of a chat before its first run. */
export const NO_RUN: Readonly<RunInfo> = Object.freeze({
  active: false,
  threadId: "",
  runId: "",
  error: "",
  errorCode: "",
  steps: [],
  finishedSteps: [],
  sawOutput: false,
  outcome: undefined,
});

/** Text content of a message, whatever shape it came in (string, parts, null). */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (part && typeof part === "object" && (part as Loose).type === "text" ? String((part as Loose).text ?? "") : ""))
      .join("");
  }
  return "";
}

export function toolCallsOf(message: Message | undefined): readonly ToolCall[] {
  const calls = (message as Loose | undefined)?.toolCalls;
  return Array.isArray(calls) ? (calls as ToolCall[]) : [];
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

export class Mirror {
  readonly viewId: string;
  private _ready = false;
  private _messages: Message[] = [];
  private index = new Map<string, number>();
  private _state: unknown = {};
  private _run: RunInfo = { ...NO_RUN, steps: [], finishedSteps: [] };
  private _events: AguiEvent[] = [];
  /** When the kernel received each event of `_events` (epoch ms), null when it did not say. */
  private _times: Array<number | null> = [];
  /** run id -> its record (insertion order: the oldest is dropped first) */
  private records = new Map<string, RunRecordEntry>();
  /** How many events were trimmed from the front of the log since the last snapshot. */
  private eventsDropped = 0;
  /** ids of text / reasoning messages between START and END */
  private openMessages = new Set<string>();
  /** ids of tool calls between START and END */
  private openCalls = new Set<string>();
  /** tool call id -> id of the assistant message that holds it */
  private callOwner = new Map<string, string>();
  /** tool call id -> id of its tool (result) message */
  private callResult = new Map<string, string>();

  private dirtyTopics = new Set<Topic>();
  private dirtyMessages = new Set<string>();
  private topicListeners = new Map<Topic, Set<() => void>>();
  private messageListeners = new Map<string, Set<() => void>>();
  private changeListeners = new Set<(change: Change) => void>();
  private warnedChunks = false;
  /** True while one message object fills two slots (see `replaceAt`). */
  private sharedSlots = false;
  private _renders = new Map<string, RenderMessage>();
  private _subagents = new Map<string, SubagentInfo>();
  private predictRules: PredictRule[] = [];
  private runPredictRules: PredictRule[] = [];

  constructor(viewId: string) {
    this.viewId = viewId;
  }

  // -------------------------------------------------------------------------------------------
  // Reading
  // -------------------------------------------------------------------------------------------

  /** True once a snapshot for this view has been applied. */
  get ready(): boolean {
    return this._ready;
  }
  /** The transcript. A new array whenever membership or order changes; when only a message
   * changes, its slot gets the new message object (compare messages by identity, not the array). */
  messages(): readonly Message[] {
    return this._messages;
  }
  message(id: string): Message | undefined {
    const i = this.index.get(id);
    return i === undefined ? undefined : this._messages[i];
  }
  get state(): unknown {
    return this._state;
  }
  get run(): RunInfo {
    return this._run;
  }
  /** The event log tail (the snapshot's, then every event applied since), oldest first. */
  events(): readonly AguiEvent[] {
    return this._events;
  }
  /** When the kernel received each event of `events()` (epoch ms, the kernel's clock), index by
   * index; null when unknown (the snapshot's tail carries no times). */
  eventTimes(): readonly (number | null)[] {
    return this._times;
  }
  /** The sequence number of `events()[0]`: events are numbered from the snapshot on, so a row
   * of the inspector keeps its number when older events are trimmed. */
  get eventsBase(): number {
    return this.eventsDropped;
  }
  /** True while a text or reasoning message streams (between its START and END). */
  isStreaming(messageId: string): boolean {
    return this.openMessages.has(messageId);
  }
  /** True while a tool call's arguments stream (between TOOL_CALL_START and TOOL_CALL_END). */
  isCallStreaming(toolCallId: string): boolean {
    return this.openCalls.has(toolCallId);
  }
  /** The id of the assistant message holding a tool call. */
  callOwnerOf(toolCallId: string): string | undefined {
    return this.callOwner.get(toolCallId);
  }
  /** The tool message answering a call, once there is one. */
  toolResult(toolCallId: string): ToolMessage | undefined {
    const id = this.callResult.get(toolCallId);
    const message = id === undefined ? undefined : this.message(id);
    return message?.role === "tool" ? message : undefined;
  }
  /** The tool call itself (its `function.arguments` is the argument text streamed so far). */
  toolCall(toolCallId: string): ToolCall | undefined {
    return toolCallsOf(this._messages[this.ownerSlot(toolCallId)]).find((c) => c.id === toolCallId);
  }

  /** What a Python renderer made for `key` (`tool:<call id>`, `state:<n>`), if anything. */
  render(key: string): RenderMessage | undefined {
    return this._renders.get(key);
  }
  /** Every current render, in arrival order. */
  renders(): RenderMessage[] {
    return [...this._renders.values()];
  }
  subagent(id: string): SubagentInfo | undefined {
    return this._subagents.get(id);
  }
  /** The chat's predictive-state rules (the `predict_state` trait); a run's `PredictState`
   * event adds to them until the run ends. */
  setPredictRules(rules: readonly PredictRule[]): void {
    this.predictRules = [...rules];
  }

  // -------------------------------------------------------------------------------------------
  // Run records (the inspector's "what was sent", its export, and times after a reload)
  // -------------------------------------------------------------------------------------------

  /** The record of run `runId` as this view has it, or undefined when it was never asked for. */
  runRecord(runId: string): RunRecordEntry | undefined {
    return this.records.get(runId);
  }

  /**
   * Asks the kernel for a run's record, once: nothing is sent while it is asked or known (unless
   * what is known is partial). `send` carries the request and says whether it could go; false
   * (no kernel) leaves nothing behind, so the caller can say why and a later call asks again.
   */
  askRunRecord(runId: string, send: (request: RunRecordRequest) => boolean): boolean {
    const known = this.records.get(runId);
    if (known !== undefined && !(known.status === "ready" && known.partial)) return true;
    if (runId.length > MAX_RUN_ID) {
      // The kernel refuses such a request (docs/wire.md): no answer would ever come.
      this.keepRecord(runId, { status: "error", error: "This run's id is too long to ask the kernel for its record." });
      this.touch("records");
      this.flush();
      return true;
    }
    if (!send({ kind: "run_record", runId })) return false;
    this.trimRecords();
    const asking: RunRecordEntry = { status: "asking" };
    this.keepRecord(runId, asking);
    this.touch("records");
    this.flush();
    const timer: unknown = setTimeout(() => {
      if (this.records.get(runId) !== asking) return; // answered, or asked again since
      this.keepRecord(runId, { status: "error", error: "The kernel did not answer. Is its agui-widget older than this view's?" });
      this.touch("records");
      this.flush();
    }, RECORD_ANSWER_MS);
    (timer as { unref?: () => void }).unref?.(); // Node (the tests): a pending question keeps no process alive
    return true;
  }

  /** The kernel's answer: kept when this view asked for that run (every view gets every answer). */
  private applyRunRecord(msg: RunRecordMessage): void {
    if (this.records.get(msg.runId)?.status !== "asking") return;
    const entry: RunRecordEntry =
      typeof msg.recording === "string" ? { status: "ready", text: msg.recording } : { status: "error", error: msg.error || "The kernel has no record of this run." };
    this.keepRecord(msg.runId, entry);
    this.touch("records");
  }

  private keepRecord(runId: string, entry: RunRecordEntry): void {
    this.records.delete(runId);
    this.records.set(runId, entry);
  }

  /**
   * Drops the oldest answers past RECORDS_KEPT. Done when a new question goes, not when answers
   * come: by then the views have shown (and hold) what came, so an open section never loses its
   * answer to a burst of others and asks again. A question still out keeps its place.
   */
  private trimRecords(): void {
    let answered = 0;
    for (const e of this.records.values()) if (e.status !== "asking") answered++;
    for (const [id, old] of this.records) {
      if (answered <= RECORDS_KEPT) break;
      if (old.status === "asking") continue;
      this.records.delete(id);
      answered--;
    }
  }

  /** A record that arrived while its run went on holds only part of it: at the run's end it is
   * marked partial, so the next use asks again. (An answer still on its way was made after the
   * end: the kernel sends pending events ahead of anything else.) */
  private markPartialRecord(runId: string): void {
    const known = this.records.get(runId);
    if (known?.status === "ready" && !known.partial) {
      this.records.set(runId, { ...known, partial: true });
      this.touch("records");
    }
  }

  // -------------------------------------------------------------------------------------------
  // Listening
  // -------------------------------------------------------------------------------------------

  /** Calls `listener` after each kernel message that touched `topic`. Returns the unsubscriber. */
  subscribe(topic: Topic, listener: () => void): () => void {
    return addListener(this.topicListeners, topic, listener);
  }
  /** Calls `listener` after each kernel message that changed message `id` (its content, its
   * streaming flag, or the result of one of its tool calls). */
  subscribeMessage(id: string, listener: () => void): () => void {
    return addListener(this.messageListeners, id, listener);
  }
  /** Calls `listener` with the whole change set after each kernel message that changed anything. */
  onChange(listener: (change: Change) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  // -------------------------------------------------------------------------------------------
  // Applying kernel messages
  // -------------------------------------------------------------------------------------------

  /** Applies one custom message from the kernel; a malformed one is logged and ignored. */
  handle(raw: unknown): void {
    const msg = parseKernelMessage(raw);
    if (msg !== null) this.apply(msg);
  }

  /** Applies one kernel message that already passed `parseKernelMessage`. */
  apply(msg: KernelMessage): void {
    try {
      switch (msg.kind) {
        case "snapshot":
          if (msg.viewId !== null && msg.viewId !== this.viewId) return;
          this.applySnapshot(msg.messages, msg.state, msg.events);
          break;
        case "events": {
          if (!this._ready) return;
          const timed = msg.times.length === msg.events.length;
          msg.events.forEach((event, i) => this.applyEvent(event, timed ? (msg.times[i] as number) : null));
          this.touch("events");
          break;
        }
        case "messages":
          if (!this._ready) return;
          this.applySplice(msg.start, msg.messages);
          break;
        case "state_patch":
          if (!this._ready) return;
          this.applyStatePatch(msg.patch);
          break;
        case "check":
          if (!this._ready) return;
          this.check(msg.count, msg.start, msg.tail, msg.state ?? undefined);
          break;
        case "render":
          if (!this._ready) return;
          this.applyRender(msg);
          break;
        case "run_record":
          this.applyRunRecord(msg);
          break;
        case "notice":
          break; // not part of the conversation: the view shows it
      }
    } catch (error) {
      // A bug here must not break the view; the next snapshot repairs the copy.
      warn("failed to apply a kernel message:", error, preview(msg));
      this.touch("resync");
    }
    this.flush();
  }

  private applySnapshot(messages: Message[], state: unknown, events: unknown[]): void {
    const wasReady = this._ready;
    const before = this._messages;
    this._ready = true;
    this._messages = messages.slice();
    this.sharedSlots = false; // parsed from JSON: no object fills two slots
    this._state = state;
    this._events = events.filter((e): e is AguiEvent => checkEvent(e) === null).slice(-EVENT_LOG_LIMIT);
    this._times = this._events.map(() => null);
    this.eventsDropped = 0;
    this.reindex();
    this.rebuildCalls();
    this.openMessages.clear();
    this.openCalls.clear();
    this._renders.clear(); // the kernel sends its renders again right after this snapshot
    this._subagents.clear();
    this.runPredictRules = [];
    this._run = this.runFromLog();
    for (const m of before) this.dirtyMessages.add(m.id);
    for (const m of this._messages) this.dirtyMessages.add(m.id);
    this.touch("list", "state", "run", "events", "renders", "subagents");
    if (!wasReady) this.touch("ready");
  }

  /** Streaming flags and run info from the snapshot's event log (a view connecting mid-run). */
  private runFromLog(): RunInfo {
    let run: RunInfo = { ...NO_RUN, steps: [], finishedSteps: [] };
    for (const e of this._events) {
      // Events only occur inside runs: one before any RUN_STARTED means the tail begins mid-run.
      if (!run.active && e.type !== "RUN_STARTED" && e.type !== "RUN_FINISHED" && e.type !== "RUN_ERROR") {
        run = { ...run, active: true };
      }
      switch (e.type) {
        case "RUN_STARTED":
          run = { ...NO_RUN, active: true, threadId: e.threadId, runId: e.runId, steps: [], finishedSteps: [] };
          this.openMessages.clear();
          this.openCalls.clear();
          this.runPredictRules = [];
          break;
        case "SUBAGENT_STARTED":
        case "SUBAGENT_FINISHED":
        case "SUBAGENT_ERROR":
          this.subagentEvent(e);
          break;
        case "CUSTOM":
          if (e.name === PREDICT_STATE_EVENT) this.predictStateEvent(e.value);
          break;
        case "RUN_FINISHED":
          run = { ...run, active: false, steps: [], outcome: e.outcome ?? undefined };
          this.openMessages.clear();
          this.openCalls.clear();
          break;
        case "RUN_ERROR":
          run = { ...run, active: false, steps: [], error: e.message, errorCode: e.code ?? "" };
          this.openMessages.clear();
          this.openCalls.clear();
          break;
        case "TEXT_MESSAGE_START":
        case "REASONING_MESSAGE_START":
          this.openMessages.add(e.messageId);
          run.sawOutput = true;
          break;
        case "TEXT_MESSAGE_CONTENT":
        case "REASONING_MESSAGE_CONTENT":
          this.openMessages.add(e.messageId); // its START may be older than the tail
          run.sawOutput = true;
          break;
        case "TOOL_CALL_ARGS":
          this.openCalls.add(e.toolCallId);
          run.sawOutput = true;
          break;
        case "TEXT_MESSAGE_END":
        case "REASONING_MESSAGE_END":
          this.openMessages.delete(e.messageId);
          break;
        case "TOOL_CALL_START":
          this.openCalls.add(e.toolCallId);
          run.sawOutput = true;
          break;
        case "TOOL_CALL_END":
          this.openCalls.delete(e.toolCallId);
          break;
        case "STEP_STARTED":
          if (!widgetMark(e, "internal")) run = { ...run, steps: [...run.steps, e.stepName] };
          break;
        case "STEP_FINISHED":
          if (!widgetMark(e, "internal")) {
            run = { ...run, steps: withoutLast(run.steps, e.stepName), finishedSteps: [...run.finishedSteps, e.stepName].slice(-STEPS_KEPT) };
          }
          break;
      }
    }
    for (const id of this.openMessages) if (!this.index.has(id)) this.openMessages.delete(id);
    for (const id of this.openCalls) if (!this.callOwner.has(id)) this.openCalls.delete(id);
    return run;
  }

  private applySplice(start: number, incoming: Message[]): void {
    if (start > this._messages.length) {
      warn(`a messages splice starts at ${start}, past the end of this copy (${this._messages.length}); asking for a snapshot`);
      this.touch("resync");
      return;
    }
    const old = this._messages;
    if (start === old.length && this.appendsNew(incoming)) return this.append(incoming);
    const tail = incoming.map((m) => {
      // An unchanged message keeps its object, so its row does not re-render.
      const previous = this.message(m.id);
      return previous !== undefined && sameJson(previous, m) ? previous : m;
    });
    const next = old.slice(0, start).concat(tail);
    const kept = new Set(next);
    for (let i = start; i < old.length; i++) if (!kept.has(old[i] as Message)) this.dirtyMessages.add((old[i] as Message).id);
    for (const m of tail) if (this.message(m.id) !== m) this.dirtyMessages.add(m.id);
    this.restructure(next);
  }

  /** Are these messages new to this copy, each id once, so that adding them after the last
   * message changes no lookup of the messages already here? */
  private appendsNew(incoming: readonly Message[]): boolean {
    if (this.sharedSlots) return false;
    const ids = new Set<string>();
    for (const m of incoming) {
      if (this.index.has(m.id) || ids.has(m.id)) return false;
      ids.add(m.id);
    }
    return true;
  }

  /**
   * Adds new messages after the last one: the work is in the messages added, not in the
   * transcript's length (a splice that starts at the end is how the kernel sends an appended
   * message). The lookups come out as `restructure` would build them; only the array of slots is
   * copied, so that the transcript is still a new array.
   */
  private append(incoming: readonly Message[]): void {
    if (incoming.length === 0) return;
    const start = this._messages.length;
    this._messages = this._messages.concat(incoming);
    incoming.forEach((m, i) => {
      this.index.set(m.id, start + i);
      this.indexCalls(m);
      this.dirtyMessages.add(m.id);
    });
    // A result that arrived tells the message holding its call (its card shows it).
    for (const m of incoming) {
      if (m.role !== "tool" || typeof m.toolCallId !== "string") continue;
      const owner = this.callOwner.get(m.toolCallId);
      if (owner !== undefined && this.index.has(owner)) this.dirtyMessages.add(owner);
    }
    this.touch("list");
  }

  /** Compares this copy with the kernel's description of its transcript (sent at the end of
   * every run); asks for a snapshot when they differ. */
  private check(count: number, start: number, tail: CheckEntry[], state: number | undefined): void {
    const problem =
      this.differsFrom(count, start, tail) ??
      (state !== undefined && fingerprint(this._state) !== state ? "the shared state differs" : null);
    if (problem) {
      warn(`this view's transcript differs from the kernel's (${problem}); asking for a snapshot`);
      this.touch("resync");
    }
  }

  private differsFrom(count: number, start: number, tail: CheckEntry[]): string | null {
    if (this._messages.length !== count) return `${this._messages.length} messages here, ${count} there`;
    for (let i = 0; i < tail.length; i++) {
      const [id, role, length] = tail[i] as CheckEntry;
      const m = this._messages[start + i];
      if (!m) return `no message at ${start + i}`;
      if (m.id !== id || m.role !== role) return `message ${start + i} is ${m.role} '${m.id}', not ${role} '${id}'`;
      const content = (m as Loose).content;
      const here = typeof content === "string" ? content.length : -1;
      if (here !== length) return `message '${id}' has ${here} characters here, ${length} there`;
    }
    return null;
  }

  private applyStatePatch(patch: JsonPatch): void {
    try {
      this._state = applyJsonPatch(this._state, patch);
      this.touch("state");
    } catch (error) {
      // The kernel applied this patch to its state; failing here means this copy diverged.
      warn("a state_patch did not apply, asking for a snapshot:", error instanceof PatchError ? error.message : error);
      this.touch("resync");
    }
  }

  // -------------------------------------------------------------------------------------------
  // AG-UI events
  // -------------------------------------------------------------------------------------------

  private applyEvent(raw: unknown, time: number | null = null): void {
    const problem = checkEvent(raw);
    if (problem !== null) {
      warn(`ignored a malformed event (${problem}):`, preview(raw));
      return;
    }
    const event = raw as AguiEvent;
    this._events.push(event);
    this._times.push(time);
    if (this._events.length > EVENT_LOG_LIMIT * 1.5) {
      this.eventsDropped += this._events.length - EVENT_LOG_LIMIT;
      this._events = this._events.slice(-EVENT_LOG_LIMIT);
      this._times = this._times.slice(-EVENT_LOG_LIMIT);
    }
    if (!isKnownEventType(event.type)) return; // a newer kernel's event: kept for the inspector
    switch (event.type) {
      case "TEXT_MESSAGE_START":
        return this.textStart(event);
      case "TEXT_MESSAGE_CONTENT":
        return this.appendContent(event.messageId, event.delta, event.metadata);
      case "TEXT_MESSAGE_END":
      case "REASONING_MESSAGE_END":
        this.mergeMetadata(event.messageId, event.metadata);
        return this.closeMessage(event.messageId);
      case "REASONING_MESSAGE_START":
        return this.reasoningStart(event);
      case "REASONING_MESSAGE_CONTENT":
        return this.appendContent(event.messageId, event.delta, event.metadata);
      case "REASONING_ENCRYPTED_VALUE":
        return this.encryptedValue(event);
      case "TOOL_CALL_START":
        return this.toolCallStart(event);
      case "TOOL_CALL_ARGS":
        this.toolCallArgs(event);
        return this.predictState(event.toolCallId);
      case "TOOL_CALL_END":
        return this.toolCallEnd(event);
      case "TOOL_CALL_RESULT":
        return this.toolCallResult(event);
      case "STATE_SNAPSHOT":
        this._state = event.snapshot;
        return this.touch("state");
      case "STATE_DELTA":
        try {
          this._state = applyJsonPatch(this._state, event.delta);
          this.touch("state");
        } catch (error) {
          // Same rule as the AG-UI client: an unappliable delta warns and changes nothing.
          warn("Failed to apply state patch:", error instanceof Error ? error.message : error);
        }
        return;
      case "MESSAGES_SNAPSHOT":
        return this.messagesSnapshot(event);
      case "ACTIVITY_SNAPSHOT":
        return this.activitySnapshot(event);
      case "ACTIVITY_DELTA":
        return this.activityDelta(event);
      case "RUN_STARTED":
        return this.runStarted(event);
      case "RUN_FINISHED":
        this.closeAll();
        this.markPartialRecord(event.runId);
        this.setRun({ active: false, steps: [], outcome: event.outcome ?? undefined });
        return;
      case "RUN_ERROR":
        this.closeAll();
        this.markPartialRecord(this._run.runId);
        this.setRun({ active: false, steps: [], error: event.message, errorCode: event.code ?? "" });
        return;
      case "STEP_STARTED":
        // A step the agent marks as its framework's plumbing stays in the log, not in the progress.
        if (widgetMark(event, "internal")) return;
        return this.setRun({ steps: [...this._run.steps, event.stepName] });
      case "STEP_FINISHED":
        if (widgetMark(event, "internal")) return;
        return this.setRun({
          steps: withoutLast(this._run.steps, event.stepName),
          finishedSteps: [...this._run.finishedSteps, event.stepName].slice(-STEPS_KEPT),
        });
      case "TEXT_MESSAGE_CHUNK":
      case "TOOL_CALL_CHUNK":
      case "REASONING_MESSAGE_CHUNK":
        if (!this.warnedChunks) {
          this.warnedChunks = true;
          warn(`${event.type} reached the view; the kernel sends events after chunk expansion, so chunks are ignored`);
        }
        return;
      case "CUSTOM":
        if (event.name === PREDICT_STATE_EVENT) this.predictStateEvent(event.value);
        return;
      case "SUBAGENT_STARTED":
      case "SUBAGENT_FINISHED":
      case "SUBAGENT_ERROR":
        this.subagentEvent(event);
        return this.touch("subagents", "list");
      case "REASONING_START":
      case "REASONING_END":
      case "RAW":
        return; // nothing to display; the event log has them
    }
  }

  private applyRender(msg: RenderMessage): void {
    if (msg.bundle === null && msg.error === null) this._renders.delete(msg.key);
    else this._renders.set(msg.key, msg);
    this.touch("renders");
  }

  private subagentEvent(e: EventOf<"SUBAGENT_STARTED"> | EventOf<"SUBAGENT_FINISHED"> | EventOf<"SUBAGENT_ERROR">): void {
    const known = this._subagents.get(e.subagentRunId);
    const base: SubagentInfo = known ?? { id: e.subagentRunId, name: "sub-agent", description: "", status: "running", error: "", parentToolCallId: null };
    if (e.type === "SUBAGENT_STARTED") {
      this._subagents.set(e.subagentRunId, {
        ...base,
        name: e.name || base.name,
        description: e.description ?? "",
        status: "running",
        parentToolCallId: e.parentToolCallId ?? null,
      });
    } else if (e.type === "SUBAGENT_FINISHED") {
      this._subagents.set(e.subagentRunId, { ...base, status: "finished" });
    } else {
      this._subagents.set(e.subagentRunId, { ...base, status: "error", error: e.message });
    }
  }

  /** A run's `PredictState` event sets its rules; one the kernel refuses (not a list, or a bad
   * rule in it) changes nothing here either, so the view predicts what the kernel predicts. */
  private predictStateEvent(value: unknown): void {
    if (value === undefined || value === null) {
      this.runPredictRules = [];
      return;
    }
    const rules = Array.isArray(value) ? value.map(parsePredictRule) : [null];
    if (rules.some((rule) => rule === null)) {
      warn("a PredictState event that is not a list of {state_key, tool, tool_argument?} rules; ignored:", preview(value));
      return;
    }
    this.runPredictRules = rules as PredictRule[];
  }

  /**
   * Predictive state: while a predicted tool's arguments stream, `state[stateKey]` follows the
   * (partial) argument. The kernel applies the same rule to the same events (agui_widget/chat/_predict.py).
   */
  private predictState(toolCallId: string): void {
    if (this.predictRules.length === 0 && this.runPredictRules.length === 0) return;
    const call = this.toolCall(toolCallId);
    const name = call?.function?.name;
    if (!call || !name || !isRecord(this._state)) return;
    const rules = [...this.predictRules, ...this.runPredictRules].filter((r) => r.tool === name);
    if (rules.length === 0) return;
    const args = parsePartialJson(call.function.arguments ?? "");
    const changes: Loose = {};
    let changed = false;
    for (const rule of rules) {
      let value: unknown;
      if (rule.toolArgument === null) value = args;
      else if (isRecord(args) && rule.toolArgument in args) value = args[rule.toolArgument];
      else continue;
      if (value === undefined || value === null || sameJson((this._state as Loose)[rule.stateKey], value)) continue;
      changes[rule.stateKey] = value;
      changed = true;
    }
    if (changed) {
      this._state = { ...(this._state as Loose), ...changes };
      this.touch("state");
    }
  }

  private textStart(e: EventOf<"TEXT_MESSAGE_START">): void {
    const existing = this.message(e.messageId);
    if (existing?.role === "activity") {
      warn(`TEXT_MESSAGE_START: '${e.messageId}' is an activity message; ignored`);
      return;
    }
    if (!existing) {
      const created: Loose = { id: e.messageId, role: e.role ?? "assistant", content: "" };
      if (e.name != null) created.name = e.name;
      if (e.subagentRunId != null) created.subagentRunId = e.subagentRunId;
      this.push(withMetadata(created, e.metadata) as Message);
    } else {
      this.mergeMetadata(e.messageId, e.metadata);
    }
    this.open(e.messageId);
  }

  /** Folds an event's metadata into the message it builds: key by key, last write wins. */
  private mergeMetadata(id: string, metadata: unknown): void {
    if (!isRecord(metadata)) return;
    const message = this.message(id);
    if (message && message.role !== "activity") this.replace(withMetadata({ ...message }, metadata) as Message);
  }

  private reasoningStart(e: EventOf<"REASONING_MESSAGE_START">): void {
    const existing = this.message(e.messageId);
    if (existing?.role === "activity") {
      warn(`REASONING_MESSAGE_START: '${e.messageId}' is an activity message; ignored`);
      return;
    }
    if (!existing) {
      const created: Loose = { id: e.messageId, role: "reasoning", content: "" };
      if (e.subagentRunId != null) created.subagentRunId = e.subagentRunId;
      this.push(withMetadata(created, e.metadata) as Message);
    } else {
      this.mergeMetadata(e.messageId, e.metadata);
    }
    this.open(e.messageId);
  }

  private appendContent(id: string, delta: string, metadata?: unknown): void {
    const existing = this.message(id);
    if (!existing) {
      // The kernel drops these too (its reducer is the truth, and this mirror follows it).
      warn(`content for an unknown message '${id}'; ignored`);
      return;
    }
    if (existing.role === "activity") {
      warn(`content for '${id}', which is an activity message; ignored`);
      return;
    }
    // As the AG-UI client does: a delta continues text content, and replaces content that is not
    // text (a user message's list of parts) rather than flattening it.
    const content = (existing as Loose).content;
    this.replace(withMetadata({ ...existing, content: (typeof content === "string" ? content : "") + delta }, metadata) as Message);
    this.open(id);
  }

  private closeMessage(id: string): void {
    if (this.openMessages.delete(id)) this.dirtyMessages.add(id);
  }

  private open(id: string): void {
    if (!this.openMessages.has(id)) {
      this.openMessages.add(id);
      this.dirtyMessages.add(id);
    }
    this.sawOutput();
  }

  private sawOutput(): void {
    if (this._run.active && !this._run.sawOutput) this.setRun({ sawOutput: true });
  }

  private encryptedValue(e: EventOf<"REASONING_ENCRYPTED_VALUE">): void {
    if (e.subtype === "tool-call") {
      this.updateCall(e.entityId, (call) => ({ ...call, encryptedValue: e.encryptedValue }));
      return;
    }
    const message = this.message(e.entityId);
    if (message && message.role !== "activity") {
      this.replace({ ...message, encryptedValue: e.encryptedValue } as Message);
    }
  }

  private toolCallStart(e: EventOf<"TOOL_CALL_START">): void {
    const ownerId = this.callOwner.get(e.toolCallId);
    if (ownerId !== undefined) {
      // A replayed start: keep the call (and the arguments it has), update the name.
      this.updateCall(e.toolCallId, (call) =>
        call.function.name === e.toolCallName && !isRecord(e.metadata)
          ? call
          : (withMetadata({ ...call, function: { ...call.function, name: e.toolCallName } }, e.metadata) as ToolCall),
      );
    } else {
      const call = withMetadata(
        { id: e.toolCallId, type: "function", function: { name: e.toolCallName, arguments: "" } },
        e.metadata,
      ) as ToolCall;
      const parentId = e.parentMessageId ?? undefined;
      const parent = parentId === undefined ? undefined : this.message(parentId);
      if (parent?.role === "assistant") {
        this.replace({ ...parent, toolCalls: [...toolCallsOf(parent), call] } as AssistantMessage);
        this.callOwner.set(e.toolCallId, parent.id);
      } else {
        // A new assistant message, named by the parent id when no message has it, else by the
        // call's id (when that id is taken, the first message keeps it, as in the AG-UI client).
        const id = parentId !== undefined && !parent ? parentId : e.toolCallId;
        const created: Loose = { id, role: "assistant", toolCalls: [call] };
        if (e.subagentRunId != null) created.subagentRunId = e.subagentRunId;
        this.push(created as Message);
        this.callOwner.set(e.toolCallId, id);
      }
    }
    this.openCalls.add(e.toolCallId);
    this.sawOutput();
  }

  private toolCallArgs(e: EventOf<"TOOL_CALL_ARGS">): void {
    const found = this.updateCall(
      e.toolCallId,
      (call) =>
        withMetadata(
          { ...call, function: { ...call.function, arguments: (call.function.arguments ?? "") + e.delta } },
          e.metadata,
        ) as ToolCall,
    );
    if (!found) warn(`TOOL_CALL_ARGS for an unknown tool call '${e.toolCallId}'; ignored`);
  }

  private toolCallEnd(e: EventOf<"TOOL_CALL_END">): void {
    if (isRecord(e.metadata)) this.updateCall(e.toolCallId, (call) => withMetadata({ ...call }, e.metadata) as ToolCall);
    if (this.openCalls.delete(e.toolCallId)) {
      const owner = this.callOwner.get(e.toolCallId);
      if (owner !== undefined) this.dirtyMessages.add(owner);
    }
  }

  private toolCallResult(e: EventOf<"TOOL_CALL_RESULT">): void {
    const result: Loose = { id: e.messageId, role: e.role ?? "tool", toolCallId: e.toolCallId, content: e.content };
    if (e.subagentRunId != null) result.subagentRunId = e.subagentRunId;
    withMetadata(result, e.metadata);
    // A result always mints its message (a messageId already taken stays with the message that
    // had it first), right after the call's assistant message and the results it already has.
    const ownerIndex = this.ownerSlot(e.toolCallId);
    if (ownerIndex === -1) {
      this.push(result as Message);
    } else {
      let at = ownerIndex + 1;
      while (at < this._messages.length && this._messages[at]?.role === "tool") at++;
      this.insert(at, result as Message);
    }
    this.callResult.set(e.toolCallId, e.messageId);
    this.openCalls.delete(e.toolCallId);
    const owner = this.callOwner.get(e.toolCallId);
    if (owner !== undefined) this.dirtyMessages.add(owner);
  }

  private messagesSnapshot(e: EventOf<"MESSAGES_SNAPSHOT">): void {
    const incoming = e.messages;
    const byId = new Map(incoming.map((m) => [m.id, m]));
    const hasActivity = incoming.some((m) => m.role === "activity");
    const hasReasoning = incoming.some((m) => m.role === "reasoning");
    // Activity and reasoning messages are often client-side only: a snapshot that carries none
    // of a kind says nothing about that kind, so ours stay (the AG-UI client's rule, and the
    // kernel's reducer's).
    const keepLocal = (m: Message) => (m.role === "activity" && !hasActivity) || (m.role === "reasoning" && !hasReasoning);
    const next: Message[] = [];
    const seen = new Set<string>();
    for (const m of this._messages) {
      const replacement = byId.get(m.id);
      if (replacement !== undefined) {
        next.push(sameJson(m, replacement) ? m : replacement);
        seen.add(m.id);
      } else if (keepLocal(m)) {
        next.push(m);
      }
    }
    for (const m of incoming) if (!seen.has(m.id)) next.push(m);
    this.replaceAll(next);
  }

  private activitySnapshot(e: EventOf<"ACTIVITY_SNAPSHOT">): void {
    const existing = this.message(e.messageId);
    const replace = e.replace ?? true;
    const fresh: Loose = { id: e.messageId, role: "activity", activityType: e.activityType, content: e.content };
    if (e.subagentRunId != null) fresh.subagentRunId = e.subagentRunId;
    if (!existing) {
      this.push(withMetadata(fresh, e.metadata) as Message);
    } else if (existing.role === "activity") {
      // A replace re-mints content, type and attribution, not the metadata gathered so far.
      const metadata = (existing as Loose).metadata;
      const next: Loose = replace ? fresh : { ...existing };
      if (replace && metadata !== undefined) next.metadata = metadata;
      if (replace || isRecord(e.metadata)) this.replace(withMetadata(next, e.metadata) as Message);
    } else if (replace) {
      this.replace(withMetadata(fresh, e.metadata) as Message);
    }
    this.sawOutput();
  }

  private activityDelta(e: EventOf<"ACTIVITY_DELTA">): void {
    const existing = this.message(e.messageId);
    if (!existing) return;
    if (existing.role !== "activity") {
      warn(`ACTIVITY_DELTA: '${e.messageId}' is not an activity message; ignored`);
      return;
    }
    let next: Loose = withMetadata({ ...existing }, e.metadata);
    try {
      next = { ...next, content: applyJsonPatch(existing.content ?? {}, e.patch), activityType: e.activityType };
    } catch (error) {
      warn(`Failed to apply activity patch for '${e.messageId}':`, error instanceof Error ? error.message : error);
    }
    this.replace(next as Message);
  }

  private runStarted(e: EventOf<"RUN_STARTED">): void {
    this.closeAll();
    this.runPredictRules = [];
    this._run = { ...NO_RUN, active: true, threadId: e.threadId, runId: e.runId, steps: [], finishedSteps: [] };
    this.touch("run");
    const inputMessages = (e.input as Loose | undefined)?.messages;
    if (Array.isArray(inputMessages)) {
      for (const m of inputMessages) {
        if (m && typeof m === "object" && typeof (m as Loose).id === "string" && !this.index.has((m as Loose).id as string)) {
          this.push(m as Message);
        }
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // Bookkeeping
  // -------------------------------------------------------------------------------------------

  private setRun(patch: Partial<RunInfo>): void {
    this._run = { ...this._run, ...patch };
    this.touch("run");
  }

  /** Ends every open message and tool call (the run ended). */
  private closeAll(): void {
    for (const id of this.openMessages) this.dirtyMessages.add(id);
    for (const id of this.openCalls) {
      const owner = this.callOwner.get(id);
      if (owner !== undefined) this.dirtyMessages.add(owner);
    }
    this.openMessages.clear();
    this.openCalls.clear();
  }

  private push(message: Message): void {
    this.insert(this._messages.length, message);
  }

  private insert(at: number, message: Message): void {
    const next = this._messages.slice();
    next.splice(at, 0, message);
    this._messages = next;
    if (at !== next.length - 1) this.reindex();
    else if (!this.index.has(message.id)) this.index.set(message.id, at); // a taken id stays with the first
    this.indexCalls(message);
    this.dirtyMessages.add(message.id);
    this.touch("list");
  }

  /** Puts a new version of a message in its slot (same id). */
  private replace(message: Message): void {
    const i = this.index.get(message.id);
    if (i === undefined) return this.push(message);
    this.replaceAt(i, message);
  }

  /** Puts `message` in slot `i`, and in every slot sharing the old message: a MESSAGES_SNAPSHOT
   * naming an id two messages share gives both slots the one message, and the AG-UI client then
   * changes them together (a producer's error, followed as the client follows it). */
  private replaceAt(i: number, message: Message): void {
    const old = this._messages[i];
    this._messages[i] = message;
    if (this.sharedSlots) this._messages.forEach((m, j) => m === old && (this._messages[j] = message));
    this.indexCalls(message);
    this.dirtyMessages.add(message.id);
  }

  private replaceAll(next: Message[]): void {
    const before = new Map(this._messages.map((m) => [m.id, m]));
    for (const m of next) if (before.get(m.id) !== m) this.dirtyMessages.add(m.id);
    this.restructure(next);
  }

  /**
   * After membership or order changed: rebuilds the lookups, drops flags of messages that are
   * gone, and marks the messages whose tool calls gained, lost or changed a result (their cards
   * show it).
   */
  private restructure(next: Message[]): void {
    const resultsBefore = this.resultObjects();
    const ownersBefore = new Map(this.callOwner);
    this._messages = next;
    this.sharedSlots = new Set(next).size !== next.length;
    this.reindex();
    this.rebuildCalls();
    const resultsAfter = this.resultObjects();
    const mark = (callId: string) => {
      for (const owner of [this.callOwner.get(callId), ownersBefore.get(callId)]) {
        if (owner !== undefined && this.index.has(owner)) this.dirtyMessages.add(owner);
      }
    };
    for (const [callId, result] of resultsAfter) if (resultsBefore.get(callId) !== result) mark(callId);
    for (const callId of resultsBefore.keys()) if (!resultsAfter.has(callId)) mark(callId);
    for (const id of this.openMessages) if (!this.index.has(id)) this.openMessages.delete(id);
    for (const id of this.openCalls) if (!this.callOwner.has(id)) this.openCalls.delete(id);
    this.touch("list");
  }

  /** tool call id -> the result message object (to see which results a restructure changed) */
  private resultObjects(): Map<string, Message | undefined> {
    const out = new Map<string, Message | undefined>();
    for (const [callId, id] of this.callResult) out.set(callId, this.message(id));
    return out;
  }

  /** Replaces one tool call through `update`; false when the call is unknown. */
  private updateCall(toolCallId: string, update: (call: ToolCall) => ToolCall): boolean {
    const slot = this.ownerSlot(toolCallId);
    const owner = this._messages[slot];
    if (!owner) return false;
    const calls = toolCallsOf(owner);
    const at = calls.findIndex((c) => c.id === toolCallId);
    const current = calls[at] as ToolCall;
    const updated = update(current);
    if (updated === current) return true;
    const nextCalls = calls.slice();
    nextCalls[at] = updated;
    this.replaceAt(slot, { ...owner, toolCalls: nextCalls } as Message);
    return true;
  }

  private holdsCall(messageId: string, toolCallId: string): boolean {
    const message = this.message(messageId);
    return message?.role === "assistant" && toolCallsOf(message).some((c) => c.id === toolCallId);
  }

  /** Where the assistant message holding a call is (-1: nowhere): by its id, or, when another
   * message has that id first (ids may repeat, as in the AG-UI client), by a scan. */
  private ownerSlot(toolCallId: string): number {
    const ownerId = this.callOwner.get(toolCallId);
    if (ownerId === undefined) return -1;
    const holds = (m: Message | undefined) => m?.role === "assistant" && toolCallsOf(m).some((c) => c.id === toolCallId);
    const at = this.index.get(ownerId);
    if (at !== undefined && holds(this._messages[at])) return at;
    return this._messages.findIndex(holds);
  }

  private reindex(): void {
    this.index.clear();
    this._messages.forEach((m, i) => {
      // Like the kernel's reducer: with duplicate ids the first one wins.
      if (this.index.has(m.id)) warn(`two messages share the id '${m.id}'; the first one wins lookups`);
      else this.index.set(m.id, i);
    });
  }

  private indexCalls(message: Message): void {
    if (message.role === "assistant") {
      // The first message holding a call owns it (as in the AG-UI client): a later message that
      // repeats the call's id does not take it over.
      for (const call of toolCallsOf(message)) {
        const owner = this.callOwner.get(call.id);
        if (owner === undefined || owner === message.id || !this.holdsCall(owner, call.id)) this.callOwner.set(call.id, message.id);
      }
    } else if (message.role === "tool" && typeof message.toolCallId === "string") {
      this.callResult.set(message.toolCallId, message.id);
    }
  }

  private rebuildCalls(): void {
    this.callOwner.clear();
    this.callResult.clear();
    this._messages.forEach((m, i) => {
      if (this.index.get(m.id) !== i) return; // a duplicate id: not indexed
      if (m.role === "assistant") {
        for (const call of toolCallsOf(m)) if (!this.callOwner.has(call.id)) this.callOwner.set(call.id, m.id);
      } else if (m.role === "tool" && typeof m.toolCallId === "string") {
        this.callResult.set(m.toolCallId, m.id);
      }
    });
  }

  private touch(...topics: Topic[]): void {
    for (const t of topics) this.dirtyTopics.add(t);
  }

  /** Tells listeners what the last kernel message changed. */
  private flush(): void {
    if (this.dirtyTopics.size === 0 && this.dirtyMessages.size === 0) return;
    const change: Change = { topics: this.dirtyTopics, messages: this.dirtyMessages };
    this.dirtyTopics = new Set();
    this.dirtyMessages = new Set();
    for (const topic of change.topics) callAll(this.topicListeners.get(topic));
    for (const id of change.messages) callAll(this.messageListeners.get(id));
    for (const listener of [...this.changeListeners]) safeCall(() => listener(change));
  }
}

/** untruncate-json's function, whether the bundler picked its ES module or its CommonJS build. */
const untruncateJson: (json: string) => string = (() => {
  const mod = untruncateModule as unknown as { default: unknown };
  const fn = typeof mod.default === "function" ? mod.default : (mod.default as { default: unknown }).default;
  return fn as (json: string) => string;
})();

/** The JSON value an unfinished text holds (open strings, lists and objects closed), or undefined. */
export function parsePartialJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(untruncateJson(text));
  } catch {
    return undefined;
  }
}

/** What the kernel noted on a message under `metadata.agui_widget[key]` (stopped, refused, display). */
export function widgetMark(message: unknown, key: string): unknown {
  const metadata = isRecord(message) ? message.metadata : undefined;
  const marks = isRecord(metadata) ? metadata.agui_widget : undefined;
  return isRecord(marks) ? marks[key] : undefined;
}

function isRecord(value: unknown): value is Loose {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Sets `target.metadata` to its metadata merged with `metadata` (a new object; the old one is
 * never mutated). Returns `target`, which must be a fresh object owned by the caller. */
function withMetadata<T extends Loose>(target: T, metadata: unknown): T {
  if (isRecord(metadata)) {
    const current = target.metadata;
    (target as Loose).metadata = isRecord(current) ? { ...current, ...metadata } : { ...metadata };
  }
  return target;
}

function withoutLast(steps: readonly string[], name: string): string[] {
  const at = steps.lastIndexOf(name);
  return at === -1 ? [...steps] : [...steps.slice(0, at), ...steps.slice(at + 1)];
}

function addListener<K>(map: Map<K, Set<() => void>>, key: K, listener: () => void): () => void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(listener);
  return () => {
    const current = map.get(key);
    if (!current) return;
    current.delete(listener);
    if (current.size === 0) map.delete(key);
  };
}

function callAll(listeners: Set<() => void> | undefined): void {
  if (!listeners) return;
  for (const listener of [...listeners]) safeCall(listener);
}

function safeCall(fn: () => void): void {
  try {
    fn();
  } catch (error) {
    warn("a listener failed:", error);
  }
}
