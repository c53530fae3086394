/** The input: a multi-line box (Enter sends, Shift+Enter is a newline, Escape leaves it) and one
 * button that is "Send" when idle and "Stop" while a run is active. Sending during a run queues
 * the message. A sent message shows in the transcript at once, waiting for the kernel, and comes
 * back into the box if the kernel never shows it (../kernel/outbox.ts). When the kernel is gone the box
 * keeps what was typed, read-only (it can still be selected and copied), under a banner that says
 * what happened.
 *
 * Files join the message by paste, drag and drop, or the Attach button, within the chat's
 * `attachment_policy`; each shows a preview that can be removed before sending, and a file over a
 * limit is refused with the reason. */
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { partOf, refusal } from "../logic/attachments";
import { HeldAttachment } from "./Attachments";
import { useView } from "./context";
import { useTrait } from "./hooks";
import { Icon } from "./icons";
import { KernelBanner, useLive } from "./KernelBanner";
import { insertLineBreak, isComposing, undoOrRedo } from "./keys";

export function Composer({ onSent }: { onSent?: () => void }) {
  const { conn, follower } = useView();
  const status = useTrait("status");
  const live = useLive();
  const policy = useTrait("attachment_policy");
  const [text, setText] = useState("");
  const [files, setFiles] = useState<File[]>([]);
  const [problem, setProblem] = useState("");
  const [dragging, setDragging] = useState(false);
  const sending = useRef(false);
  const box = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  const busy = live && (status === "running" || status === "waiting");
  const bannerId = `agui-kernel-${conn.viewId}`;
  const problemId = `agui-attach-problem-${conn.viewId}`;

  // What is held, as of the last event (a paste and a drop can come before the next render).
  const heldNow = useRef<File[]>([]);
  const hold = (next: File[]) => {
    heldNow.current = next;
    setFiles(next);
  };
  const add = (adding: File[]) => {
    if (adding.length === 0) return;
    const why = refusal(policy, heldNow.current, adding);
    setProblem(why ?? "");
    if (why === null) hold([...heldNow.current, ...adding]);
  };
  const remove = (index: number) => {
    hold(heldNow.current.filter((_, i) => i !== index));
    setProblem("");
    box.current?.focus();
  };

  const send = async () => {
    // Read the box itself: a key press can arrive before the state update of the last input.
    const value = (box.current?.value ?? text).trim();
    const files = heldNow.current;
    if ((!value && files.length === 0) || !live || sending.current) {
      box.current?.focus();
      return;
    }
    sending.current = true;
    try {
      // No await without files: Enter sends before anything else can happen.
      const attachments = files.length > 0 ? await Promise.all(files.map(partOf)) : [];
      // Not sent (the kernel went away just now): the text and the files stay for the user.
      if (!conn.sendMessage(value, files, attachments)) return;
    } catch (error) {
      setProblem(`Could not read a file: ${String(error)}`);
      return;
    } finally {
      sending.current = false;
    }
    setText("");
    hold([]);
    setProblem("");
    if (box.current) box.current.value = "";
    // The answer to this message is what the user wants to see next.
    follower.follow();
    onSent?.();
  };

  // A message the kernel never showed comes back here, before what was typed since.
  useLayoutEffect(() => {
    const restore = () => {
      const back = conn.outbox.takeReturned();
      if (back.length === 0) return;
      const typed = box.current?.value ?? "";
      const restored = [...back.map((m) => m.text), typed].filter((t) => t.trim() !== "").join("\n\n");
      setText(restored);
      if (box.current) box.current.value = restored;
      const files = back.flatMap((m) => m.files);
      if (files.length > 0) hold([...files, ...heldNow.current]);
    };
    restore();
    return conn.outbox.subscribe(restore);
  }, [conn]);

  const onPaste = (e: ClipboardEvent) => {
    const pasted = [...(e.clipboardData?.files ?? [])];
    if (pasted.length === 0 || !live) return;
    // A copied image often comes with its name or markup as text: the file is what was meant.
    if (!e.clipboardData?.getData("text/plain")) e.preventDefault();
    add(pasted);
  };
  const hasFiles = (e: DragEvent) => [...(e.dataTransfer?.types ?? [])].includes("Files");
  const onDragOver = (e: DragEvent) => {
    if (!hasFiles(e) || !live || !policy.enabled) return;
    // Ours: neither the notebook nor the browser takes the drop.
    e.preventDefault();
    e.stopPropagation();
    if (e.dataTransfer) e.dataTransfer.dropEffect = "copy";
    setDragging(true);
  };
  const onDrop = (e: DragEvent) => {
    setDragging(false);
    if (!hasFiles(e) || !live) return;
    e.preventDefault();
    e.stopPropagation();
    add([...(e.dataTransfer?.files ?? [])]);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (isComposing(e) || undoOrRedo(e)) return;
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
    void send();
  };

  const placeholder = !live
    ? "Disconnected from the kernel"
    : busy
      ? "Queue a message (Enter), or Stop the run"
      : "Message (Enter to send, Shift+Enter for a new line)";

  return (
    <>
      <KernelBanner id={bannerId} />
      {files.length > 0 && (
        <div class="agui-held-list" role="list" aria-label="Attached to the next message">
          {files.map((file, i) => (
            <HeldAttachment key={`${i}:${file.name}:${file.size}`} file={file} disabled={!live} onRemove={() => remove(i)} />
          ))}
        </div>
      )}
      {problem !== "" && (
        <div class="agui-attach-problem" id={problemId} role="alert">
          {problem}
        </div>
      )}
      <div
        class="agui-composer"
        data-live={live ? undefined : "false"}
        data-dragging={dragging ? "" : undefined}
        onDragOver={onDragOver}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        {policy.enabled && (
          <>
            <button
              type="button"
              class="agui-btn agui-btn-quiet agui-attach"
              aria-label="Attach files"
              title={`Attach files (or paste or drop them here; up to ${policy.maxFiles}, each up to ${Math.round(policy.maxBytes / 1048576)} MB)`}
              disabled={!live}
              onClick={() => picker.current?.click()}
            >
              <Icon name="clip" />
            </button>
            <input
              ref={picker}
              type="file"
              multiple
              hidden
              tabIndex={-1}
              accept={policy.accept.join(",")}
              onChange={(e) => {
                add([...(e.currentTarget.files ?? [])]);
                e.currentTarget.value = ""; // the same file can be picked again
                box.current?.focus();
              }}
            />
          </>
        )}
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
          onPaste={onPaste}
        />
        {busy ? (
          <button type="button" class="agui-btn agui-btn-stop" onClick={() => conn.send({ kind: "stop" })}>
            Stop
          </button>
        ) : (
          <button type="button" class="agui-btn agui-btn-primary" disabled={!live} onClick={() => void send()}>
            Send
          </button>
        )}
      </div>
    </>
  );
}
