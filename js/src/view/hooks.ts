/** Hooks that tie components to the mirror, the traits and the notices, each listening only to
 * what it shows (a streaming message re-renders its own row, not the list). */
import { useCallback, useLayoutEffect, useReducer, useRef, useState } from "preact/hooks";
import type { Topic } from "../mirror";
import type { Notice } from "../notices";
import type { Message, TraitName, Traits } from "../wire";
import { useView } from "./context";

const bumpReducer = (n: number) => n + 1;

/** Re-renders the component whenever `subscribe`'s callback fires. */
export function useSubscription(subscribe: (listener: () => void) => () => void, deps: unknown[]): void {
  const [, bump] = useReducer(bumpReducer, 0);
  // `subscribe` is a new closure per render; `deps` say when it really changed.
  useLayoutEffect(() => subscribe(() => bump(undefined as never)), deps);
}

/** Re-renders on any of the mirror's `topics`. */
export function useTopics(...topics: Topic[]): void {
  const { conn } = useView();
  useSubscription(
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

export function useRunner(): void {
  const { runner } = useView();
  useSubscription((listener) => runner.subscribe(listener), [runner]);
}

/** How close to the bottom (px) still counts as "at the bottom". */
const STICK_SLACK = 48;

/**
 * Keeps a scroll box pinned to its end while its content grows, unless the user scrolled up.
 * Growth is observed on the content element, so a streaming row that re-renders alone is
 * followed too. Returns whether the view is pinned, and a function that pins it again.
 */
export function useAutoScroll(
  scroller: { current: HTMLElement | null },
  content: { current: HTMLElement | null },
): { pinned: boolean; pin: () => void } {
  const pinnedRef = useRef(true);
  const [pinned, setPinned] = useState(true);

  const pin = useCallback(() => {
    pinnedRef.current = true;
    setPinned(true);
    const box = scroller.current;
    if (box) box.scrollTop = box.scrollHeight;
  }, [scroller]);

  useLayoutEffect(() => {
    const box = scroller.current;
    const inner = content.current;
    if (!box || !inner) return;
    const follow = () => {
      if (pinnedRef.current) box.scrollTop = box.scrollHeight;
    };
    const onScroll = () => {
      const atEnd = box.scrollHeight - box.scrollTop - box.clientHeight <= STICK_SLACK;
      if (atEnd !== pinnedRef.current) {
        pinnedRef.current = atEnd;
        setPinned(atEnd);
      }
    };
    box.addEventListener("scroll", onScroll, { passive: true });
    let observer: ResizeObserver | MutationObserver | undefined;
    if (typeof ResizeObserver !== "undefined") {
      observer = new ResizeObserver(follow);
      observer.observe(inner);
    } else if (typeof MutationObserver !== "undefined") {
      observer = new MutationObserver(follow);
      observer.observe(inner, { childList: true, subtree: true, characterData: true });
    }
    follow();
    return () => {
      box.removeEventListener("scroll", onScroll);
      observer?.disconnect();
    };
  }, [scroller, content]);

  return { pinned, pin };
}
