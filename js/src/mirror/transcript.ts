/**
 * The mirror's transcript: the list of messages with the lookups that keep a streamed token O(1)
 * (message id -> slot, tool call -> the message holding it and the message answering it) and the
 * streaming flags (messages and tool calls between their START and END). Every change goes through
 * here, so the lookups stay right and the change set names each message whose row must re-render.
 *
 * Immutability: a changed message is a new object in its slot; the array returned by `messages()`
 * is a new array only when membership or order changes.
 */
import { warn } from "../util/log";
import type { CheckEntry, Message, ToolCall } from "../kernel/wire";
import type { Changes } from "./changes";
import { type Loose, type ToolMessage, sameJson, toolCallsOf } from "./messages";

export class Transcript {
  private _messages: Message[] = [];
  private index = new Map<string, number>();
  /** tool call id -> id of the assistant message that holds it */
  private callOwner = new Map<string, string>();
  /** tool call id -> id of its tool (result) message */
  private callResult = new Map<string, string>();
  /** True while one message object fills two slots (see `replaceAt`). */
  private sharedSlots = false;
  /** ids of text / reasoning messages between START and END */
  readonly openMessages = new Set<string>();
  /** ids of tool calls between START and END */
  readonly openCalls = new Set<string>();

  constructor(private readonly changes: Changes) {}

  // -------------------------------------------------------------------------------------------
  // Reading
  // -------------------------------------------------------------------------------------------

  messages(): readonly Message[] {
    return this._messages;
  }
  message(id: string): Message | undefined {
    const i = this.index.get(id);
    return i === undefined ? undefined : this._messages[i];
  }
  has(id: string): boolean {
    return this.index.has(id);
  }
  /** The id of the assistant message holding a tool call. */
  ownerOf(toolCallId: string): string | undefined {
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

  /** What differs between this transcript and the kernel's description of its own (a `check`):
   * null when nothing does. */
  differsFrom(count: number, start: number, tail: CheckEntry[]): string | null {
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

  // -------------------------------------------------------------------------------------------
  // Whole transcripts: a snapshot, a splice
  // -------------------------------------------------------------------------------------------

  /** A snapshot's transcript: lookups rebuilt, no message streaming (the caller reads the flags
   * back from the event log). Marks every message that was here or is now. */
  reset(messages: Message[]): void {
    const before = this._messages;
    this._messages = messages.slice();
    this.sharedSlots = false; // parsed from JSON: no object fills two slots
    this.reindex();
    this.rebuildCalls();
    this.openMessages.clear();
    this.openCalls.clear();
    for (const m of before) this.changes.message(m.id);
    for (const m of this._messages) this.changes.message(m.id);
  }

  /** A `messages` splice: the transcript from `start` on is replaced by `incoming`. */
  splice(start: number, incoming: Message[]): void {
    if (start > this._messages.length) {
      warn(`a messages splice starts at ${start}, past the end of this copy (${this._messages.length}); asking for a snapshot`);
      this.changes.touch("resync");
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
    for (let i = start; i < old.length; i++) if (!kept.has(old[i] as Message)) this.changes.message((old[i] as Message).id);
    for (const m of tail) if (this.message(m.id) !== m) this.changes.message(m.id);
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
      this.changes.message(m.id);
    });
    // A result that arrived tells the message holding its call (its card shows it).
    for (const m of incoming) {
      if (m.role !== "tool" || typeof m.toolCallId !== "string") continue;
      const owner = this.callOwner.get(m.toolCallId);
      if (owner !== undefined && this.index.has(owner)) this.changes.message(owner);
    }
    this.changes.touch("list");
  }

  // -------------------------------------------------------------------------------------------
  // Streaming flags
  // -------------------------------------------------------------------------------------------

  /** Marks a text or reasoning message as streaming. */
  open(id: string): void {
    if (!this.openMessages.has(id)) {
      this.openMessages.add(id);
      this.changes.message(id);
    }
  }

  close(id: string): void {
    if (this.openMessages.delete(id)) this.changes.message(id);
  }

  /** Ends a tool call's arguments; its card shows it. */
  closeCall(toolCallId: string): void {
    if (this.openCalls.delete(toolCallId)) this.touchOwner(toolCallId);
  }

  /** Ends every open message and tool call (the run ended). */
  closeAll(): void {
    for (const id of this.openMessages) this.changes.message(id);
    for (const id of this.openCalls) this.touchOwner(id);
    this.openMessages.clear();
    this.openCalls.clear();
  }

  /** Drops the flags of messages and calls no longer here. */
  dropStaleFlags(): void {
    for (const id of this.openMessages) if (!this.index.has(id)) this.openMessages.delete(id);
    for (const id of this.openCalls) if (!this.callOwner.has(id)) this.openCalls.delete(id);
  }

  /** Marks the message holding a call as changed (its card shows the call). */
  touchOwner(toolCallId: string): void {
    const owner = this.callOwner.get(toolCallId);
    if (owner !== undefined) this.changes.message(owner);
  }

  // -------------------------------------------------------------------------------------------
  // Single messages and calls
  // -------------------------------------------------------------------------------------------

  push(message: Message): void {
    this.insert(this._messages.length, message);
  }

  insert(at: number, message: Message): void {
    const next = this._messages.slice();
    next.splice(at, 0, message);
    this._messages = next;
    if (at !== next.length - 1) this.reindex();
    else if (!this.index.has(message.id)) this.index.set(message.id, at); // a taken id stays with the first
    this.indexCalls(message);
    this.changes.message(message.id);
    this.changes.touch("list");
  }

  /** Puts a new version of a message in its slot (same id). */
  replace(message: Message): void {
    const i = this.index.get(message.id);
    if (i === undefined) return this.push(message);
    this.replaceAt(i, message);
  }

  /** Names `messageId` as the message holding a call (a call it was just given). */
  setOwner(toolCallId: string, messageId: string): void {
    this.callOwner.set(toolCallId, messageId);
  }

  /**
   * A call's result: a new message right after the call's assistant message and the results it
   * already has (at the end when the call is nowhere), even when its id is taken (the message that
   * had it first keeps it).
   */
  addResult(toolCallId: string, result: Message): void {
    const ownerIndex = this.ownerSlot(toolCallId);
    if (ownerIndex === -1) {
      this.push(result);
    } else {
      let at = ownerIndex + 1;
      while (at < this._messages.length && this._messages[at]?.role === "tool") at++;
      this.insert(at, result);
    }
    this.callResult.set(toolCallId, result.id);
    this.openCalls.delete(toolCallId);
    this.touchOwner(toolCallId);
  }

  /** Replaces one tool call through `update`; false when the call is unknown. */
  updateCall(toolCallId: string, update: (call: ToolCall) => ToolCall): boolean {
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

  /** A MESSAGES_SNAPSHOT's result: the new list, marking each message that is new or changed. */
  replaceAll(next: Message[]): void {
    const before = new Map(this._messages.map((m) => [m.id, m]));
    for (const m of next) if (before.get(m.id) !== m) this.changes.message(m.id);
    this.restructure(next);
  }

  // -------------------------------------------------------------------------------------------
  // Bookkeeping
  // -------------------------------------------------------------------------------------------

  /** Puts `message` in slot `i`, and in every slot sharing the old message: a MESSAGES_SNAPSHOT
   * naming an id two messages share gives both slots the one message, and the AG-UI client then
   * changes them together (a producer's error, followed as the client follows it). */
  private replaceAt(i: number, message: Message): void {
    const old = this._messages[i];
    this._messages[i] = message;
    if (this.sharedSlots) this._messages.forEach((m, j) => m === old && (this._messages[j] = message));
    this.indexCalls(message);
    this.changes.message(message.id);
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
        if (owner !== undefined && this.index.has(owner)) this.changes.message(owner);
      }
    };
    for (const [callId, result] of resultsAfter) if (resultsBefore.get(callId) !== result) mark(callId);
    for (const callId of resultsBefore.keys()) if (!resultsAfter.has(callId)) mark(callId);
    this.dropStaleFlags();
    this.changes.touch("list");
  }

  /** tool call id -> the result message object (to see which results a restructure changed) */
  private resultObjects(): Map<string, Message | undefined> {
    const out = new Map<string, Message | undefined>();
    for (const [callId, id] of this.callResult) out.set(callId, this.message(id));
    return out;
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
}
