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
 *
 * This module is the mirror's face: the Mirror class the view reads, listens to and feeds kernel
 * messages, over the parts in ./conversation.ts. AG-UI events are applied by ./reduce.ts, the
 * transcript's lookups and streaming flags kept by ./transcript.ts, the run by ./run.ts, predicted
 * state by ./predict.ts, run records by ./records.ts, and listeners told by ./changes.ts.
 */
import { fingerprint } from "./fingerprint";
import { PatchError, applyJsonPatch } from "./jsonpatch";
import { preview, warn } from "../util/log";
import {
  type AguiEvent,
  type CheckEntry,
  type JsonPatch,
  type KernelMessage,
  type Message,
  type PredictRule,
  type RenderMessage,
  type RunRecordRequest,
  type ToolCall,
  checkEvent,
  parseKernelMessage,
} from "../kernel/wire";
import type { Change, Topic } from "./changes";
import { Conversation } from "./conversation";
import type { ToolMessage } from "./messages";
import type { RunRecordEntry } from "./records";
import type { RunInfo, SubagentInfo } from "./run";
import { EventReducer } from "./reduce";

export type { Change, Topic } from "./changes";
export { EVENT_LOG_LIMIT } from "./eventLog";
export { type ToolMessage, textOf, toolCallsOf, widgetMark } from "./messages";
export { PREDICT_STATE_EVENT, parsePartialJson } from "./predict";
export { RECORD_ANSWER_MS, RECORDS_KEPT, type RunRecordEntry } from "./records";
export { NO_RUN, type RunInfo, type SubagentInfo } from "./run";

export class Mirror {
  readonly viewId: string;
  private readonly c = new Conversation();
  private readonly reducer = new EventReducer(this.c);

  constructor(viewId: string) {
    this.viewId = viewId;
  }

  // -------------------------------------------------------------------------------------------
  // Reading
  // -------------------------------------------------------------------------------------------

  /** True once a snapshot for this view has been applied. */
  get ready(): boolean {
    return this.c.ready;
  }
  /** The transcript. A new array whenever membership or order changes; when only a message
   * changes, its slot gets the new message object (compare messages by identity, not the array). */
  messages(): readonly Message[] {
    return this.c.transcript.messages();
  }
  message(id: string): Message | undefined {
    return this.c.transcript.message(id);
  }
  get state(): unknown {
    return this.c.state;
  }
  get run(): RunInfo {
    return this.c.run.info;
  }
  /** The event log tail (the snapshot's, then every event applied since), oldest first. */
  events(): readonly AguiEvent[] {
    return this.c.log.events;
  }
  /** When the kernel received each event of `events()` (epoch ms, the kernel's clock), index by
   * index; null when unknown (the snapshot's tail carries no times). */
  eventTimes(): readonly (number | null)[] {
    return this.c.log.times;
  }
  /** The sequence number of `events()[0]`: events are numbered from the snapshot on, so a row
   * of the inspector keeps its number when older events are trimmed. */
  get eventsBase(): number {
    return this.c.log.dropped;
  }
  /** True while a text or reasoning message streams (between its START and END). */
  isStreaming(messageId: string): boolean {
    return this.c.transcript.openMessages.has(messageId);
  }
  /** True while a tool call's arguments stream (between TOOL_CALL_START and TOOL_CALL_END). */
  isCallStreaming(toolCallId: string): boolean {
    return this.c.transcript.openCalls.has(toolCallId);
  }
  /** The id of the assistant message holding a tool call. */
  callOwnerOf(toolCallId: string): string | undefined {
    return this.c.transcript.ownerOf(toolCallId);
  }
  /** The tool message answering a call, once there is one. */
  toolResult(toolCallId: string): ToolMessage | undefined {
    return this.c.transcript.toolResult(toolCallId);
  }
  /** The tool call itself (its `function.arguments` is the argument text streamed so far). */
  toolCall(toolCallId: string): ToolCall | undefined {
    return this.c.transcript.toolCall(toolCallId);
  }

  /** What a Python renderer made for `key` (`tool:<call id>`, `state:<n>`), if anything. */
  render(key: string): RenderMessage | undefined {
    return this.c.renders.get(key);
  }
  /** Every current render, in arrival order. */
  renders(): RenderMessage[] {
    return [...this.c.renders.values()];
  }
  subagent(id: string): SubagentInfo | undefined {
    return this.c.run.subagents.get(id);
  }
  /** The chat's predictive-state rules (the `predict_state` trait); a run's `PredictState`
   * event adds to them until the run ends. */
  setPredictRules(rules: readonly PredictRule[]): void {
    this.c.prediction.setChatRules(rules);
  }

  // -------------------------------------------------------------------------------------------
  // Run records (the inspector's "what was sent", its export, and times after a reload)
  // -------------------------------------------------------------------------------------------

  /** The record of run `runId` as this view has it, or undefined when it was never asked for. */
  runRecord(runId: string): RunRecordEntry | undefined {
    return this.c.records.get(runId);
  }

  /**
   * Asks the kernel for a run's record, once: nothing is sent while it is asked or known (unless
   * what is known is partial). `send` carries the request and says whether it could go; false
   * (no kernel) leaves nothing behind, so the caller can say why and a later call asks again.
   */
  askRunRecord(runId: string, send: (request: RunRecordRequest) => boolean): boolean {
    return this.c.records.ask(runId, send);
  }

  // -------------------------------------------------------------------------------------------
  // Listening
  // -------------------------------------------------------------------------------------------

  /** Calls `listener` after each kernel message that touched `topic`. Returns the unsubscriber. */
  subscribe(topic: Topic, listener: () => void): () => void {
    return this.c.changes.subscribe(topic, listener);
  }
  /** Calls `listener` after each kernel message that changed message `id` (its content, its
   * streaming flag, or the result of one of its tool calls). */
  subscribeMessage(id: string, listener: () => void): () => void {
    return this.c.changes.subscribeMessage(id, listener);
  }
  /** Calls `listener` with the whole change set after each kernel message that changed anything. */
  onChange(listener: (change: Change) => void): () => void {
    return this.c.changes.onChange(listener);
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
    const c = this.c;
    try {
      switch (msg.kind) {
        case "snapshot":
          if (msg.viewId !== null && msg.viewId !== this.viewId) return;
          this.applySnapshot(msg.messages, msg.state, msg.events);
          break;
        case "events": {
          if (!c.ready) return;
          const timed = msg.times.length === msg.events.length;
          msg.events.forEach((event, i) => this.reducer.apply(event, timed ? (msg.times[i] as number) : null));
          c.changes.touch("events");
          break;
        }
        case "messages":
          if (!c.ready) return;
          c.transcript.splice(msg.start, msg.messages);
          break;
        case "state_patch":
          if (!c.ready) return;
          this.applyStatePatch(msg.patch);
          break;
        case "check":
          if (!c.ready) return;
          this.check(msg.count, msg.start, msg.tail, msg.state ?? undefined);
          break;
        case "render":
          if (!c.ready) return;
          this.applyRender(msg);
          break;
        case "run_record":
          c.records.answer(msg);
          break;
        case "notice":
          break; // not part of the conversation: the view shows it
      }
    } catch (error) {
      // A bug here must not break the view; the next snapshot repairs the copy.
      warn("failed to apply a kernel message:", error, preview(msg));
      c.changes.touch("resync");
    }
    c.changes.flush();
  }

  private applySnapshot(messages: Message[], state: unknown, events: unknown[]): void {
    const c = this.c;
    const wasReady = c.ready;
    c.ready = true;
    c.state = state;
    c.log.reset(events.filter((e): e is AguiEvent => checkEvent(e) === null));
    c.transcript.reset(messages);
    c.renders.clear(); // the kernel sends its renders again right after this snapshot
    c.run.subagents.clear();
    c.prediction.clearRun();
    c.run.readLog(c.log.events, c.transcript, c.prediction);
    c.changes.touch("list", "state", "run", "events", "renders", "subagents");
    if (!wasReady) c.changes.touch("ready");
  }

  /** Compares this copy with the kernel's description of its transcript (sent at the end of
   * every run); asks for a snapshot when they differ. */
  private check(count: number, start: number, tail: CheckEntry[], state: number | undefined): void {
    const problem =
      this.c.transcript.differsFrom(count, start, tail) ??
      (state !== undefined && fingerprint(this.c.state) !== state ? "the shared state differs" : null);
    if (problem) {
      warn(`this view's transcript differs from the kernel's (${problem}); asking for a snapshot`);
      this.c.changes.touch("resync");
    }
  }

  private applyStatePatch(patch: JsonPatch): void {
    try {
      this.c.state = applyJsonPatch(this.c.state, patch);
      this.c.changes.touch("state");
    } catch (error) {
      // The kernel applied this patch to its state; failing here means this copy diverged.
      warn("a state_patch did not apply, asking for a snapshot:", error instanceof PatchError ? error.message : error);
      this.c.changes.touch("resync");
    }
  }

  private applyRender(msg: RenderMessage): void {
    if (msg.bundle === null && msg.error === null) this.c.renders.delete(msg.key);
    else this.c.renders.set(msg.key, msg);
    this.c.changes.touch("renders");
  }
}
