/**
 * AG-UI events applied to the view's copy of the conversation: the transcript (messages built as
 * they stream, tool calls attached to their message, results placed after their call, snapshots
 * reconciled by id), the shared state (snapshots, deltas, predicted state) and the run.
 *
 * It follows the AG-UI client's rules where they matter for display (tool calls attach to
 * `parentMessageId`, a tool result sits right after the assistant message that made the call, a
 * re-opened message appends, MESSAGES_SNAPSHOT reconciles by id, a failing STATE_DELTA changes
 * nothing), and applies events the way the kernel's reducer (agui_widget/pipeline/_reducer.py)
 * does.
 */
import { preview, warn } from "../util/log";
import { type AguiEvent, type EventOf, type Message, type ToolCall, checkEvent, isKnownEventType } from "../kernel/wire";
import type { Conversation } from "./conversation";
import { applyJsonPatch } from "./jsonpatch";
import { type AssistantMessage, type Loose, isRecord, sameJson, toolCallsOf, withMetadata } from "./messages";
import { PREDICT_STATE_EVENT } from "./predict";

export class EventReducer {
  private warnedChunks = false;

  constructor(private readonly c: Conversation) {}

  /** Logs one event for the inspector and applies it; a malformed one is logged and ignored. */
  apply(raw: unknown, time: number | null = null): void {
    const problem = checkEvent(raw);
    if (problem !== null) {
      warn(`ignored a malformed event (${problem}):`, preview(raw));
      return;
    }
    const event = raw as AguiEvent;
    this.c.log.push(event, time);
    if (!isKnownEventType(event.type)) return; // a newer kernel's event: kept for the inspector
    switch (event.type) {
      case "TEXT_MESSAGE_START":
        return this.textStart(event);
      case "TEXT_MESSAGE_CONTENT":
        return this.appendContent(event.messageId, event.delta, event.metadata);
      case "TEXT_MESSAGE_END":
      case "REASONING_MESSAGE_END":
        return this.messageEnd(event);
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
        return this.stateSnapshot(event);
      case "STATE_DELTA":
        return this.stateDelta(event);
      case "MESSAGES_SNAPSHOT":
        return this.messagesSnapshot(event);
      case "ACTIVITY_SNAPSHOT":
        return this.activitySnapshot(event);
      case "ACTIVITY_DELTA":
        return this.activityDelta(event);
      case "RUN_STARTED":
        return this.runStarted(event);
      case "RUN_FINISHED":
        return this.runFinished(event);
      case "RUN_ERROR":
        return this.runError(event);
      case "STEP_STARTED":
        return this.c.run.stepStarted(event);
      case "STEP_FINISHED":
        return this.c.run.stepFinished(event);
      case "TEXT_MESSAGE_CHUNK":
      case "TOOL_CALL_CHUNK":
      case "REASONING_MESSAGE_CHUNK":
        return this.chunkReached(event.type);
      case "CUSTOM":
        if (event.name === PREDICT_STATE_EVENT) this.c.prediction.runEvent(event.value);
        return;
      case "SUBAGENT_STARTED":
      case "SUBAGENT_FINISHED":
      case "SUBAGENT_ERROR":
        return this.subagentEvent(event);
      case "REASONING_START":
      case "REASONING_END":
      case "RAW":
        return; // nothing to display; the event log has them
    }
  }

  /** While a predicted tool's arguments stream, the state follows them (./predict.ts). */
  private predictState(toolCallId: string): void {
    if (!this.c.prediction.active) return;
    const next = this.c.prediction.predict(this.c.transcript.toolCall(toolCallId), this.c.state);
    if (next !== undefined) {
      this.c.state = next;
      this.c.changes.touch("state");
    }
  }

  private textStart(e: EventOf<"TEXT_MESSAGE_START">): void {
    const existing = this.c.transcript.message(e.messageId);
    if (existing?.role === "activity") {
      warn(`TEXT_MESSAGE_START: '${e.messageId}' is an activity message; ignored`);
      return;
    }
    if (!existing) {
      const created: Loose = { id: e.messageId, role: e.role ?? "assistant", content: "" };
      if (e.name != null) created.name = e.name;
      if (e.subagentRunId != null) created.subagentRunId = e.subagentRunId;
      this.c.transcript.push(withMetadata(created, e.metadata) as Message);
    } else {
      this.mergeMetadata(e.messageId, e.metadata);
    }
    this.open(e.messageId);
  }

  /** Folds an event's metadata into the message it builds: key by key, last write wins. */
  private mergeMetadata(id: string, metadata: unknown): void {
    if (!isRecord(metadata)) return;
    const message = this.c.transcript.message(id);
    if (message && message.role !== "activity") this.c.transcript.replace(withMetadata({ ...message }, metadata) as Message);
  }

  private messageEnd(e: EventOf<"TEXT_MESSAGE_END" | "REASONING_MESSAGE_END">): void {
    this.mergeMetadata(e.messageId, e.metadata);
    this.c.transcript.close(e.messageId);
  }

  private reasoningStart(e: EventOf<"REASONING_MESSAGE_START">): void {
    const existing = this.c.transcript.message(e.messageId);
    if (existing?.role === "activity") {
      warn(`REASONING_MESSAGE_START: '${e.messageId}' is an activity message; ignored`);
      return;
    }
    if (!existing) {
      const created: Loose = { id: e.messageId, role: "reasoning", content: "" };
      if (e.subagentRunId != null) created.subagentRunId = e.subagentRunId;
      this.c.transcript.push(withMetadata(created, e.metadata) as Message);
    } else {
      this.mergeMetadata(e.messageId, e.metadata);
    }
    this.open(e.messageId);
  }

  private appendContent(id: string, delta: string, metadata?: unknown): void {
    const existing = this.c.transcript.message(id);
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
    this.c.transcript.replace(withMetadata({ ...existing, content: (typeof content === "string" ? content : "") + delta }, metadata) as Message);
    this.open(id);
  }

  /** A message streams, and so the run produced output. */
  private open(id: string): void {
    this.c.transcript.open(id);
    this.c.run.sawOutput();
  }

  private encryptedValue(e: EventOf<"REASONING_ENCRYPTED_VALUE">): void {
    if (e.subtype === "tool-call") {
      this.c.transcript.updateCall(e.entityId, (call) => ({ ...call, encryptedValue: e.encryptedValue }));
      return;
    }
    const message = this.c.transcript.message(e.entityId);
    if (message && message.role !== "activity") {
      this.c.transcript.replace({ ...message, encryptedValue: e.encryptedValue } as Message);
    }
  }

  private toolCallStart(e: EventOf<"TOOL_CALL_START">): void {
    const transcript = this.c.transcript;
    if (transcript.ownerOf(e.toolCallId) !== undefined) {
      // A replayed start: keep the call (and the arguments it has), update the name.
      transcript.updateCall(e.toolCallId, (call) =>
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
      const parent = parentId === undefined ? undefined : transcript.message(parentId);
      if (parent?.role === "assistant") {
        transcript.replace({ ...parent, toolCalls: [...toolCallsOf(parent), call] } as AssistantMessage);
        transcript.setOwner(e.toolCallId, parent.id);
      } else {
        // A new assistant message, named by the parent id when no message has it, else by the
        // call's id (when that id is taken, the first message keeps it, as in the AG-UI client).
        const id = parentId !== undefined && !parent ? parentId : e.toolCallId;
        const created: Loose = { id, role: "assistant", toolCalls: [call] };
        if (e.subagentRunId != null) created.subagentRunId = e.subagentRunId;
        transcript.push(created as Message);
        transcript.setOwner(e.toolCallId, id);
      }
    }
    transcript.openCalls.add(e.toolCallId);
    this.c.run.sawOutput();
  }

  private toolCallArgs(e: EventOf<"TOOL_CALL_ARGS">): void {
    const found = this.c.transcript.updateCall(
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
    if (isRecord(e.metadata)) this.c.transcript.updateCall(e.toolCallId, (call) => withMetadata({ ...call }, e.metadata) as ToolCall);
    this.c.transcript.closeCall(e.toolCallId);
  }

  private toolCallResult(e: EventOf<"TOOL_CALL_RESULT">): void {
    const result: Loose = { id: e.messageId, role: e.role ?? "tool", toolCallId: e.toolCallId, content: e.content };
    if (e.subagentRunId != null) result.subagentRunId = e.subagentRunId;
    withMetadata(result, e.metadata);
    // A result always mints its message (a messageId already taken stays with the message that
    // had it first), right after the call's assistant message and the results it already has.
    this.c.transcript.addResult(e.toolCallId, result as Message);
  }

  private stateSnapshot(e: EventOf<"STATE_SNAPSHOT">): void {
    this.c.state = e.snapshot;
    this.c.changes.touch("state");
  }

  private stateDelta(e: EventOf<"STATE_DELTA">): void {
    try {
      this.c.state = applyJsonPatch(this.c.state, e.delta);
      this.c.changes.touch("state");
    } catch (error) {
      // Same rule as the AG-UI client: an unappliable delta warns and changes nothing.
      warn("Failed to apply state patch:", error instanceof Error ? error.message : error);
    }
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
    for (const m of this.c.transcript.messages()) {
      const replacement = byId.get(m.id);
      if (replacement !== undefined) {
        next.push(sameJson(m, replacement) ? m : replacement);
        seen.add(m.id);
      } else if (keepLocal(m)) {
        next.push(m);
      }
    }
    for (const m of incoming) if (!seen.has(m.id)) next.push(m);
    this.c.transcript.replaceAll(next);
  }

  private activitySnapshot(e: EventOf<"ACTIVITY_SNAPSHOT">): void {
    const existing = this.c.transcript.message(e.messageId);
    const replace = e.replace ?? true;
    const fresh: Loose = { id: e.messageId, role: "activity", activityType: e.activityType, content: e.content };
    if (e.subagentRunId != null) fresh.subagentRunId = e.subagentRunId;
    if (!existing) {
      this.c.transcript.push(withMetadata(fresh, e.metadata) as Message);
    } else if (existing.role === "activity") {
      // A replace re-mints content, type and attribution, not the metadata gathered so far.
      const metadata = (existing as Loose).metadata;
      const next: Loose = replace ? fresh : { ...existing };
      if (replace && metadata !== undefined) next.metadata = metadata;
      if (replace || isRecord(e.metadata)) this.c.transcript.replace(withMetadata(next, e.metadata) as Message);
    } else if (replace) {
      this.c.transcript.replace(withMetadata(fresh, e.metadata) as Message);
    }
    this.c.run.sawOutput();
  }

  private activityDelta(e: EventOf<"ACTIVITY_DELTA">): void {
    const existing = this.c.transcript.message(e.messageId);
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
    this.c.transcript.replace(next as Message);
  }

  private runStarted(e: EventOf<"RUN_STARTED">): void {
    this.c.transcript.closeAll();
    this.c.prediction.clearRun();
    this.c.run.started(e);
    const inputMessages = (e.input as Loose | undefined)?.messages;
    if (Array.isArray(inputMessages)) {
      for (const m of inputMessages) {
        if (m && typeof m === "object" && typeof (m as Loose).id === "string" && !this.c.transcript.has((m as Loose).id as string)) {
          this.c.transcript.push(m as Message);
        }
      }
    }
  }

  private runFinished(e: EventOf<"RUN_FINISHED">): void {
    this.c.transcript.closeAll();
    this.c.records.markPartial(e.runId);
    this.c.run.set({ active: false, steps: [], outcome: e.outcome ?? undefined });
  }

  private runError(e: EventOf<"RUN_ERROR">): void {
    this.c.transcript.closeAll();
    this.c.records.markPartial(this.c.run.info.runId);
    this.c.run.set({ active: false, steps: [], error: e.message, errorCode: e.code ?? "" });
  }

  private subagentEvent(e: EventOf<"SUBAGENT_STARTED" | "SUBAGENT_FINISHED" | "SUBAGENT_ERROR">): void {
    this.c.run.subagentEvent(e);
    this.c.changes.touch("subagents", "list");
  }

  /** Chunk events are expanded by the kernel before they are sent: one reaching the view is ignored, with a warning once. */
  private chunkReached(type: string): void {
    if (this.warnedChunks) return;
    this.warnedChunks = true;
    warn(`${type} reached the view; the kernel sends events after chunk expansion, so chunks are ignored`);
  }
}
