/** Hooks that tie components to the mirror, the traits and the notices, each listening only to
 * what it shows (a streaming message re-renders its own row, not the list). */
import { useCallback, useLayoutEffect, useReducer, useRef, useState } from "preact/hooks";
import type { Topic } from "../mirror/mirror";
import type { Notice } from "../kernel/notices";
import type { Outgoing } from "../kernel/outbox";
import type { Message, TraitName, Traits } from "../kernel/wire";
import { useView } from "./context";
import { ScrollFollower } from "./follow";

const bumpReducer = (n: number) => n + 1;

/** Re-renders the component whenever `subscribe`'s callback fires. Returns how many times it
 * fired (a value to memoize on: it changes only when the callback fired). */
export function useSubscription(subscribe: (listener: () => void) => () => void, deps: unknown[]): number {
  const [count, bump] = useReducer(bumpReducer, 0);
  // `subscribe` is a new closure per render; `deps` say when it really changed.
  useLayoutEffect(() => subscribe(() => bump(undefined as never)), deps);
  return count;
}

/** Re-renders on any of the mirror's `topics`; returns how many times they fired. */
export function useTopics(...topics: Topic[]): number {
  const { conn } = useView();
  return useSubscription(
    (listener) => {
      const offs = topics.map((t) => conn.mirror.subscribe(t, listener));
      return () => {
        for (const off of offs) off();
      };
    },
    [conn, topics.join(" ")],
  );
}

/** One message of the transcript, re-rendering only when that message changes. */
export function useMessage(id: string): Message | undefined {
  const { conn } = useView();
  useSubscription((listener) => conn.mirror.subscribeMessage(id, listener), [conn, id]);
  return conn.mirror.message(id);
}

export function useTrait<K extends TraitName>(name: K): Traits[K] {
  const { conn } = useView();
  useSubscription((listener) => conn.traits.subscribe(name, listener), [conn, name]);
  return conn.traits.get(name);
}

export function useNotices(): readonly Notice[] {
  const { conn } = useView();
  useSubscription((listener) => conn.notices.subscribe(listener), [conn]);
  return conn.notices.list();
}

/** The messages this view sent that the kernel has not shown yet. */
export function useOutbox(): readonly Outgoing[] {
  const { conn } = useView();
  useSubscription((listener) => conn.outbox.subscribe(listener), [conn]);
  return conn.outbox.list();
}

export function useRunner(): void {
  const { runner } = useView();
  useSubscription((listener) => runner.subscribe(listener), [runner]);
}

/**
 * Keeps a scroll box at its end while its content grows, until the user scrolls away (see
 * ScrollFollower for what counts as the user). Returns whether it follows, a function that
 * makes it follow again (and go to the end), and one that stops it following.
 */
export function useAutoScroll(
  scroller: { current: HTMLElement | null },
  content: { current: HTMLElement | null },
): { pinned: boolean; pin: () => void; unpin: () => void } {
  const [pinned, setPinned] = useState(true);
  const follower = useRef<ScrollFollower | null>(null);

  const pin = useCallback(() => {
    if (follower.current) follower.current.follow();
    else setPinned(true);
  }, []);
  const unpin = useCallback(() => {
    if (follower.current) follower.current.stop();
    else setPinned(false);
  }, []);

  useLayoutEffect(() => {
    const box = scroller.current;
    const inner = content.current;
    if (!box || !inner) return;
    const current = new ScrollFollower(box, inner, setPinned);
    follower.current = current;
    const detach = current.attach();
    setPinned(current.isFollowing);
    return () => {
      detach();
      if (follower.current === current) follower.current = null;
    };
  }, [scroller, content]);

  return { pinned, pin, unpin };
}
