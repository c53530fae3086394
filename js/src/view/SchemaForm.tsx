/** A form for a JSON Schema object (../logic/schema.ts does the reading and checking). */
import type { ComponentChildren } from "preact";
import { useMemo, useRef, useState } from "preact/hooks";
import { type Field, type FormValues, choiceLabel, fieldsOf, formResult, initialValues } from "../logic/schema";

let nextFormId = 1;

type Props = {
  schema: unknown;
  /** starting values (the agent's proposal); the schema's defaults fill the rest */
  initial?: unknown;
  /** fields not shown (an interrupt's `approved`, which its buttons answer) */
  omit?: readonly string[];
  disabled?: boolean;
  /** the form's buttons; each gets `submit(value)` through `onSubmit` */
  submitLabel?: string;
  onSubmit: (value: Record<string, unknown>) => void;
  /** extra buttons after the submit button */
  children?: ComponentChildren;
  /** accessible name of the form */
  label: string;
};

export function SchemaForm({ schema, initial, omit = [], disabled = false, submitLabel = "Submit", onSubmit, children, label }: Props) {
  const fields = useMemo(() => fieldsOf(schema).filter((f) => !omit.includes(f.name)), [schema, omit.join(",")]);
  const [values, setValues] = useState<FormValues>(() => initialValues(fields, initial));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const prefix = useRef(`agui-f${nextFormId++}`).current;
  const form = useRef<HTMLFormElement>(null);

  const set = (name: string, value: string | boolean) => {
    setValues((v) => ({ ...v, [name]: value }));
    if (errors[name]) setErrors((e) => ({ ...e, [name]: "" }));
  };

  const submit = (e: Event) => {
    e.preventDefault();
    const result = formResult(fields, values);
    if (!result.ok) {
      setErrors(result.errors);
      const first = fields.find((f) => result.errors[f.name]);
      if (first) (form.current?.querySelector(`#${prefix}-${cssId(first.name)}`) as HTMLElement | null)?.focus();
      return;
    }
    setErrors({});
    onSubmit(result.value);
  };

  return (
    <form class="agui-form" ref={form} aria-label={label} onSubmit={submit} noValidate>
      {fields.map((field) => (
        <FieldRow key={field.name} field={field} id={`${prefix}-${cssId(field.name)}`} value={values[field.name]} error={errors[field.name] ?? ""} disabled={disabled} onChange={(v) => set(field.name, v)} />
      ))}
      <div class="agui-actions">
        <button type="submit" class="agui-btn agui-btn-primary" disabled={disabled}>
          {submitLabel}
        </button>
        {children}
      </div>
    </form>
  );
}

/** A field name made safe for an id (names are agent-chosen). */
function cssId(name: string): string {
  return Array.from(name, (c) => (/[A-Za-z0-9_-]/.test(c) ? c : `_${c.codePointAt(0)?.toString(16)}`)).join("");
}

type FieldProps = {
  field: Field;
  id: string;
  value: string | boolean | undefined;
  error: string;
  disabled: boolean;
  onChange: (value: string | boolean) => void;
};

function FieldRow({ field, id, value, error, disabled, onChange }: FieldProps) {
  const describedBy = [field.description ? `${id}-desc` : "", error ? `${id}-err` : ""].filter(Boolean).join(" ") || undefined;
  const common = {
    id,
    disabled,
    "aria-invalid": error ? ("true" as const) : undefined,
    "aria-describedby": describedBy,
    "aria-required": field.required && field.kind !== "boolean" ? ("true" as const) : undefined,
  };
  let control;
  switch (field.kind) {
    case "boolean":
      control = <input {...common} type="checkbox" class="agui-check" checked={value === true} onChange={(e) => onChange(e.currentTarget.checked)} />;
      break;
    case "enum":
      control = (
        <select {...common} class="agui-input" value={typeof value === "string" ? value : ""} onChange={(e) => onChange(e.currentTarget.value)}>
          {(!field.required || value === "") && <option value="">{field.required ? "Choose…" : "—"}</option>}
          {field.choices.map((choice, i) => (
            <option key={i} value={String(i)}>
              {choiceLabel(choice)}
            </option>
          ))}
        </select>
      );
      break;
    case "text":
    case "json":
      control = (
        <textarea
          {...common}
          class={`agui-input${field.kind === "json" ? " agui-mono" : ""}`}
          rows={field.kind === "json" ? 4 : 3}
          value={typeof value === "string" ? value : ""}
          placeholder={field.kind === "json" ? "JSON" : undefined}
          onInput={(e) => onChange(e.currentTarget.value)}
        />
      );
      break;
    default:
      control =
        field.kind === "number" || field.kind === "integer" ? (
          <input
            {...common}
            class="agui-input"
            type="number"
            step={field.kind === "integer" ? "1" : "any"}
            min={field.minimum}
            max={field.maximum}
            value={typeof value === "string" ? value : ""}
            onInput={(e) => onChange(e.currentTarget.value)}
          />
        ) : (
          <input {...common} class="agui-input" type="text" value={typeof value === "string" ? value : ""} onInput={(e) => onChange(e.currentTarget.value)} />
        );
  }
  return (
    <div class={`agui-field agui-field-${field.kind}`}>
      <label for={id} class="agui-field-label">
        {field.label}
        {field.required && field.kind !== "boolean" && (
          <span class="agui-required" aria-hidden="true">
            {" "}*
          </span>
        )}
      </label>
      {control}
      {field.description && (
        <div class="agui-field-desc" id={`${id}-desc`}>
          {field.description}
        </div>
      )}
      {error && (
        <div class="agui-field-error" id={`${id}-err`}>
          {error}
        </div>
      )}
    </div>
  );
}
