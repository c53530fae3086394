/** What a screen reader hears when an answer is finished: one short sentence, once per answer.
 * The transcript itself is not a live region (a streamed answer would be read token by token, a
 * sent message twice, a tool's result as raw JSON), so this is the only word it says of an answer. */
import type { Message, Status } from "../kernel/wire";
import { textOf } from "../mirror/mirror";

/** How much of an answer is read out: enough to tell which answer it is. */
const WORDS_READ = 12;

/** Markdown's marks, which a reader would spell out. */
const MARKUP = /[`*_#>|~]+|\[([^\]]*)\]\([^)]*\)|!\[[^\]]*\]\([^)]*\)/g;

/** The answer's first words, without Markdown's marks; "" when it has no text. */
export function firstWords(text: string, count = WORDS_READ): string {
  const words = text.replace(MARKUP, (_, link: string | undefined) => link ?? "").split(/\s+/).filter(Boolean);
  const shown = words.slice(0, count).join(" ");
  return words.length > count ? `${shown}…` : shown;
}

/** "Answer finished: <first words>" for the latest turn's last answer, or null when the turn
 * (what follows the last user message) holds no assistant text. */
export function finishedAnswer(messages: readonly Message[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as Message;
    if (message.role === "user") return null;
    if (message.role !== "assistant") continue;
    const words = firstWords(textOf(message.content));
    if (words) return `Answer finished: ${words}`;
  }
  return null;
}

/** An answer is finished when a run this view saw running ends with the chat idle: not when it
 * failed (the error is an alert of its own) nor when it waits for the user (the status says so). */
export function answerEnded(before: Status, now: Status): boolean {
  return before === "running" && now === "idle";
}
