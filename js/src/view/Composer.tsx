/** The input: a multi-line box (Enter sends, Shift+Enter is a newline, Escape leaves it) and one
 * button that is "Send" when idle and "Stop" while a run is active. Sending during a run queues
 * the message. When the kernel is gone the box keeps what was typed, read-only (it can still be
 * selected and copied), under a banner that says what happened. */
import { useRef, useState } from "preact/hooks";
import { useView } from "./context";
import { useTrait } from "./hooks";
import { KernelBanner, useLive } from "./KernelBanner";
import { insertLineBreak, isComposing } from "./keys";

export function Composer({ onSent }: { onSent?: () => void }) {
  const { conn, follower } = useView();
  const status = useTrait("status");
  const live = useLive();
  const [text, setText] = useState("");
  const box = useRef<HTMLTextAreaElement>(null);
  const busy = live && (status === "running" || status === "waiting");
  const bannerId = `agui-kernel-${conn.viewId}`;

  const send = () => {
    // Read the box itself: a key press can arrive before the state update of the last input.
    const value = (box.current?.value ?? text).trim();
    if (!value || !live) {
      box.current?.focus();
      return;
    }
    // Not sent (the kernel went away just now): the text stays for the user.
    if (!conn.send({ kind: "send", text: value })) return;
    setText("");
    if (box.current) box.current.value = "";
    // The answer to this message is what the user wants to see next.
    follower.follow();
    onSent?.();
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (isComposing(e)) return;
    if (e.key === "Escape") {
      // Out of the box, so the notebook's own keys work again from here.
      e.preventDefault();
      box.current?.blur();
      return;
    }
    if (e.key !== "Enter") return;
    if (e.shiftKey) {
      if (box.current && live) insertLineBreak(e, box.current);
      return;
    }
    e.preventDefault();
    send();
  };

  const placeholder = !live
    ? "Disconnected from the kernel"
    : busy
      ? "Queue a message (Enter), or Stop the run"
      : "Message (Enter to send, Shift+Enter for a new line)";

  return (
    <>
      <KernelBanner id={bannerId} />
      <div class="agui-composer" data-live={live ? undefined : "false"}>
        <textarea
          ref={box}
          class="agui-input agui-message-box"
          aria-label="Message"
          aria-describedby={live ? undefined : bannerId}
          readOnly={!live}
          rows={2}
          placeholder={placeholder}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
          onKeyDown={onKeyDown}
        />
        {busy ? (
          <button type="button" class="agui-btn agui-btn-stop" onClick={() => conn.send({ kind: "stop" })}>
            Stop
          </button>
        ) : (
          <button type="button" class="agui-btn agui-btn-primary" disabled={!live} onClick={send}>
            Send
          </button>
        )}
      </div>
    </>
  );
}
