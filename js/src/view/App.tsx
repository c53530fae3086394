/** The chat view: a toolbar (state panel, event inspector, clear), the transcript (scrolling,
 * following the stream), what the chat waits for, a status line, notices, and the input. */
import { useEffect, useErrorBoundary, useRef, useState } from "preact/hooks";
import { warn } from "../log";
import { Composer } from "./Composer";
import { ViewCtx, type ViewContext, useView } from "./context";
import { useAutoScroll, useTrait } from "./hooks";
import { EventInspector } from "./EventInspector";
import { ErrorBanner, MessageList, QueuedList } from "./MessageList";
import { Notices } from "./Notices";
import { PendingPanel } from "./PendingPanel";
import { StatePanel } from "./StatePanel";
import { Progress, StatusLine } from "./StatusLine";
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

/**
 * Keys typed in the chat belong to the chat, not to the notebook around it.
 *
 * JupyterLab (and Notebook 7) skip their shortcuts for events from inside an element marked
 * `data-lm-suppress-shortcuts`, so typing cannot run, add or delete cells. Lab also cancels line
 * breaks and undo inside cells from its document-level keydown listener; stopping text-editing
 * keys here, before they bubble to the document, keeps Enter, Shift+Enter and Ctrl+Z working in
 * our boxes. Other Ctrl/Cmd combinations go through with the mark lifted for that key's dispatch,
 * so Ctrl+S still saves the notebook.
 */
const SUPPRESS = "data-lm-suppress-shortcuts";
const EDITING_COMBOS = new Set(["a", "c", "v", "x", "z", "y", "backspace", "delete", "home", "end", "arrowleft", "arrowright", "arrowup", "arrowdown"]);

function keepKeysInTheChat(event: KeyboardEvent) {
  const target = event.target as Element | null;
  const editing = !!target?.closest?.("textarea, input, select, [contenteditable]");
  const modified = event.ctrlKey || event.metaKey;
  if (editing && (!modified || event.key === "Enter" || EDITING_COMBOS.has(event.key.toLowerCase()))) {
    event.stopPropagation();
    return;
  }
  if (modified && event.key !== "Enter") {
    const node = event.currentTarget as HTMLElement;
    node.removeAttribute(SUPPRESS);
    setTimeout(() => node.setAttribute(SUPPRESS, "true"), 0);
  }
}

function Chat() {
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const { pinned, pin } = useAutoScroll(scroller, content);
  const { follower } = useView();
  useEffect(() => follower.subscribe(pin), [follower, pin]);
  const status = useTrait("status");
  const [showState, setShowState] = useState(false);
  const [showEvents, setShowEvents] = useState(false);
  return (
    <div class="agui-chat" data-lm-suppress-shortcuts="true" onKeyDown={keepKeysInTheChat}>
      <Toolbar
        showState={showState}
        showEvents={showEvents}
        onToggleState={() => setShowState(!showState)}
        onToggleEvents={() => setShowEvents(!showEvents)}
      />
      {showState && <StatePanel />}
      {showEvents && <EventInspector />}
      <div class="agui-scroll" ref={scroller}>
        <div class="agui-transcript" ref={content} role="log" aria-label="Conversation" aria-busy={status === "running"}>
          <MessageList />
          <Progress />
          <QueuedList />
          <ErrorBanner />
        </div>
      </div>
      {!pinned && (
        <button type="button" class="agui-btn agui-btn-quiet agui-jump" onClick={pin}>
          Jump to latest ↓
        </button>
      )}
      <PendingPanel />
      <StatusLine />
      <Notices />
      <Composer onSent={pin} />
    </div>
  );
}
