/** The chat view: a toolbar (state panel, event inspector, clear), the transcript (scrolling,
 * following the stream), what the chat waits for, a status line, notices, and the input, in a
 * box of a fixed height (the `height` trait, or the resize handle) that the panels share. */
import { useCallback, useEffect, useErrorBoundary, useLayoutEffect, useRef, useState } from "preact/hooks";
import { warn } from "../util/log";
import { Composer } from "./Composer";
import { ViewCtx, type ViewContext, useView } from "./context";
import { useAutoScroll, useTrait } from "./hooks";
import { keepKeysFromTheNotebook, keepKeysInTheChat } from "./keys";
import { ContextPanel } from "./ContextPanel";
import { EventInspector } from "./EventInspector";
import { ErrorBanner, MessageList, QueuedList } from "./MessageList";
import { Notices } from "./Notices";
import { OutgoingList } from "./Outgoing";
import { PendingPanel } from "./PendingPanel";
import { ResizeHandle } from "./ResizeHandle";
import { RunSettings } from "./RunSettings";
import { StatePanel } from "./StatePanel";
import { Progress, StatusLine } from "./StatusLine";
import { ThreadsPanel } from "./ThreadsPanel";
import { Toolbar } from "./Toolbar";

export function App({ ctx }: { ctx: ViewContext }) {
  return (
    <ViewCtx.Provider value={ctx}>
      <Boundary />
    </ViewCtx.Provider>
  );
}

/** A bug in the view shows a line instead of a blank output (the kernel side is unaffected). */
function Boundary() {
  const [error, reset] = useErrorBoundary((e) => warn("the chat view failed:", e));
  if (error) {
    return (
      <div class="agui-chat agui-error" role="alert">
        The chat view failed: {String(error)}{" "}
        <button type="button" class="agui-btn" onClick={reset}>
          Retry
        </button>
      </div>
    );
  }
  return <Chat />;
}

/** Wider than this (px), the State and Events panels sit beside the transcript; narrower,
 * above it. Either way they share the chat's height, so the message box stays in view. */
const SIDE_BY_SIDE_WIDTH = 720;

/** The chat's height: what the resize handle set in this view, else the `height` trait, else
 * the stylesheet's default (undefined). */
function useChatHeight(): { height: string | undefined; resize: (px: number) => void; reset: () => void } {
  const trait = useTrait("height");
  // Kept with the trait's value it was dragged under: a new height from the kernel replaces it.
  const [dragged, setDragged] = useState<{ px: number; under: string } | null>(null);
  const resize = useCallback((px: number) => setDragged({ px, under: trait }), [trait]);
  const reset = useCallback(() => setDragged(null), []);
  const px = dragged !== null && dragged.under === trait ? dragged.px : null;
  return { height: px !== null ? `${px}px` : trait || undefined, resize, reset };
}

/** Whether the element is at least `min` pixels wide, kept up to date. */
function useWiderThan(el: { current: HTMLElement | null }, min: number): boolean {
  const [wide, setWide] = useState(false);
  useLayoutEffect(() => {
    const node = el.current;
    if (!node) return;
    const measure = () => setWide(node.getBoundingClientRect().width >= min);
    measure();
    const Observer = node.ownerDocument.defaultView?.ResizeObserver;
    if (!Observer) return;
    const observer = new Observer(measure);
    observer.observe(node);
    return () => observer.disconnect();
  }, [el, min]);
  return wide;
}

function Chat() {
  const shell = useRef<HTMLDivElement>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const { pinned, pin, unpin } = useAutoScroll(scroller, content);
  const { follower } = useView();
  // Heard from the first render on: a button pressed at once must not find nobody listening.
  useLayoutEffect(() => follower.subscribe((following) => (following ? pin() : unpin())), [follower, pin, unpin]);
  // Keys pressed in the chat are the chat's, not the notebook's shortcuts (./keys.ts).
  useEffect(() => keepKeysFromTheNotebook(shell.current?.ownerDocument.defaultView ?? window), []);
  const { height, resize, reset } = useChatHeight();
  const wide = useWiderThan(shell, SIDE_BY_SIDE_WIDTH);
  const [showState, setShowState] = useState(false);
  const [showEvents, setShowEvents] = useState(false);
  const [showContext, setShowContext] = useState(false);
  // "command": opened by /threads in the message box, so the focus moves into it
  const [showThreads, setShowThreads] = useState<false | "toolbar" | "command">(false);
  const side = showThreads !== false || showState || showEvents || showContext;
  // While the chat waits for the user, a narrow chat's panels give the transcript room (styles.css).
  const awaiting = useTrait("pending").length > 0;
  return (
    <div
      ref={shell}
      class="agui-chat agui-shell"
      style={height ? { height } : undefined}
      data-layout={wide ? "wide" : "narrow"}
      data-lm-suppress-shortcuts="true"
      onKeyDown={keepKeysInTheChat}
    >
      <Toolbar
        showThreads={showThreads !== false}
        onToggleThreads={() => setShowThreads(showThreads === false ? "toolbar" : false)}
        showState={showState}
        showEvents={showEvents}
        onToggleState={() => setShowState(!showState)}
        onToggleEvents={() => setShowEvents(!showEvents)}
        showContext={showContext}
        onToggleContext={() => setShowContext(!showContext)}
      />
      <div class="agui-main" data-side={side ? "open" : "closed"} data-awaiting={awaiting ? "" : undefined}>
        {side && (
          <div class="agui-side">
            {showThreads !== false && <ThreadsPanel focusOnOpen={showThreads === "command"} />}
            {showState && <StatePanel />}
            {showEvents && <EventInspector />}
            {showContext && <ContextPanel />}
          </div>
        )}
        <div class="agui-conversation">
          <div class="agui-scroll-area">
            {/* Focusable, so the keyboard can scroll it. Not live: a streamed answer would be read
                token by token; the status line says when an answer is finished (./Announcer.tsx). */}
            <div class="agui-scroll" ref={scroller} tabIndex={0} role="log" aria-live="off" aria-label="Conversation">
              <div class="agui-transcript" ref={content}>
                <MessageList scroller={scroller} content={content} following={pinned} />
                <Progress />
                <QueuedList />
                <OutgoingList />
                <ErrorBanner />
              </div>
            </div>
            {!pinned && (
              <button type="button" class="agui-btn agui-jump" onClick={pin}>
                Jump to latest <span aria-hidden="true">↓</span>
              </button>
            )}
          </div>
          <PendingPanel />
          <StatusLine />
          <Notices />
          <RunSettings />
          <Composer onSent={pin} onThreads={() => setShowThreads("command")} />
        </div>
      </div>
      <ResizeHandle target={shell} onResize={resize} onReset={reset} />
    </div>
  );
}
