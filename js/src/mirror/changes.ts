/**
 * What the mirror tells its listeners. While a kernel message is applied, every part of the mirror
 * notes here what it changed (topics, message ids); once the whole message is applied, `flush`
 * tells the listeners of each, so a view re-renders once per kernel message and only what changed.
 */
import { warn } from "../util/log";

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

/** What one kernel message changed; listeners are told after the whole message is applied. */
export type Change = { topics: ReadonlySet<Topic>; messages: ReadonlySet<string> };

export class Changes {
  private dirtyTopics = new Set<Topic>();
  private dirtyMessages = new Set<string>();
  private topicListeners = new Map<Topic, Set<() => void>>();
  private messageListeners = new Map<string, Set<() => void>>();
  private changeListeners = new Set<(change: Change) => void>();

  /** Calls `listener` after each kernel message that touched `topic`. Returns the unsubscriber. */
  subscribe(topic: Topic, listener: () => void): () => void {
    return addListener(this.topicListeners, topic, listener);
  }
  /** Calls `listener` after each kernel message that changed message `id`. */
  subscribeMessage(id: string, listener: () => void): () => void {
    return addListener(this.messageListeners, id, listener);
  }
  /** Calls `listener` with the whole change set after each kernel message that changed anything. */
  onChange(listener: (change: Change) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  touch(...topics: Topic[]): void {
    for (const t of topics) this.dirtyTopics.add(t);
  }

  /** Notes that message `id` changed (its content, its streaming flag, or a result of its calls). */
  message(id: string): void {
    this.dirtyMessages.add(id);
  }

  /** Tells listeners what the last kernel message changed. */
  flush(): void {
    if (this.dirtyTopics.size === 0 && this.dirtyMessages.size === 0) return;
    const change: Change = { topics: this.dirtyTopics, messages: this.dirtyMessages };
    this.dirtyTopics = new Set();
    this.dirtyMessages = new Set();
    for (const topic of change.topics) callAll(this.topicListeners.get(topic));
    for (const id of change.messages) callAll(this.messageListeners.get(id));
    for (const listener of [...this.changeListeners]) safeCall(() => listener(change));
  }
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
