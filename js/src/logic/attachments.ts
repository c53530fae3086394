/**
 * Attachments: files a user adds to a message (pasted, dropped or picked), checked against the
 * chat's `attachment_policy` and sent as AG-UI 1.0 media content parts. The kernel checks them
 * again; checking here first gives the user the reason at once, before anything travels.
 */
import type { AttachmentPolicy, MediaPart } from "../kernel/wire";

/** `image/png` is taken by `image/*`, `image/png` or `*\/*`; an empty list takes anything. */
export function accepts(policy: AttachmentPolicy, mimeType: string): boolean {
  if (policy.accept.length === 0) return true;
  const mime = mimeType.toLowerCase();
  const family = `${mime.split("/")[0]}/*`;
  return policy.accept.some((pattern) => [mime, family, "*/*"].includes(pattern.toLowerCase()));
}

export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** What a file is taken as when the browser names no type. */
export function mimeOf(file: { type: string; name: string }): string {
  if (file.type) return file.type;
  const ext = file.name.toLowerCase().split(".").pop() ?? "";
  const known: Record<string, string> = { md: "text/markdown", csv: "text/csv", txt: "text/plain", json: "application/json", pdf: "application/pdf" };
  return known[ext] ?? "application/octet-stream";
}

type FileLike = { name: string; size: number; type: string };

/**
 * Why `adding` cannot join the `held` files, or null when they all fit: the first file over a
 * limit is named, with the limit, so the user knows what to change.
 */
export function refusal(policy: AttachmentPolicy, held: readonly FileLike[], adding: readonly FileLike[]): string | null {
  if (adding.length === 0) return null;
  if (!policy.enabled) return "This chat takes no attachments.";
  if (held.length + adding.length > policy.maxFiles) {
    return `This chat takes up to ${policy.maxFiles} attachment${policy.maxFiles === 1 ? "" : "s"} per message.`;
  }
  let total = held.reduce((sum, f) => sum + f.size, 0);
  for (const file of adding) {
    const name = file.name || "The pasted file";
    const mime = mimeOf(file);
    if (!accepts(policy, mime)) return `${name}: ${mime} is not a type this chat takes (${policy.accept.join(", ")}).`;
    if (file.size > policy.maxBytes) return `${name} is ${humanSize(file.size)}; this chat takes files up to ${humanSize(policy.maxBytes)}.`;
    total += file.size;
  }
  if (total > policy.maxTotalBytes) return `The attachments add up to ${humanSize(total)}; this chat takes up to ${humanSize(policy.maxTotalBytes)} per message.`;
  return null;
}

export function mediaKind(mimeType: string): "image" | "audio" | "video" | "document" {
  const family = mimeType.split("/")[0]?.toLowerCase();
  return family === "image" || family === "audio" || family === "video" ? family : "document";
}

/** Formats a chip names by what a user calls them, rather than by the part's kind. */
const FORMAT_LABELS: Record<string, string> = {
  "text/plain": "text",
  "text/markdown": "markdown",
  "text/csv": "csv",
  "application/json": "json",
  "application/pdf": "pdf",
};

/**
 * What a file's chip calls its kind, from its MIME type (the part's kind when it names none):
 * "image", "audio", "video", a known format ("text", "pdf", "json"…), other text "text", else
 * "file". One rule for a file waiting in the composer and the same file once sent.
 */
export function kindLabel(mimeType: string, kind = ""): string {
  const mime = (mimeType.split(";")[0] ?? "").trim().toLowerCase();
  const family = mime ? mediaKind(mime) : kind;
  if (family === "image" || family === "audio" || family === "video") return family;
  return FORMAT_LABELS[mime] ?? (mime.startsWith("text/") ? "text" : "file");
}

/** A file as the content part a `send` request carries (its bytes inline, as base64). */
export async function partOf(file: File): Promise<MediaPart> {
  const dataUrl = await new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error(`could not read ${file.name}`));
    reader.readAsDataURL(file);
  });
  const mimeType = mimeOf(file);
  const value = dataUrl.slice(dataUrl.indexOf(",") + 1);
  const part = { type: mediaKind(mimeType), source: { type: "data" as const, value, mimeType } };
  return (file.name ? { ...part, metadata: { filename: file.name } } : part) as MediaPart;
}

/** What the transcript shows of a media part. */
export type AttachmentInfo = {
  kind: string;
  name: string;
  mimeType: string;
  /** decoded bytes of an inline part; null for a url */
  size: number | null;
  /** what an `<img>` may load: an inline image's data URL or an http(s) image URL; else null */
  imageSrc: string | null;
  /** context rather than a file (`metadata.agui_widget.context`: "variable", "error", "cell"...); else null */
  context: string | null;
};

/** Raster images only: an SVG file could carry script, so it shows as a chip. */
const SHOWN_IMAGES = /^image\/(png|jpeg|gif|webp)$/i;

export const showsAsImage = (mimeType: string) => SHOWN_IMAGES.test(mimeType);

export function attachmentInfo(part: unknown): AttachmentInfo | null {
  if (!part || typeof part !== "object") return null;
  const p = part as { type?: unknown; source?: unknown; metadata?: unknown };
  if (typeof p.type !== "string" || p.type === "text") return null;
  const source = (p.source && typeof p.source === "object" ? p.source : {}) as { type?: unknown; value?: unknown; mimeType?: unknown };
  const metadata = (p.metadata && typeof p.metadata === "object" ? p.metadata : {}) as { filename?: unknown; agui_widget?: unknown };
  const ours = (metadata.agui_widget && typeof metadata.agui_widget === "object" ? metadata.agui_widget : {}) as { context?: unknown };
  const context = typeof ours.context === "string" && ours.context !== "" ? ours.context : null;
  const mimeType = typeof source.mimeType === "string" ? source.mimeType : "";
  const value = typeof source.value === "string" ? source.value : "";
  const inline = source.type === "data";
  const named = typeof metadata.filename === "string" && metadata.filename !== "" ? metadata.filename : "";
  const fromUrl = !inline && value ? (value.split(/[?#]/)[0]?.split("/").pop() ?? "") : "";
  let imageSrc: string | null = null;
  if (p.type === "image") {
    if (inline && SHOWN_IMAGES.test(mimeType) && /^[A-Za-z0-9+/=\s]*$/.test(value)) imageSrc = `data:${mimeType};base64,${value}`;
    else if (source.type === "url" && /^https?:\/\//i.test(value)) imageSrc = value;
  }
  return {
    kind: p.type,
    name: named || fromUrl || `${p.type}`,
    mimeType,
    size: inline ? Math.floor((value.replace(/=+$/, "").length * 3) / 4) : null,
    imageSrc,
    context,
  };
}
