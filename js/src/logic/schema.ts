/**
 * JSON Schema → form fields → value: the pure part of the `form` UI (and of interrupts with a
 * `responseSchema`). Covers what tool parameters use: an object of string, number, integer,
 * boolean and enum properties, with `required`, `default`, `title`, `description`, and the
 * basic checks (minimum/maximum, minLength/maxLength, pattern, email/uri formats). Anything
 * else (nested objects, arrays) is a JSON field: a text box whose text must parse as JSON.
 */
import { isObject } from "../kernel/wire";

export type FieldKind = "string" | "text" | "number" | "integer" | "boolean" | "enum" | "json";

export type Field = {
  name: string;
  label: string;
  kind: FieldKind;
  required: boolean;
  description: string;
  /** enum choices, in schema order */
  choices: unknown[];
  default: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  /** the type allows null: an empty box means null rather than "left out" */
  nullable: boolean;
};

/** What a field holds while being edited: text for boxes, a boolean for checkboxes, the index
 * of the choice (as text, "" for none) for enums. */
export type FieldValue = string | boolean;
export type FormValues = Record<string, FieldValue>;

type Schema = Record<string, unknown>;

function typesOf(schema: Schema): string[] {
  const t = schema.type;
  if (typeof t === "string") return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === "string");
  return [];
}

/** A property schema with `anyOf`/`oneOf` of one type plus null flattened (what pydantic writes
 * for `Optional[...]`), and a `oneOf` of constants read as an enum. */
function flatten(schema: Schema): { schema: Schema; nullable: boolean } {
  const alternatives = (Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : null) as unknown[] | null;
  if (alternatives) {
    const options = alternatives.filter(isObject);
    const consts = options.filter((o) => "const" in o);
    if (consts.length === options.length && consts.length > 0) {
      return { schema: { ...schema, enum: consts.map((o) => o.const) }, nullable: false };
    }
    const nonNull = options.filter((o) => !typesOf(o).includes("null") || typesOf(o).length > 1);
    const nullable = nonNull.length < options.length;
    if (nonNull.length === 1) {
      const { anyOf: _a, oneOf: _o, ...rest } = schema;
      return { schema: { ...(nonNull[0] as Schema), ...rest }, nullable };
    }
  }
  const types = typesOf(schema);
  return { schema, nullable: types.includes("null") };
}

function kindOf(schema: Schema): FieldKind {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return "enum";
  if ("const" in schema) return "enum";
  const type = typesOf(schema).find((t) => t !== "null");
  switch (type) {
    case "string":
      return schema.format === "textarea" || schema.format === "multiline" || (typeof schema.maxLength === "number" && schema.maxLength > 200)
        ? "text"
        : "string";
    case "number":
      return "number";
    case "integer":
      return "integer";
    case "boolean":
      return "boolean";
    case undefined:
      return isObject(schema.properties) || isObject(schema.items) ? "json" : "string";
    default:
      return "json";
  }
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** The fields of an object schema, in property order; [] for anything else. */
export function fieldsOf(schema: unknown): Field[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((x): x is string => typeof x === "string") : []);
  const fields: Field[] = [];
  for (const [name, raw] of Object.entries(schema.properties)) {
    const { schema: prop, nullable } = flatten(isObject(raw) ? raw : {});
    const kind = kindOf(prop);
    fields.push({
      name,
      label: typeof prop.title === "string" && prop.title ? prop.title : name,
      kind,
      required: required.has(name),
      description: typeof prop.description === "string" ? prop.description : "",
      choices: kind === "enum" ? (Array.isArray(prop.enum) ? prop.enum : [prop.const]) : [],
      default: prop.default,
      minimum: num(prop.minimum) ?? num(prop.exclusiveMinimum),
      maximum: num(prop.maximum) ?? num(prop.exclusiveMaximum),
      minLength: num(prop.minLength),
      maxLength: num(prop.maxLength),
      pattern: typeof prop.pattern === "string" ? prop.pattern : undefined,
      format: typeof prop.format === "string" ? prop.format : undefined,
      nullable,
    });
  }
  return fields;
}

function sameJson(a: unknown, b: unknown): boolean {
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

/** The editing value of `field` for `value` (a given value, or the schema default). */
function toFieldValue(field: Field, value: unknown): FieldValue {
  switch (field.kind) {
    case "boolean":
      return value === true;
    case "enum": {
      const at = field.choices.findIndex((c) => sameJson(c, value));
      return at === -1 ? "" : String(at);
    }
    case "json":
      return value === undefined ? "" : JSON.stringify(value, null, 2);
    default:
      return value === undefined || value === null ? "" : String(value);
  }
}

/** Starting values: `given[name]` when present (the agent's proposal), else the default. */
export function initialValues(fields: readonly Field[], given?: unknown): FormValues {
  const source = isObject(given) ? given : {};
  const values: FormValues = {};
  for (const field of fields) {
    const value = field.name in source ? source[field.name] : field.default;
    values[field.name] = toFieldValue(field, value);
  }
  return values;
}

type Parsed = { ok: true; value: unknown; empty: boolean } | { ok: false; error: string };

function parseField(field: Field, raw: FieldValue | undefined): Parsed {
  if (field.kind === "boolean") return { ok: true, value: raw === true, empty: false };
  const text = typeof raw === "string" ? raw : "";
  if (field.kind === "enum") {
    if (text === "") return { ok: true, value: undefined, empty: true };
    return { ok: true, value: field.choices[Number(text)], empty: false };
  }
  if (text.trim() === "") return { ok: true, value: field.nullable ? null : undefined, empty: true };
  switch (field.kind) {
    case "number":
    case "integer": {
      const n = Number(text.trim());
      if (!Number.isFinite(n)) return { ok: false, error: "Enter a number." };
      if (field.kind === "integer" && !Number.isInteger(n)) return { ok: false, error: "Enter a whole number." };
      if (field.minimum !== undefined && n < field.minimum) return { ok: false, error: `Must be at least ${field.minimum}.` };
      if (field.maximum !== undefined && n > field.maximum) return { ok: false, error: `Must be at most ${field.maximum}.` };
      return { ok: true, value: n, empty: false };
    }
    case "json":
      try {
        return { ok: true, value: JSON.parse(text), empty: false };
      } catch {
        return { ok: false, error: "Enter valid JSON." };
      }
    default: {
      if (field.minLength !== undefined && text.length < field.minLength) {
        return { ok: false, error: `Use at least ${field.minLength} characters.` };
      }
      if (field.maxLength !== undefined && text.length > field.maxLength) {
        return { ok: false, error: `Use at most ${field.maxLength} characters.` };
      }
      if (field.pattern !== undefined) {
        let re: RegExp | null = null;
        try {
          re = new RegExp(field.pattern, "u");
        } catch {
          re = null; // a pattern JavaScript cannot read is not checked here
        }
        if (re && !re.test(text)) return { ok: false, error: "This does not have the expected form." };
      }
      if (field.format === "email" && !/^[^\s@]+@[^\s@]+$/.test(text)) return { ok: false, error: "Enter an email address." };
      if ((field.format === "uri" || field.format === "url") && !/^[a-z][a-z0-9+.-]*:\S+$/i.test(text)) {
        return { ok: false, error: "Enter a URL." };
      }
      return { ok: true, value: text, empty: false };
    }
  }
}

/** The form's value, or the errors by field name. Empty optional fields are left out. */
export function formResult(
  fields: readonly Field[],
  values: FormValues,
): { ok: true; value: Record<string, unknown> } | { ok: false; errors: Record<string, string> } {
  const value: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const parsed = parseField(field, values[field.name]);
    if (!parsed.ok) errors[field.name] = parsed.error;
    else if (!parsed.empty) value[field.name] = parsed.value;
    else if (field.required && field.nullable) value[field.name] = null;
    else if (field.required) errors[field.name] = "Required.";
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value };
}

/** How a choice reads on a button or in a list. */
export function choiceLabel(choice: unknown): string {
  if (typeof choice === "string") return choice;
  try {
    return JSON.stringify(choice) ?? String(choice);
  } catch {
    return String(choice);
  }
}
