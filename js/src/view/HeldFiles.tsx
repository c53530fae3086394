/** The files the composer holds for the next message. They join by paste, drag and drop, or the
 * Attach button, within the chat's `attachment_policy`: a file over a limit is refused with the
 * reason. Each shows a preview that can be removed before sending. */
import { type ComponentChildren, type RefObject, toChildArray } from "preact";
import { useRef, useState } from "preact/hooks";
import type { AttachmentPolicy } from "../kernel/wire";
import { refusal } from "../logic/attachments";
import { HeldAttachment } from "./Attachments";
import { Icon } from "./icons";

export type HeldFiles = {
  /** The files held, as rendered. */
  files: File[];
  /** What is held, as of the last event (a paste and a drop can come before the next render). */
  current: () => File[];
  /** Why the last files could not join, or why sending failed; "" when nothing is wrong. */
  problem: string;
  setProblem: (problem: string) => void;
  hold: (files: File[]) => void;
  /** Adds files, unless the policy refuses them (the problem says why). */
  add: (files: File[]) => void;
  /** Removes the file at `index`; the focus goes back to the message box. */
  remove: (index: number) => void;
};

export function useHeldFiles(policy: AttachmentPolicy, box: RefObject<HTMLTextAreaElement | null>): HeldFiles {
  const [files, setFiles] = useState<File[]>([]);
  const [problem, setProblem] = useState("");
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
  return { files, current: () => heldNow.current, problem, setProblem, hold, add, remove };
}

export type FileDrop = {
  /** Files being dragged over the composer. */
  dragging: boolean;
  onPaste: (e: ClipboardEvent) => void;
  onDragOver: (e: DragEvent) => void;
  onDragLeave: () => void;
  onDrop: (e: DragEvent) => void;
};

/** Files pasted into the message box or dropped on the composer, handed to `add`. */
export function useFileDrop(live: boolean, enabled: boolean, add: (files: File[]) => void): FileDrop {
  const [dragging, setDragging] = useState(false);
  const onPaste = (e: ClipboardEvent) => {
    const pasted = [...(e.clipboardData?.files ?? [])];
    if (pasted.length === 0 || !live) return;
    // A copied image often comes with its name or markup as text: the file is what was meant.
    if (!e.clipboardData?.getData("text/plain")) e.preventDefault();
    add(pasted);
  };
  const hasFiles = (e: DragEvent) => [...(e.dataTransfer?.types ?? [])].includes("Files");
  const onDragOver = (e: DragEvent) => {
    if (!hasFiles(e) || !live || !enabled) return;
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
  return { dragging, onPaste, onDragOver, onDragLeave: () => setDragging(false), onDrop };
}

type HeldListProps = { files: File[]; disabled: boolean; onRemove: (index: number) => void; children?: ComponentChildren };

/** The held files' previews, each with its Remove button, and after them `children` (the held
 * mentions' chips, ./Mentions.tsx); nothing when none is held. */
export function HeldList({ files, disabled, onRemove, children }: HeldListProps) {
  const others = toChildArray(children).length > 0;
  if (files.length === 0 && !others) return null;
  return (
    <div class="agui-held-list" role="list" aria-label="Attached to the next message">
      {files.map((file, i) => (
        <HeldAttachment key={`${i}:${file.name}:${file.size}`} file={file} disabled={disabled} onRemove={() => onRemove(i)} />
      ))}
      {children}
    </div>
  );
}

type AttachProps = { policy: AttachmentPolicy; live: boolean; add: (files: File[]) => void; box: RefObject<HTMLTextAreaElement | null> };

/** The Attach button and the hidden file input it opens; nothing when the policy takes no files. */
export function AttachButton({ policy, live, add, box }: AttachProps) {
  const picker = useRef<HTMLInputElement>(null);
  if (!policy.enabled) return null;
  return (
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
  );
}
