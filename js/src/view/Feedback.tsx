/** A thumbs up or down on a finished answer, with an optional comment (Streamlit's st.feedback,
 * Gradio's like button). The rating is the kernel's: it keeps it in the answer's metadata
 * (`agui_widget.feedback`) and every view shows it from there; this row only asks (`feedback`). */
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { widgetMark } from "../mirror/mirror";
import { isObject, type Message } from "../kernel/wire";
import { useView } from "./context";
import { useTrait } from "./hooks";
import { useLive } from "./KernelBanner";
import { isComposing } from "./keys";

export type Rating = "up" | "down";

/** The longest comment the kernel keeps (agui_widget/vocabulary/_feedback.py's MAX_COMMENT). */
export const MAX_COMMENT = 2000;

/** The rating an answer holds, as the kernel marked it. */
export function ratingOf(message: Message): { rating: Rating; comment: string } | null {
  const mark = widgetMark(message, "feedback");
  if (!isObject(mark) || (mark.rating !== "up" && mark.rating !== "down")) return null;
  return { rating: mark.rating, comment: typeof mark.comment === "string" ? mark.comment : "" };
}

const THUMB = "M2.5 7.5h2.5v6H2.5z M5 7.5l2.3-4.6c.9-.2 1.9.5 1.7 1.6L8.6 6.5h3.9a1 1 0 0 1 1 1.2l-.9 4.9a1 1 0 0 1-1 .9H5";

function Thumb({ down }: { down: boolean }) {
  return (
    <svg class="agui-icon" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <path d={THUMB} transform={down ? "rotate(180 8 8)" : undefined} />
    </svg>
  );
}

/** "Good answer" and "Bad answer" (toggle buttons: pressing the pressed one withdraws the
 * rating), then a box for a comment: Enter sends it, Escape closes it. */
export function Feedback({ message }: { message: Message }) {
  const { conn } = useView();
  const status = useTrait("status");
  const live = useLive();
  const given = ratingOf(message);
  const [open, setOpen] = useState(false);
  const rateButton = useRef<HTMLButtonElement>(null);
  // Rated while the agent answers, the answer could be replaced under it: the kernel waits too.
  const idle = live && (status === "idle" || status === "error");
  const rate = (rating: Rating, button: HTMLButtonElement) => {
    const withdrawn = given?.rating === rating;
    const request = withdrawn
      ? { kind: "feedback" as const, messageId: message.id, rating: null }
      : { kind: "feedback" as const, messageId: message.id, rating, comment: given?.comment || null };
    if (!conn.send(request)) return;
    rateButton.current = button;
    setOpen(!withdrawn);
  };
  const close = () => {
    setOpen(false);
    rateButton.current?.focus();
  };
  const rating = given?.rating ?? null;
  const hint = idle ? undefined : "Rate the answer once the agent has finished";
  return (
    <>
      <span class={`agui-feedback${rating ? " agui-feedback-rated" : ""}`} role="group" aria-label="Rate this answer">
        {(["up", "down"] as const).map((kind) => (
          <button
            key={kind}
            type="button"
            class="agui-action agui-feedback-button"
            data-rating={kind}
            aria-label={kind === "up" ? "Good answer" : "Bad answer"}
            aria-pressed={rating === kind}
            title={hint ?? (rating === kind ? "Withdraw the rating" : kind === "up" ? "Good answer" : "Bad answer")}
            disabled={!idle}
            onClick={(e) => rate(kind, e.currentTarget)}
          >
            <Thumb down={kind === "down"} />
          </button>
        ))}
      </span>
      {rating !== null && !open && given?.comment ? (
        <button
          type="button"
          class="agui-feedback-comment"
          aria-label={`Change the comment: ${given.comment}`}
          title="Change the comment"
          disabled={!idle}
          onClick={() => setOpen(true)}
        >
          “{given.comment}”
        </button>
      ) : null}
      {rating !== null && open && idle && (
        <CommentBox
          initial={given?.comment ?? ""}
          onSend={(comment) => {
            if (conn.send({ kind: "feedback", messageId: message.id, rating, comment: comment || null })) close();
          }}
          onClose={close}
        />
      )}
    </>
  );
}

function CommentBox({ initial, onSend, onClose }: { initial: string; onSend: (comment: string) => void; onClose: () => void }) {
  const box = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => {
    box.current?.focus({ preventScroll: true });
  }, []);
  const send = () => onSend((box.current?.value ?? "").trim());
  return (
    <span class="agui-feedback-box">
      <input
        ref={box}
        type="text"
        class="agui-input agui-feedback-input"
        aria-label="Comment on this answer (optional)"
        placeholder="Add a comment (optional): Enter sends, Escape closes"
        maxLength={MAX_COMMENT}
        defaultValue={initial}
        onKeyDown={(e) => {
          if (isComposing(e)) return;
          if (e.key === "Escape") {
            e.preventDefault();
            e.stopPropagation();
            onClose();
          } else if (e.key === "Enter") {
            e.preventDefault();
            send();
          }
        }}
      />
      <button type="button" class="agui-btn agui-btn-primary" aria-label="Send comment" onClick={send}>
        Send
      </button>
      <button type="button" class="agui-btn" aria-label="Close comment" onClick={onClose}>
        Close
      </button>
    </span>
  );
}
