/** The input: a multi-line box (Enter sends, Shift+Enter is a newline) and one button that is
 * "Send" when idle and "Stop" while a run is active. Sending during a run queues the message. */
import { useRef, useState } from "preact/hooks";
import { useView } from "./context";
import { useTrait } from "./hooks";
import { insertLineBreak, isComposing } from "./keys";

export function Composer({ onSent }: { onSent?: () => void }) {
  const { conn } = useView();
  const status = useTrait("status");
  const [text, setText] = useState("");
  const box = useRef<HTMLTextAreaElement>(null);
  const busy = status === "running" || status === "waiting";

  const send = () => {
    // Read the box itself: a key press can arrive before the state update of the last input.
    const value = (box.current?.value ?? text).trim();
    if (!value) {
      box.current?.focus();
      return;
    }
    conn.send({ kind: "send", text: value });
    setText("");
    if (box.current) box.current.value = "";
    onSent?.();
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== "Enter" || isComposing(e)) return;
    if (e.shiftKey) {
      if (box.current) insertLineBreak(e, box.current);
      return;
    }
    e.preventDefault();
    send();
  };

  return (
    <div class="agui-composer">
      <textarea
        ref={box}
        class="agui-input agui-message-box"
        aria-label="Message"
        rows={2}
        placeholder={busy ? "Queue a message (Enter), or Stop the run" : "Message (Enter to send, Shift+Enter for a new line)"}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={onKeyDown}
      />
      {busy ? (
        <button type="button" class="agui-btn agui-btn-stop" onClick={() => conn.send({ kind: "stop" })}>
          Stop
        </button>
      ) : (
        <button type="button" class="agui-btn agui-btn-primary" onClick={send}>
          Send
        </button>
      )}
    </div>
  );
}
