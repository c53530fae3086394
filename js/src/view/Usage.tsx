/** The tokens a turn used, quietly under its answer: "gpt-4o-mini · 1,234 in · 56 out", as the
 * agent reported them (`RUN_FINISHED.usage`, summed over the turn's runs by the kernel and kept in
 * the answer's metadata, `agui_widget.usage`). Under the last answer, the thread's totals too;
 * and, when the chat knows its model's context window (`context_window`), how much of it the last
 * turn's input filled (a meter, under the last answer). An agent that reports no usage shows nothing. */
import { widgetMark } from "../mirror/mirror";
import { isObject, type Message } from "../kernel/wire";
import { useView } from "./context";
import { useTrait } from "./hooks";

/** One turn's usage, summed over the models it used. */
export type TurnUsage = {
  models: string[];
  inputTokens: number;
  outputTokens: number;
};

const count = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0);

/** The usage the kernel marked on a message, or null when it has none (or none that counts). */
export function usageOf(message: Message): TurnUsage | null {
  const entries = widgetMark(message, "usage");
  if (!Array.isArray(entries)) return null;
  const usage: TurnUsage = { models: [], inputTokens: 0, outputTokens: 0 };
  for (const entry of entries) {
    if (!isObject(entry)) continue;
    if (typeof entry.model === "string" && entry.model !== "" && !usage.models.includes(entry.model)) usage.models.push(entry.model);
    usage.inputTokens += count(entry.inputTokens);
    usage.outputTokens += count(entry.outputTokens);
  }
  return usage.inputTokens + usage.outputTokens > 0 ? usage : null;
}

/** Every turn's usage in the transcript, summed. */
export function threadUsage(messages: readonly Message[]): {
  turns: number;
  inputTokens: number;
  outputTokens: number;
} {
  const total = { turns: 0, inputTokens: 0, outputTokens: 0 };
  for (const message of messages) {
    const usage = message.role === "assistant" ? usageOf(message) : null;
    if (usage === null) continue;
    total.turns += 1;
    total.inputTokens += usage.inputTokens;
    total.outputTokens += usage.outputTokens;
  }
  return total;
}

const tokens = (n: number) => n.toLocaleString("en-US");

/** Under an answer: its turn's usage; under the last one (`last`), the thread's totals as well
 * when more than one turn counted, and the context meter when the window is known. */
export function Usage({ message, last = false }: { message: Message; last?: boolean }) {
  const { conn } = useView();
  const contextWindow = useTrait("context_window");
  const usage = usageOf(message);
  if (usage === null) return null;
  const thread = last ? threadUsage(conn.mirror.messages()) : null;
  const filled = last && contextWindow !== null && contextWindow > 0 ? Math.min(1, usage.inputTokens / contextWindow) : null;
  return (
    <div class="agui-usage">
      <span class="agui-visually-hidden">Tokens used: </span>
      {usage.models.length > 0 && <span class="agui-usage-model">{usage.models.join(", ")} · </span>}
      <span>{tokens(usage.inputTokens)} in</span> · <span>{tokens(usage.outputTokens)} out</span>
      {thread !== null && thread.turns > 1 && (
        <span class="agui-usage-thread">
          {" "}
          · this thread: {tokens(thread.inputTokens)} in · {tokens(thread.outputTokens)} out
        </span>
      )}
      {filled !== null && contextWindow !== null && (
        <span class="agui-usage-window">
          {" "}
          · context{" "}
          <meter
            class="agui-usage-meter"
            min={0}
            max={contextWindow}
            value={Math.min(usage.inputTokens, contextWindow)}
            aria-label={`Context window: ${tokens(usage.inputTokens)} of ${tokens(contextWindow)} tokens`}
          />
          {Math.round(filled * 100)}% of {tokens(contextWindow)}
        </span>
      )}
    </div>
  );
}
