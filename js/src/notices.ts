/** `notice` messages from the kernel: things to read that are not part of the transcript. */
import type { NoticeLevel } from "./wire";

export type Notice = { id: number; level: NoticeLevel; text: string };

/** How long an info notice stays up; warnings and errors stay until dismissed. */
export const INFO_NOTICE_MS = 8000;
const MAX_NOTICES = 5;

export class NoticeStore {
  private items: Notice[] = [];
  private listeners = new Set<() => void>();
  private nextId = 1;
  private timers = new Set<ReturnType<typeof setTimeout>>();

  list(): readonly Notice[] {
    return this.items;
  }

  add(level: NoticeLevel, text: string): void {
    const notice = { id: this.nextId++, level, text };
    this.items = [...this.items, notice].slice(-MAX_NOTICES);
    if (level === "info") {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.dismiss(notice.id);
      }, INFO_NOTICE_MS);
      this.timers.add(timer);
    }
    this.emit();
  }

  dismiss(id: number): void {
    const next = this.items.filter((n) => n.id !== id);
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
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.listeners.clear();
  }

  private emit(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
