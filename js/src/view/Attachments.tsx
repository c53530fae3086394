/** Attachments as the chat shows them: a thumbnail for an image, a chip (name, type, size) for
 * any other file; in a sent message, and in the composer before sending, where each can be removed. */
import { useEffect, useMemo } from "preact/hooks";
import { type AttachmentInfo, attachmentInfo, humanSize, mimeOf, showsAsImage } from "../attachments";

function Chip({ info }: { info: AttachmentInfo }) {
  const detail = [info.mimeType, info.size !== null ? humanSize(info.size) : ""].filter(Boolean).join(", ");
  return (
    <span class="agui-file-chip" title={detail ? `${info.name} (${detail})` : info.name}>
      <span class="agui-file-kind">{info.kind}</span>
      <span class="agui-file-name">{info.name}</span>
      {info.size !== null && <span class="agui-file-size">{humanSize(info.size)}</span>}
    </span>
  );
}

function Attachment({ info }: { info: AttachmentInfo }) {
  if (info.imageSrc === null) return <Chip info={info} />;
  return (
    <figure class="agui-thumb" title={info.size !== null ? `${info.name} (${humanSize(info.size)})` : info.name}>
      <img src={info.imageSrc} alt={info.name} loading="lazy" referrerpolicy="no-referrer" />
    </figure>
  );
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
          <Chip info={{ kind: mimeOf(file).split("/")[0] === "image" ? "image" : "file", name: file.name || "pasted file", mimeType: mimeOf(file), size: file.size, imageSrc: null }} />
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
  const name = file.name || "pasted file";
  const info: AttachmentInfo = { kind: mimeType.split("/")[0] === "image" ? "image" : "file", name, mimeType, size: file.size, imageSrc: url };
  return (
    <div class="agui-held" role="listitem">
      <Attachment info={info} />
      <button type="button" class="agui-btn agui-btn-quiet agui-held-remove" aria-label={`Remove ${name}`} title={`Remove ${name}`} disabled={disabled} onClick={onRemove}>
        ×
      </button>
    </div>
  );
}
