/**
 * A fingerprint of a JSON value that the view and the kernel compute alike
 * (agui_widget/chat/_fingerprint.py is the other half): the CRC-32 of the value's canonical JSON, i.e.
 * `JSON.stringify` with object keys sorted by UTF-16 code units, encoded as UTF-8. The end-of-run
 * `check` carries the kernel's fingerprint of the shared state; a view whose copy differs asks
 * for a snapshot.
 */

/** `value` as JSON with every object's keys sorted (as `Array.prototype.sort` orders strings). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(",")}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`;
}

let table: Uint32Array | undefined;

function crcTable(): Uint32Array {
  if (table) return table;
  table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

/** CRC-32 (as zlib computes it) of `bytes`. */
export function crc32(bytes: Uint8Array): number {
  const t = crcTable();
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = (t[(crc ^ (bytes[i] as number)) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const seen = new WeakMap<object, number>();

/** The fingerprint of `value`; remembered per object, since the mirror replaces state, never mutates it. */
export function fingerprint(value: unknown): number {
  const key = value !== null && typeof value === "object" ? value : undefined;
  const known = key ? seen.get(key) : undefined;
  if (known !== undefined) return known;
  const result = crc32(new TextEncoder().encode(canonicalJson(value)));
  if (key) seen.set(key, result);
  return result;
}
