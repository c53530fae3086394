/**
 * The shared state as a tree: objects and arrays fold, long strings are cut with a button to
 * show all, and a leaf value can be edited in place: a boolean with a switch, a number in a
 * number box, anything else as text, JSON when it parses (click or Enter opens the box; Enter
 * saves, Escape cancels). A saved edit is sent as a `state_edit` JSON Patch (`replace` at the
 * leaf's path); the tree shows the kernel's state, so the edit appears when the kernel's patch
 * comes back.
 *
 * The mirror changes state copy-on-write, so an unchanged subtree keeps its identity and its
 * node does not re-render when another part changes.
 */
import { useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { useView } from "./context";
import { useTopics } from "./hooks";
import { pure } from "./pure";
import { useLive } from "./KernelBanner";

/** Nodes shown per object or array before a "show more" button. */
const CHILDREN_SHOWN = 100;
/** Strings longer than this are cut. */
const STRING_SHOWN = 120;
/** Containers open by default down to this depth. */
const OPEN_DEPTH = 2;

/** RFC 6901: "~" and "/" in a key. */
export function pointerToken(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** The value an edit box's text stands for: JSON when it parses, else the text itself. */
export function parseEdit(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The text an edit box starts with: a string as it is, anything else as JSON. */
export function editText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function sameJson(a: unknown, b: unknown): boolean {
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

type Send = (path: string, value: unknown) => void;

export function StatePanel() {
  const { conn } = useView();
  useTopics("state", "ready");
  const state = conn.mirror.state;
  // One function for the panel's life, so unchanged nodes (pure) skip re-rendering.
  const send = useMemo<Send>(() => (path, value) => conn.send({ kind: "state_edit", patch: [{ op: "replace", path, value }] }), [conn]);
  const container = typeof state === "object" && state !== null;
  return (
    <section class="agui-panel agui-state" aria-label="Shared state">
      <div class="agui-panel-head">
        <span class="agui-panel-title">Shared state</span>
        <span class="agui-panel-note">click a value to edit it</span>
      </div>
      <div class="agui-panel-body">
        {!container ? (
          <Leaf name="state" path="" label="state" value={state ?? null} send={send} />
        ) : Object.keys(state).length === 0 ? (
          <div class="agui-empty">The state is empty.</div>
        ) : (
          <ul class="agui-tree" role="list">
            <Children value={state as object} path="" label="" depth={0} send={send} />
          </ul>
        )}
      </div>
    </section>
  );
}

function Children({ value, path, label, depth, send }: { value: object; path: string; label: string; depth: number; send: Send }) {
  const [limit, setLimit] = useState(CHILDREN_SHOWN);
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  return (
    <>
      {entries.slice(0, limit).map(([key, child]) => (
        <TreeNode
          key={key}
          name={key}
          path={`${path}/${pointerToken(key)}`}
          label={label ? `${label}/${key}` : key}
          value={child}
          depth={depth}
          send={send}
        />
      ))}
      {entries.length > limit && (
        <li>
          <button type="button" class="agui-btn agui-btn-quiet agui-btn-small" onClick={() => setLimit(limit + CHILDREN_SHOWN)}>
            Show {Math.min(CHILDREN_SHOWN, entries.length - limit)} more of {entries.length - limit}
          </button>
        </li>
      )}
    </>
  );
}

type NodeProps = { name: string; path: string; label: string; value: unknown; depth: number; send: Send };

const TreeNode = pure(function TreeNode({ name, path, label, value, depth, send }: NodeProps) {
  const [open, setOpen] = useState(depth < OPEN_DEPTH);
  const container = typeof value === "object" && value !== null && Object.keys(value).length > 0;
  if (!container) {
    return (
      <li class="agui-tree-item">
        <Leaf name={name} path={path} label={label} value={value} send={send} />
      </li>
    );
  }
  const isArray = Array.isArray(value);
  const size = isArray ? (value as unknown[]).length : Object.keys(value as object).length;
  const summary = isArray ? `[${size} ${size === 1 ? "item" : "items"}]` : `{${size} ${size === 1 ? "key" : "keys"}}`;
  // The name holds what the button shows (WCAG 2.5.3), after the full path it stands for.
  return (
    <li class="agui-tree-item">
      <button type="button" class="agui-tree-toggle" aria-expanded={open} aria-label={`${open ? "Collapse" : "Expand"} ${label} ${summary}`} onClick={() => setOpen(!open)}>
        <span class="agui-chevron" aria-hidden="true" />
        <span class="agui-tree-key">{name}</span>
        <span class="agui-tree-summary">{summary}</span>
      </button>
      {open && (
        <ul class="agui-tree" role="list">
          <Children value={value as object} path={path} label={label} depth={depth + 1} send={send} />
        </ul>
      )}
    </li>
  );
});

type LeafProps = { name: string; path: string; label: string; value: unknown; send: Send };

function Leaf({ name, path, label, value, send }: LeafProps) {
  // Without a kernel an edit could only be lost: values stay readable, not editable.
  const live = useLive();
  const [editing, setEditing] = useState(false);
  const [full, setFull] = useState(false);
  const valueButton = useRef<HTMLButtonElement>(null);
  // After Enter or Escape the value gets the focus back (not after a click elsewhere).
  const refocus = useRef(false);
  useLayoutEffect(() => {
    if (!editing && refocus.current) {
      refocus.current = false;
      valueButton.current?.focus();
    }
  }, [editing]);
  const key = (
    <span class="agui-tree-key">
      {name}
      <span aria-hidden="true">:</span>
    </span>
  );
  if (typeof value === "boolean") {
    return (
      <div class="agui-leaf">
        {key}
        <BooleanSwitch label={label} value={value} disabled={!live} onChange={(next) => send(path, next)} />
      </div>
    );
  }
  const kind = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  let shown = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  const long = typeof value === "string" && value.length > STRING_SHOWN;
  if (long && !full) shown = `${JSON.stringify((value as string).slice(0, STRING_SHOWN)).slice(0, -1)}…"`;
  return (
    <div class="agui-leaf">
      {key}
      {editing && live ? (
        <LeafEditor
          label={label}
          value={value}
          onDone={(next, byKey) => {
            refocus.current = byKey;
            setEditing(false);
            if (next !== undefined && !sameJson(next.value, value)) send(path, next.value);
          }}
        />
      ) : (
        <button ref={valueButton} type="button" class={`agui-leaf-value agui-v-${kind}`} aria-label={`Edit ${label}: ${shown}`} title="Edit" disabled={!live} onClick={() => setEditing(true)}>
          {shown}
        </button>
      )}
      {long && !editing && (
        <button type="button" class="agui-btn agui-btn-quiet agui-btn-small" aria-expanded={full} onClick={() => setFull(!full)}>
          {full ? "less" : `all ${(value as string).length} characters`}
        </button>
      )}
    </div>
  );
}

/** How long (ms) a toggled switch shows its new value before the kernel's state confirms it;
 * without a confirmation (the kernel refused the edit) it shows the kernel's value again. */
const UNCONFIRMED_MS = 3000;

/** A boolean leaf: a switch that sends the flipped value at once. */
function BooleanSwitch({ label, value, disabled, onChange }: { label: string; value: boolean; disabled: boolean; onChange: (next: boolean) => void }) {
  const [pending, setPending] = useState<boolean | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // The kernel's value arrived (or changed from elsewhere): it is the truth again.
  useLayoutEffect(() => {
    setPending(null);
    clearTimeout(timer.current);
  }, [value]);
  useLayoutEffect(() => () => clearTimeout(timer.current), []);
  const shown = pending ?? value;
  return (
    <label class="agui-switch">
      <input
        type="checkbox"
        role="switch"
        class="agui-check"
        aria-label={label}
        disabled={disabled}
        checked={shown}
        onChange={(e) => {
          const next = e.currentTarget.checked;
          setPending(next);
          clearTimeout(timer.current);
          timer.current = setTimeout(() => setPending(null), UNCONFIRMED_MS);
          onChange(next);
        }}
      />
      <span class="agui-v-boolean" aria-hidden="true">
        {String(shown)}
      </span>
    </label>
  );
}

type EditorProps = { label: string; value: unknown; onDone: (next: { value: unknown } | undefined, byKey: boolean) => void };

/** The box a leaf is edited in: a number input for a number, free text (JSON or a string) for
 * anything else. Enter saves, Escape cancels, leaving it cancels. */
function LeafEditor({ label, value, onDone }: EditorProps) {
  const box = useRef<HTMLInputElement>(null);
  const finished = useRef(false);
  const [invalid, setInvalid] = useState(false);
  const numeric = typeof value === "number";
  useLayoutEffect(() => {
    box.current?.focus();
    box.current?.select();
  }, []);
  const finish = (next: { value: unknown } | undefined, byKey: boolean) => {
    if (finished.current) return;
    finished.current = true;
    onDone(next, byKey);
  };
  const read = (input: HTMLInputElement): { value: unknown } | null => {
    if (!numeric) return { value: parseEdit(input.value) };
    // An empty or malformed number box reads as "" (and NaN): nothing to save yet.
    const number = input.value.trim() === "" ? Number.NaN : Number(input.value);
    return Number.isFinite(number) ? { value: number } : null;
  };
  const common = {
    ref: box,
    class: "agui-input agui-leaf-edit",
    "aria-label": `New value for ${label}`,
    "aria-invalid": invalid || undefined,
    onInput: () => {
      if (invalid) setInvalid(false);
    },
    onKeyDown: (e: KeyboardEvent) => {
      const input = e.currentTarget as HTMLInputElement;
      if (e.key === "Enter") {
        e.preventDefault();
        const next = read(input);
        if (next === null) setInvalid(true);
        else finish(next, true);
      } else if (e.key === "Escape") {
        e.preventDefault();
        finish(undefined, true);
      }
    },
    onBlur: () => finish(undefined, false),
  };
  return numeric ? <input type="number" step="any" defaultValue={String(value)} {...common} /> : <input type="text" defaultValue={editText(value)} {...common} />;
}
