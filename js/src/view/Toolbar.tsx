/** The chat's toolbar: the state panel and the event inspector toggles, and Clear (which asks
 * first, and offers to reset the shared state too). */
import { useEffect, useRef, useState } from "preact/hooks";
import { AgentPicker } from "./AgentPicker";
import { ChatTitle } from "./Branding";
import { useView } from "./context";
import { focusMessageBox } from "./focus";
import { useTopics, useTrait } from "./hooks";
import { Icon } from "./icons";
import { useLive } from "./KernelBanner";

type Props = {
  showThreads: boolean;
  onToggleThreads: () => void;
  showState: boolean;
  showEvents: boolean;
  onToggleState: () => void;
  onToggleEvents: () => void;
  showContext: boolean;
  onToggleContext: () => void;
};

export function Toolbar({ showThreads, onToggleThreads, showState, showEvents, onToggleState, onToggleEvents, showContext, onToggleContext }: Props) {
  const gets = useTrait("frontend_tools").length + useTrait("agent_context").length;
  return (
    <div class="agui-toolbar" role="group" aria-label="Chat tools">
      <ChatTitle />
      <AgentPicker />
      <button type="button" class="agui-tool-btn" aria-label="Show threads" aria-pressed={showThreads} title="The threads in the store" onClick={onToggleThreads}>
        <Icon name="threads" />
        <span class="agui-tool-btn-text">Threads</span>
      </button>
      <button type="button" class="agui-tool-btn" aria-label="Show state" aria-pressed={showState} title="Shared state" onClick={onToggleState}>
        <Icon name="braces" />
        <span class="agui-tool-btn-text">State</span>
      </button>
      <button type="button" class="agui-tool-btn" aria-label="Show events" aria-pressed={showEvents} title="AG-UI events" onClick={onToggleEvents}>
        <Icon name="events" />
        <span class="agui-tool-btn-text">Events</span>
      </button>
      <button
        type="button"
        class="agui-tool-btn"
        aria-label={gets > 0 ? `Show context ${gets}` : "Show context"}
        aria-pressed={showContext}
        title="The tools and context the agent gets"
        onClick={onToggleContext}
      >
        <Icon name="agent" />
        <span class="agui-tool-btn-text">Context</span>
        {/* the space makes the visible text "Context 3", as the name says (WCAG 2.5.3) */}
        {gets > 0 && " "}
        {gets > 0 && <span class="agui-tool-btn-count">{gets}</span>}
      </button>
      <span class="agui-toolbar-gap" />
      <ClearConversation />
    </div>
  );
}

/** The Clear button (disabled with nothing to clear or no kernel), which asks first: in its place,
 * a group with the choices (clear, clear and reset the state, cancel) that Escape cancels. The
 * focus moves into the group when it opens and back to the button when it closes, or to the
 * message box after a clear (the button is then disabled: nothing to clear). */
function ClearConversation() {
  const { conn } = useView();
  useTopics("list", "ready");
  const [confirming, setConfirming] = useState(false);
  const cancel = useRef<HTMLButtonElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const wasConfirming = useRef(false);
  const cleared = useRef(false);

  useEffect(() => {
    if (confirming) cancel.current?.focus();
    else if (wasConfirming.current && cleared.current) focusMessageBox(opener.current);
    else if (wasConfirming.current) opener.current?.focus();
    wasConfirming.current = confirming;
    cleared.current = false;
  }, [confirming]);
  const clear = (resetState: boolean) => {
    conn.send(resetState ? { kind: "clear", resetState } : { kind: "clear" });
    cleared.current = true;
    setConfirming(false);
  };

  const empty = conn.mirror.messages().length === 0;
  const live = useLive();
  if (!confirming) {
    return (
      <button
        type="button"
        class="agui-tool-btn"
        ref={opener}
        aria-label="Clear conversation"
        title="Clear the conversation"
        disabled={empty || !live}
        onClick={() => setConfirming(true)}
      >
        <Icon name="trash" />
        <span class="agui-tool-btn-text">Clear</span>
      </button>
    );
  }
  return (
    <div
      class="agui-confirm"
      role="group"
      aria-label="Clear the conversation?"
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          setConfirming(false);
        }
      }}
    >
      <span class="agui-confirm-text">Clear the whole conversation? The shared state is kept.</span>
      <button type="button" class="agui-btn agui-btn-danger agui-btn-small" onClick={() => clear(false)}>
        Yes, clear
      </button>
      <button type="button" class="agui-btn agui-btn-danger agui-btn-small" onClick={() => clear(true)}>
        Clear and reset state
      </button>
      <button type="button" class="agui-btn agui-btn-small" ref={cancel} onClick={() => setConfirming(false)}>
        Cancel
      </button>
    </div>
  );
}
