/** `notice` messages from the kernel: things to read that are not part of the transcript. */
import type { NoticeLevel } from "./wire";

/** One notice; `count` says how many times the same text came (repeats are merged, not piled up). */
export type Notice = { id: number; level: NoticeLevel; text: string; count: number };

/** How long an info notice stays up; warnings and errors stay until dismissed. */
export const INFO_NOTICE_MS = 8000;
const MAX_NOTICES = 5;

export class NoticeStore {
  private items: Notice[] = [];
  private listeners = new Set<() => void>();
  private nextId = 1;
  private timers = new Map<number, ReturnType<typeof setTimeout>>();

  list(): readonly Notice[] {
    return this.items;
  }

  /** Adds a notice. The same level and text again replaces the earlier one with a higher count
   * and a new id (so it is announced again and counts as the latest), at the end of the list. */
  add(level: NoticeLevel, text: string): void {
    const earlier = this.items.find((n) => n.level === level && n.text === text);
    if (earlier) this.forget(earlier.id);
    const notice: Notice = { id: this.nextId++, level, text, count: (earlier?.count ?? 0) + 1 };
    const kept = [...this.items.filter((n) => n !== earlier), notice];
    for (const dropped of kept.slice(0, -MAX_NOTICES)) this.forget(dropped.id);
    this.items = kept.slice(-MAX_NOTICES);
    if (level === "info") {
      this.timers.set(
        notice.id,
        setTimeout(() => {
          this.timers.delete(notice.id);
          this.dismiss(notice.id);
        }, INFO_NOTICE_MS),
      );
    }
    this.emit();
  }

  dismiss(id: number): void {
    const next = this.items.filter((n) => n.id !== id);
    this.forget(id);
    if (next.length !== this.items.length) {
      this.items = next;
      this.emit();
    }
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.listeners.clear();
  }

  private forget(id: number): void {
    const timer = this.timers.get(id);
    if (timer !== undefined) clearTimeout(timer);
    this.timers.delete(id);
  }

  private emit(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
