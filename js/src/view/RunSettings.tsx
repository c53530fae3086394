/** The run settings picker (`AgentChat(settings=...)`): a row above the message box with a select
 * for each list of choices, a slider (its value shown) for each range, a switch for each bool.
 *
 * The kernel decides: a change sends a `settings` request, and each control shows the
 * `setting_values` trait, so a value the kernel refuses snaps back (the refusal is a notice; a
 * slider snaps back once it loses the focus, since it follows the keys while it has it). A
 * change during a run applies to the next run; nothing here waits for the run to end. */
import { useEffect, useRef, useState } from "preact/hooks";
import type { RunSetting } from "../kernel/generated/wire";
import { useView } from "./context";
import { useTrait } from "./hooks";
import { useLive } from "./KernelBanner";

type Value = string | boolean | number;

export function RunSettings() {
  const { conn } = useView();
  const specs = useTrait("settings");
  const values = useTrait("setting_values");
  const live = useLive();
  const names = Object.keys(specs).filter((name) => specs[name] !== undefined);
  if (names.length === 0) return null;
  const change = (name: string, value: Value) => {
    if (values[name] !== value) conn.send({ kind: "settings", values: { [name]: value } });
  };
  return (
    <div class="agui-settings" role="group" aria-label="Run settings">
      {names.map((name) => (
        <Setting key={name} name={name} spec={specs[name] as RunSetting} value={values[name]} disabled={!live} onChange={change} />
      ))}
    </div>
  );
}

type SettingProps = {
  name: string;
  spec: RunSetting;
  value: Value | undefined;
  disabled: boolean;
  onChange: (name: string, value: Value) => void;
};

function Setting({ name, spec, value, disabled, onChange }: SettingProps) {
  const current = value ?? spec.default;
  if (spec.kind === "switch") {
    return (
      <label class="agui-setting">
        <input
          type="checkbox"
          role="switch"
          class="agui-setting-toggle"
          checked={current === true}
          aria-checked={current === true}
          disabled={disabled}
          onChange={(event) => {
            const box = event.currentTarget;
            const wanted = box.checked;
            box.checked = current === true; // shown once the kernel has taken it (the trait changes)
            onChange(name, wanted);
          }}
        />
        <span class="agui-setting-name">{name}</span>
      </label>
    );
  }
  if (spec.kind === "choice") {
    const choices = spec.choices ?? [];
    const index = choices.findIndex((choice) => choice === current);
    return (
      <label class="agui-setting">
        <span class="agui-setting-name">{name}</span>
        <select
          class="agui-setting-select"
          value={String(Math.max(index, 0))}
          disabled={disabled}
          onChange={(event) => {
            const select = event.currentTarget;
            const picked = choices[Number(select.value)];
            select.value = String(Math.max(index, 0));
            if (picked !== undefined) onChange(name, picked);
          }}
        >
          {choices.map((choice, i) => (
            <option key={i} value={String(i)}>
              {String(choice)}
            </option>
          ))}
        </select>
      </label>
    );
  }
  return <RangeSetting name={name} spec={spec} value={typeof current === "number" ? current : Number(spec.default)} disabled={disabled} onChange={onChange} />;
}

function RangeSetting({ name, spec, value, disabled, onChange }: SettingProps & { value: number }) {
  // While the slider has the focus, it shows where the keys or the pointer put it: the kernel's
  // echoes of earlier steps arrive late and must not pull it back (nor move the next key's start).
  // Out of focus, it shows the kernel's value (a refused step, a thread switch, Python).
  const [draft, setDraft] = useState<number | null>(null);
  const focused = useRef(false);
  useEffect(() => {
    if (!focused.current) setDraft(null);
  }, [value]);
  const shown = draft ?? value;
  const read = (input: HTMLInputElement) => (spec.integer ? Math.round(Number(input.value)) : Number(input.value));
  return (
    <label class="agui-setting">
      <span class="agui-setting-name">{name}</span>
      <input
        type="range"
        class="agui-setting-range"
        min={spec.min ?? 0}
        max={spec.max ?? 1}
        step={spec.step ?? "any"}
        value={shown}
        aria-valuetext={formatNumber(shown)}
        disabled={disabled}
        onFocus={() => {
          focused.current = true;
        }}
        onBlur={() => {
          focused.current = false;
          setDraft(null);
        }}
        onInput={(event) => setDraft(read(event.currentTarget))}
        onChange={(event) => onChange(name, read(event.currentTarget))}
      />
      <output class="agui-setting-value" aria-hidden="true">
        {formatNumber(shown)}
      </output>
    </label>
  );
}

/** A slider's value as people read it: at most two decimals, no float noise (0.7000000000000001). */
export function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Math.round(value * 100) / 100);
}
