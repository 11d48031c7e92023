import type { ReactNode } from 'react';
import { fieldLabel } from '../api/english';

/**
 * A form described as data: each field's kind, label and choices. Values are kept as the
 * inputs hold them and converted once, on submit (`toInput`). The browser's own validation is
 * off (noValidate on the forms): the API's messages (ApiError.fields, in English) show beside
 * each field, so the rules live in one place. The page checks only what it must for the
 * request to be well-formed at all: a required field left empty, a number that is not one,
 * JSON that does not parse.
 */
export type Kind = 'text' | 'textarea' | 'integer' | 'decimal' | 'checkbox' | 'select' | 'checkboxes' | 'time' | 'json' | 'url' | 'lines';

export interface Choice {
  value: string;
  label: string;
}

export interface FieldSpec {
  name: string;
  label: string;
  kind: Kind;
  hint?: string;
  choices?: Choice[];
  /** A select (or lines) that may be left empty (sent as null). */
  optional?: boolean;
  wide?: boolean;
  min?: number;
  max?: number;
  step?: number;
  /** A json field that holds a list (empty: []). */
  list?: boolean;
  /** The API's input type requires it (a String!): empty, it is not sent. */
  required?: boolean;
}

export type Values = Record<string, unknown>;

/** The form's starting values from a record of the API (JSON fields as text, numbers as text). */
export function toValues(specs: FieldSpec[], record: Record<string, unknown>): Values {
  const values: Values = {};
  for (const spec of specs) {
    const value = record[spec.name];
    if (spec.kind === 'json') values[spec.name] = value && Object.keys(value as object).length ? JSON.stringify(value, null, 2) : '';
    else if (spec.kind === 'checkbox') values[spec.name] = Boolean(value);
    else if (spec.kind === 'checkboxes') values[spec.name] = Array.isArray(value) ? value.map(String) : [];
    else if (spec.kind === 'lines') values[spec.name] = Array.isArray(value) ? value.join('\n') : '';
    else values[spec.name] = value === null || value === undefined ? '' : String(value);
  }
  return values;
}

/**
 * The input for the API: numbers as numbers (text that is not one goes as it is, so that the
 * API names the mistake), an empty optional choice as null, JSON parsed. With `before`, only
 * the fields that changed.
 */
export function toInput(specs: FieldSpec[], values: Values, before?: Values): { input: Record<string, unknown>; errors: Record<string, string[]> } {
  const input: Record<string, unknown> = {};
  const errors: Record<string, string[]> = {};
  for (const spec of specs) {
    const value = values[spec.name];
    if (before && JSON.stringify(before[spec.name]) === JSON.stringify(value)) continue;
    if (spec.required && String(value ?? '').trim() === '') {
      errors[spec.name] = [`${spec.label} is required.`];
      continue;
    }
    switch (spec.kind) {
      case 'integer':
      case 'decimal': {
        const text = String(value ?? '').trim();
        if (text === '') {
          if (before) input[spec.name] = null;
          break;
        }
        const number = Number(text);
        if (Number.isNaN(number)) errors[spec.name] = ['Enter a number.'];
        else input[spec.name] = number;
        break;
      }
      case 'select':
        if (value === '') {
          if (spec.optional) input[spec.name] = null;
        } else input[spec.name] = spec.choices && spec.choices.every((choice) => /^\d+$/.test(choice.value)) ? Number(value) : value;
        break;
      case 'checkboxes':
        // A new record with none chosen takes the API's default.
        if (!before && (value as string[]).length === 0) break;
        input[spec.name] = spec.choices?.every((choice) => /^\d+$/.test(choice.value)) ? (value as string[]).map(Number) : value;
        break;
      case 'lines': {
        // One item a line; none is [] (or null where that means something else, `optional`).
        const items = String(value ?? '')
          .split('\n')
          .map((line) => line.trim())
          .filter(Boolean);
        input[spec.name] = items.length === 0 && spec.optional ? null : items;
        break;
      }
      case 'json': {
        const text = String(value ?? '').trim();
        if (text === '') input[spec.name] = spec.list ? [] : {};
        else {
          try {
            input[spec.name] = JSON.parse(text);
          } catch {
            errors[spec.name] = ['This is not valid JSON (for example {"customer_name": "Ana"}).'];
          }
        }
        break;
      }
      case 'text':
      case 'textarea':
      case 'url':
      case 'time':
        if (String(value ?? '') === '' && spec.optional) input[spec.name] = null;
        else if (String(value ?? '') !== '' || before) input[spec.name] = value;
        break;
      default:
        input[spec.name] = value;
    }
  }
  return { input, errors };
}

interface FieldsProps {
  specs: FieldSpec[];
  values: Values;
  errors: Record<string, string[]>;
  onChange: (name: string, value: unknown) => void;
  idPrefix: string;
}

/** The fields of a form, each with its label, its hint and the API's messages for it. */
export function Fields({ specs, values, errors, onChange, idPrefix }: FieldsProps) {
  return (
    <div className="fields">
      {specs.map((spec) => (
        <Field key={spec.name} spec={spec} value={values[spec.name]} messages={messagesOf(errors, spec)} onChange={(value) => onChange(spec.name, value)} id={`${idPrefix}-${spec.name}`} />
      ))}
    </div>
  );
}

/**
 * A field's messages and those about its parts (schema.0.name shows beside schema), each
 * once; a message that names the field by the catalogue's label names it by this form's.
 */
function messagesOf(errors: Record<string, string[]>, spec: FieldSpec): string[] | undefined {
  const generic = `${fieldLabel(spec.name)} `;
  const messages = Object.entries(errors).flatMap(([field, list]) =>
    field === spec.name ? list.map((message) => (message.startsWith(generic) ? `${spec.label} ${message.slice(generic.length)}` : message)) : field.startsWith(`${spec.name}.`) ? list : [],
  );
  return messages.length ? [...new Set(messages)] : undefined;
}

function Field({ spec, value, messages, onChange, id }: { spec: FieldSpec; value: unknown; messages?: string[]; onChange: (value: unknown) => void; id: string }) {
  const invalid = Boolean(messages?.length);
  const describedBy = [spec.hint ? `${id}-hint` : '', invalid ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const common = { id, name: spec.name, 'aria-invalid': invalid ? ('true' as const) : undefined, 'aria-describedby': describedBy };
  let control: ReactNode;
  switch (spec.kind) {
    case 'textarea':
    case 'json':
    case 'lines':
      control = <textarea {...common} rows={spec.kind === 'textarea' ? 5 : 4} value={String(value ?? '')} onChange={(event: any) => onChange(event.target.value)} />;
      break;
    case 'checkbox':
      return (
        <div className={`field field-check${spec.wide ? ' wide' : ''}`}>
          <label htmlFor={id}>
            <input type="checkbox" role="switch" {...common} checked={Boolean(value)} onChange={(event: any) => onChange(event.target.checked)} />
            {spec.label}
          </label>
          {spec.hint && <small id={`${id}-hint`}>{spec.hint}</small>}
          {invalid && <FieldError id={`${id}-error`} messages={messages!} />}
        </div>
      );
    case 'select':
      control = (
        <select {...common} value={String(value ?? '')} onChange={(event: any) => onChange(event.target.value)}>
          {spec.optional && <option value="">None</option>}
          {!spec.optional && value === '' && <option value="">Choose…</option>}
          {spec.choices?.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
      );
      break;
    case 'checkboxes': {
      const chosen = new Set(value as string[]);
      return (
        <fieldset className={`field${spec.wide ? ' wide' : ''}`} aria-describedby={describedBy} aria-invalid={invalid ? 'true' : undefined}>
          <legend>{spec.label}</legend>
          <div className="choices">
            {spec.choices?.length ? (
              spec.choices.map((choice) => (
                <label key={choice.value}>
                  <input
                    type="checkbox"
                    name={spec.name}
                    value={choice.value}
                    checked={chosen.has(choice.value)}
                    onChange={(event: any) => onChange(event.target.checked ? [...chosen, choice.value] : [...chosen].filter((item) => item !== choice.value))}
                  />
                  {choice.label}
                </label>
              ))
            ) : (
              <small>None yet.</small>
            )}
          </div>
          {spec.hint && <small id={`${id}-hint`}>{spec.hint}</small>}
          {invalid && <FieldError id={`${id}-error`} messages={messages!} />}
        </fieldset>
      );
    }
    default: {
      const type = spec.kind === 'integer' || spec.kind === 'decimal' ? 'number' : spec.kind === 'time' ? 'time' : spec.kind === 'url' ? 'url' : 'text';
      control = (
        <input
          {...common}
          type={type}
          inputMode={spec.kind === 'decimal' ? 'decimal' : undefined}
          min={spec.min}
          max={spec.max}
          step={spec.step ?? (spec.kind === 'decimal' ? 'any' : undefined)}
          value={String(value ?? '')}
          onChange={(event: any) => onChange(event.target.value)}
        />
      );
    }
  }
  return (
    <div className={`field${spec.wide ? ' wide' : ''}`}>
      <label htmlFor={id}>{spec.label}</label>
      {control}
      {spec.hint && <small id={`${id}-hint`}>{spec.hint}</small>}
      {invalid && <FieldError id={`${id}-error`} messages={messages!} />}
    </div>
  );
}

function FieldError({ id, messages }: { id: string; messages: string[] }) {
  return (
    <small id={id} className="field-error">
      {messages.join(' ')}
    </small>
  );
}

/** After a refusal, the first field the API named takes the focus (once React has marked it). */
export function focusFirstInvalid(): void {
  setTimeout(() => document.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus(), 0);
}
