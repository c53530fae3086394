/** Attachments as the chat shows them: a thumbnail and its file name for an image (opened full
 * size on a click, or Enter or Space), a chip (kind, name, size) for any other file; in a sent
 * message, and in the composer before sending, where each can be removed. */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { type AttachmentInfo, attachmentInfo, humanSize, kindLabel, mediaKind, mimeOf, showsAsImage } from "../logic/attachments";
import { ImageViewer } from "./ImageViewer";

function Chip({ info }: { info: AttachmentInfo }) {
  const detail = [info.mimeType, info.size !== null ? humanSize(info.size) : ""].filter(Boolean).join(", ");
  return (
    <span class={info.context !== null ? "agui-file-chip agui-context-chip" : "agui-file-chip"} title={detail ? `${info.name} (${detail})` : info.name}>
      {/* context (a variable's summary, an error) is named as such, as it was in the message box */}
      <span class="agui-file-kind">{info.context ?? kindLabel(info.mimeType, info.kind)}</span>
      <span class="agui-file-name">{info.name}</span>
      {info.size !== null && <span class="agui-file-size">{humanSize(info.size)}</span>}
    </span>
  );
}

/** An image: its thumbnail, a button that opens it full size, and its name under it. */
function Thumbnail({ info, src }: { info: AttachmentInfo; src: string }) {
  const [open, setOpen] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const size = info.size !== null ? ` (${humanSize(info.size)})` : "";
  return (
    <figure class="agui-thumb">
      <button type="button" class="agui-thumb-open" ref={opener} aria-haspopup="dialog" title={`Open ${info.name} full size${size}`} onClick={() => setOpen(true)}>
        <img src={src} alt={info.name} loading="lazy" referrerpolicy="no-referrer" />
      </button>
      {/* the button already says the name (its image's alt): this is for the eye */}
      <figcaption class="agui-thumb-name" aria-hidden="true">
        {info.name}
      </figcaption>
      {open && <ImageViewer src={src} name={info.name} opener={opener} onClose={() => setOpen(false)} />}
    </figure>
  );
}

function Attachment({ info }: { info: AttachmentInfo }) {
  return info.imageSrc === null ? <Chip info={info} /> : <Thumbnail info={info} src={info.imageSrc} />;
}

/** How a file not yet sent shows: as the part it will be. */
function infoOfFile(file: File, imageSrc: string | null): AttachmentInfo {
  const mimeType = mimeOf(file);
  return { kind: mediaKind(mimeType), name: file.name || "pasted file", mimeType, size: file.size, imageSrc, context: null };
}

/** The media parts of a user message. */
export function MessageAttachments({ content }: { content: unknown }) {
  if (!Array.isArray(content)) return null;
  const shown = content.map(attachmentInfo).filter((info): info is AttachmentInfo => info !== null);
  if (shown.length === 0) return null;
  return (
    <div class="agui-attachments" role="list" aria-label="Attachments">
      {shown.map((info, i) => (
        <div role="listitem" key={i}>
          <Attachment info={info} />
        </div>
      ))}
    </div>
  );
}

/** The files of a message on its way to the kernel. */
export function OutgoingAttachments({ files }: { files: readonly File[] }) {
  if (files.length === 0) return null;
  return (
    <div class="agui-attachments" role="list" aria-label="Attachments">
      {files.map((file, i) => (
        <div role="listitem" key={i}>
          <Chip info={infoOfFile(file, null)} />
        </div>
      ))}
    </div>
  );
}

/** A file waiting in the composer: its preview and a way to take it out again. */
export function HeldAttachment({ file, onRemove, disabled }: { file: File; onRemove: () => void; disabled: boolean }) {
  const mimeType = mimeOf(file);
  const url = useMemo(() => {
    if (!showsAsImage(mimeType)) return null;
    try {
      return URL.createObjectURL(file);
    } catch {
      return null; // no object URLs here: the file shows as a chip
    }
  }, [file]);
  useEffect(() => () => (url ? URL.revokeObjectURL(url) : undefined), [url]);
  const info = infoOfFile(file, url);
  const name = info.name;
  return (
    <div class="agui-held" role="listitem">
      <Attachment info={info} />
      <button type="button" class="agui-btn agui-btn-quiet agui-held-remove" aria-label={`Remove ${name}`} title={`Remove ${name}`} disabled={disabled} onClick={onRemove}>
        ×
      </button>
    </div>
  );
}
