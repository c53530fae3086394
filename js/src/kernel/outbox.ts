/**
 * The messages this view sent that the kernel has not shown yet.
 *
 * A kernel reads comm messages only between the cells it runs: while a cell blocks its loop
 * (`time.sleep`, a long computation) a message sent from the chat waits unread and nothing comes
 * back. So the view shows each message at once, as waiting for the kernel, until the kernel shows
 * it (in the transcript, or queued behind a run). When the kernel can no longer show it, the
 * message goes back to the message box, with a notice: the kernel restarted or went away, it
 * refused the message, or it answered a hello said after the message with a snapshot that holds
 * it nowhere. Nothing here sends a message again: a kernel that is only busy still has it.
 *
 * A send request carries no id of its own. The kernel reads a view's requests in order, so each
 * waiting message is taken as shown by the first user message with its text that appears after it
 * was sent.
 */
import type { NoticeLevel } from "./wire";

/** One message on its way: what it said and held, for the bubble and for the box if it comes back. */
export type Outgoing = {
  readonly key: number;
  readonly text: string;
  readonly files: readonly File[];
  /** how many hellos this view had said when it sent the message */
  readonly hellosBefore: number;
};

/** A user message the kernel shows: in its transcript, or in its queue. */
export type ShownUser = { readonly id: string; readonly text: string };

/** Why messages came back: the kernel went away, refused one, or answered without them. */
export type GiveBackReason = "lost" | "refused" | "missing";

export type GiveBackNotice = { level: NoticeLevel; text: string };

export class Outbox {
  private items: readonly Outgoing[] = [];
  private returned: Outgoing[] = [];
  /** The user messages the kernel had shown by the time the oldest waiting message was sent, and
   * every one seen since (null: none waiting, or the transcript is not here yet). */
  private known: Set<string> | null = null;
  private nextKey = 1;
  private readonly listeners = new Set<() => void>();

  /**
   * @param shown the user messages the kernel shows now, oldest first; null until the first snapshot
   * @param gaveBack told when messages went back to the message box
   */
  constructor(
    private readonly shown: () => readonly ShownUser[] | null,
    private readonly gaveBack: (notice: GiveBackNotice) => void,
  ) {}

  list(): readonly Outgoing[] {
    return this.items;
  }

  /** A message just sent: waiting from now on. */
  add(text: string, files: readonly File[], hellosBefore: number): void {
    this.items = [...this.items, { key: this.nextKey++, text, files, hellosBefore }];
    if (this.items.length === 1) this.check();
    this.emit();
  }

  /** Looks at what the kernel shows now: each new user message confirms the oldest waiting
   * message with its text. */
  check(): void {
    if (this.items.length === 0) return;
    const users = this.shown();
    if (users === null) return;
    if (this.known === null) {
      // What the kernel shows before it read the waiting messages confirms none of them.
      this.known = new Set(users.map((u) => u.id));
      return;
    }
    let waiting = this.items;
    for (const user of users) {
      if (this.known.has(user.id)) continue;
      this.known.add(user.id);
      const at = waiting.findIndex((item) => item.text === user.text);
      if (at !== -1) waiting = waiting.filter((_, i) => i !== at);
    }
    if (waiting.length !== this.items.length) this.settle(waiting);
  }

  /** A snapshot answered this view's `answered`-th hello: the kernel read every message sent
   * before that hello, so those it does not show (checked just before) are not coming. */
  helloAnswered(answered: number): void {
    const missing = this.items.filter((item) => item.hellosBefore < answered);
    if (missing.length > 0) this.giveBack(missing, "missing");
  }

  /** The kernel refused a send: the oldest waiting message, since it reads them in order. */
  refused(): void {
    const oldest = this.items[0];
    if (oldest !== undefined) this.giveBack([oldest], "refused");
  }

  /** The kernel is gone: nothing waiting will be shown. */
  lost(): void {
    if (this.items.length > 0) this.giveBack(this.items, "lost");
  }

  /** The messages that came back since the last call, oldest first, for the message box. */
  takeReturned(): Outgoing[] {
    const returned = this.returned;
    this.returned = [];
    return returned;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    this.listeners.clear();
  }

  private giveBack(items: readonly Outgoing[], reason: GiveBackReason): void {
    const going = new Set(items);
    this.returned.push(...items);
    this.settle(this.items.filter((item) => !going.has(item)));
    this.gaveBack(giveBackNotice(items.length, reason));
  }

  private settle(waiting: readonly Outgoing[]): void {
    this.items = waiting;
    if (waiting.length === 0) this.known = null;
    this.emit();
  }

  private emit(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

/** What the user reads when messages come back to the box. */
export function giveBackNotice(count: number, reason: GiveBackReason): GiveBackNotice {
  const what = count === 1 ? "your message" : `your ${count} messages`;
  const where = count === 1 ? "it is back in the message box" : "they are back in the message box";
  const why =
    reason === "refused"
      ? `The kernel refused ${what}`
      : reason === "missing"
        ? `The kernel never received ${what}`
        : `The kernel went away before it read ${what}`;
  return { level: "warning", text: `${why}: ${where}.` };
}
