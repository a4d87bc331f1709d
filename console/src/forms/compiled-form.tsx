/**
 * A form compiled from a declaration (form-model.ts), as Preact renders it: a labelled input per
 * field (label = the declared name), structures and arrays as fieldsets (arrays with add and
 * remove), and on submit the browser check (validate-form.ts) before anything is sent. Errors,
 * the browser's or the controller's (`details` of its error body), are text in a `role="alert"`
 * element that the field names with `aria-describedby`; errors that name no field go to the
 * region "Form errors". Link fields offer the resources they may point to (link-picker.tsx).
 * Everything shown is a text node: no value is ever read as HTML.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { ApsError } from "../../../runtime/client/aps-error.ts";
import { pointerSegment } from "../../../runtime/common/validation-error.ts";
import {
  errorElementId,
  fieldPointers,
  inputElementId,
  mapErrors,
  type ErrorDetail,
  type MappedErrors,
} from "./error-map.ts";
import type { FieldSpec, FormModel } from "./form-model.ts";
import { formValues, setAt, stateOf, type FieldState, type FormState } from "./form-state.ts";
import { LinkInput } from "./link-picker.tsx";
import { validateForm } from "./validate-form.ts";

interface CompiledFormProps {
  /** Prefix of the element ids, unique on the page. */
  readonly id: string;
  readonly model: FormModel;
  readonly initial: FormState;
  /** The submit button's text: "Provision", "Save" or "Call". */
  readonly submitLabel: string;
  /** Sends the checked form; a rejection with an ApsError puts its details on the fields. */
  readonly send: (state: FormState) => Promise<void>;
  /** The browser check; by default every value of the form (validateForm). */
  readonly check?: (state: FormState) => readonly ErrorDetail[];
  /** Shown beside the submit button (a Cancel button, say). */
  readonly extra?: ComponentChildren;
}

const NO_ERRORS: MappedErrors = { byField: new Map(), general: [] };

export function CompiledForm({ id, model, initial, submitLabel, send, check, extra }: CompiledFormProps) {
  const [state, setState] = useState<FormState>(initial);
  const [errors, setErrors] = useState<MappedErrors>(NO_ERRORS);
  const [sending, setSending] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  // After a refused submit, focus goes to the first field with an error (or the general list).
  const [focusRound, setFocusRound] = useState(0);
  useEffect(() => {
    if (focusRound === 0) return;
    const first = form.current?.querySelector<HTMLElement>('[aria-invalid="true"], [data-form-errors]');
    first?.focus();
  }, [focusRound]);

  const show = (details: readonly ErrorDetail[], general: readonly string[] = []) => {
    const mapped = mapErrors(details, fieldPointers(model, state));
    setErrors({ byField: mapped.byField, general: [...mapped.general, ...general] });
    setFocusRound((n) => n + 1);
  };

  const onSubmit = async (event: Event) => {
    event.preventDefault();
    if (sending) return;
    const found = check ? check(state) : validateForm(model, formValues(model, state));
    if (found.length) return show(found);
    setErrors(NO_ERRORS);
    setSending(true);
    try {
      await send(state);
    } catch (error) {
      if (error instanceof ApsError)
        show(
          error.details,
          error.details.length ? [] : [`${error.status ? `${error.status} ${error.type}: ` : ""}${error.message}`],
        );
      else show([], [(error as Error).message]);
    } finally {
      setSending(false);
    }
  };

  const set = (path: readonly (string | number)[], value: FieldState) =>
    setState((s) => setAt(s, path, value) as FormState);
  return (
    <form ref={form} id={id} class="compiled-form" noValidate onSubmit={onSubmit}>
      {errors.general.length > 0 && (
        <div class="form-errors" role="alert" aria-label="Form errors" tabIndex={-1} data-form-errors>
          <ul>
            {errors.general.map((m, i) => (
              <li key={i}>{m}</li>
            ))}
          </ul>
        </div>
      )}
      {model.fields.length === 0 && <p class="muted">Nothing to fill in.</p>}
      {model.fields.map((f) => (
        <Field
          key={f.key}
          formId={id}
          field={f}
          state={state[f.key] ?? ""}
          pointer={`/${pointerSegment(f.key)}`}
          path={[f.key]}
          errors={errors}
          set={set}
          required={model.topRequired && f.required}
        />
      ))}
      <div class="form-actions">
        <button type="submit" disabled={sending} aria-busy={sending}>
          {submitLabel}
        </button>
        {extra}
      </div>
    </form>
  );
}

interface FieldProps {
  readonly formId: string;
  readonly field: FieldSpec;
  readonly state: FieldState;
  readonly pointer: string;
  readonly path: readonly (string | number)[];
  readonly errors: MappedErrors;
  readonly set: (path: readonly (string | number)[], value: FieldState) => void;
  /** Whether leaving it empty is an error here (configure requires nothing at the top). */
  readonly required: boolean;
  /** Overrides the label (array items: "<name> 1"). */
  readonly label?: string;
}

function Field(props: FieldProps) {
  const { field: f } = props;
  if (f.input === "structure") return <StructureField {...props} />;
  if (f.input === "array") return <ArrayField {...props} />;
  return <ScalarField {...props} />;
}

/** The hint under a field: what it is and the limits it must keep, as text. */
function hintOf(f: FieldSpec, required: boolean): string {
  const parts: string[] = [];
  if (f.description) parts.push(f.description);
  if (required) parts.push("required");
  if (!f.editable) parts.push("read-only here");
  if (f.format) parts.push(`format ${f.format}`);
  if (f.unit) parts.push(`unit ${f.unit}`);
  if (f.minLength) parts.push(`at least ${count(f.minLength, "character")}`);
  if (f.maxLength !== undefined) parts.push(`at most ${count(f.maxLength, "character")}`);
  if (f.pattern !== undefined) parts.push(`pattern ${f.pattern}`);
  if (f.minItems) parts.push(`at least ${count(f.minItems, "item")}`);
  if (f.maxItems !== undefined) parts.push(`at most ${count(f.maxItems, "item")}`);
  if (f.uniqueItems) parts.push("items unique");
  if (f.input === "secret") parts.push("encrypted: never shown back; left empty, it is not sent");
  if (f.input === "link" && f.linkType && f.editable) parts.push("type part of an id or a name to choose one");
  return parts.join("; ");
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

/** The messages on a field, as an alert the input names; and the ids its aria-describedby lists. */
function useMessages(props: FieldProps): {
  describedBy: string | undefined;
  invalid: boolean;
  hintId: string;
  errorId: string;
  messages: readonly string[];
} {
  const messages = props.errors.byField.get(props.pointer) ?? [];
  const hintId = `${inputElementId(props.formId, props.pointer)}-hint`;
  const errorId = errorElementId(props.formId, props.pointer);
  const hint = hintOf(props.field, props.required);
  const ids = [messages.length ? errorId : "", hint ? hintId : ""].filter(Boolean).join(" ");
  return { describedBy: ids || undefined, invalid: messages.length > 0, hintId, errorId, messages };
}

function Messages({ id, messages }: { id: string; messages: readonly string[] }) {
  if (!messages.length) return null;
  return (
    <div class="field-errors" role="alert" id={id}>
      {messages.map((m, i) => (
        <div key={i}>{m}</div>
      ))}
    </div>
  );
}

function Hint({ id, field, required }: { id: string; field: FieldSpec; required: boolean }) {
  const text = hintOf(field, required);
  return text ? (
    <div class="hint" id={id}>
      {text}
    </div>
  ) : null;
}

function ScalarField(props: FieldProps) {
  const { field: f, formId, pointer, state, path, set, required } = props;
  const { describedBy, invalid, hintId, errorId, messages } = useMessages(props);
  const inputId = inputElementId(formId, pointer);
  const text = typeof state === "string" ? state : "";
  const label = props.label ?? f.label;
  const common = {
    id: inputId,
    name: pointer,
    "aria-describedby": describedBy,
    "aria-invalid": invalid ? ("true" as const) : undefined,
    "aria-required": required ? ("true" as const) : undefined,
  };
  const onText = (e: Event) => set(path, (e.currentTarget as HTMLInputElement).value);
  let control: ComponentChildren;
  if (f.input === "boolean" || f.input === "select") {
    const options =
      f.input === "boolean"
        ? [
            { value: "true", title: "true" },
            { value: "false", title: "false" },
          ]
        : (f.options ?? []).map((o, i) => ({ value: String(i), title: o.title }));
    control = (
      <select {...common} value={text} disabled={!f.editable} onChange={onText}>
        <option value="">{required ? "(choose)" : "(not set)"}</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.title}
          </option>
        ))}
      </select>
    );
  } else if (f.input === "json" || f.input === "multiline") {
    control = (
      <textarea
        {...common}
        class="mono"
        rows={f.input === "json" ? 4 : 6}
        value={text}
        readOnly={!f.editable}
        spellcheck={false}
        onInput={onText}
      />
    );
  } else if (f.input === "link" && f.linkType && f.editable) {
    control = <LinkInput {...common} {...inputAttributes(f)} typeId={f.linkType} value={text} onInput={onText} />;
  } else {
    control = <input {...common} {...inputAttributes(f)} value={text} readOnly={!f.editable} onInput={onText} />;
  }
  return (
    <div class={`field${f.editable ? "" : " readonly"}`}>
      <label for={inputId}>{label}</label>
      {control}
      <Hint id={hintId} field={f} required={required} />
      <Messages id={errorId} messages={messages} />
    </div>
  );
}

/** The input type and keyboard a value wants; formats only guide input, the check is the project's. */
function inputAttributes(f: FieldSpec): Record<string, string> {
  if (f.input === "secret") return { type: "password", autocomplete: "new-password" };
  if (f.input === "integer") return { type: "text", inputMode: "numeric", autocomplete: "off" };
  if (f.input === "number") return { type: "text", inputMode: "decimal", autocomplete: "off" };
  if (f.input === "link") return { type: "text", placeholder: "resource id", autocomplete: "off", spellcheck: "false" };
  switch (f.format) {
    case "email":
      return { type: "email", autocomplete: "off" };
    case "uri":
      return { type: "url", autocomplete: "off" };
    case "date":
      return { type: "date" };
    case "date-time":
      return { type: "text", placeholder: "2026-01-31T12:00:00Z", autocomplete: "off" };
    default:
      return { type: "text", autocomplete: "off" };
  }
}

function StructureField(props: FieldProps) {
  const { field: f, formId, pointer, state, path, errors, set, required } = props;
  const { describedBy, hintId, errorId, messages } = useMessages(props);
  const o = (typeof state === "object" && !Array.isArray(state) ? state : {}) as Record<string, FieldState>;
  return (
    <fieldset class="structure" aria-describedby={describedBy}>
      <legend>{props.label ?? f.label}</legend>
      <Hint id={hintId} field={f} required={required} />
      <Messages id={errorId} messages={messages} />
      {(f.fields ?? []).map((m) => (
        <Field
          key={m.key}
          formId={formId}
          field={f.editable ? m : { ...m, editable: false }}
          state={o[m.key] ?? stateOf(m, undefined)}
          pointer={`${pointer}/${pointerSegment(m.key)}`}
          path={[...path, m.key]}
          errors={errors}
          set={set}
          required={m.required}
        />
      ))}
    </fieldset>
  );
}

function ArrayField(props: FieldProps) {
  const { field: f, formId, pointer, state, path, errors, set, required } = props;
  const { describedBy, hintId, errorId, messages } = useMessages(props);
  const items = (Array.isArray(state) ? state : []) as FieldState[];
  const label = props.label ?? f.label;
  const item = f.editable ? f.item! : { ...f.item!, editable: false };
  return (
    <fieldset class="array" aria-describedby={describedBy}>
      <legend>{label}</legend>
      <Hint id={hintId} field={f} required={required} />
      <Messages id={errorId} messages={messages} />
      {items.length === 0 && <p class="muted">No items.</p>}
      <ol class="array-items">
        {items.map((s, i) => (
          <li key={i}>
            <Field
              formId={formId}
              field={item}
              state={s}
              pointer={`${pointer}/${i}`}
              path={[...path, i]}
              errors={errors}
              set={set}
              required={true}
              label={`${label} ${i + 1}`}
            />
            {f.editable && (
              <button
                type="button"
                class="secondary small"
                aria-label={`Remove ${label} ${i + 1}`}
                onClick={() =>
                  set(
                    path,
                    items.filter((_, j) => j !== i),
                  )
                }
              >
                Remove
              </button>
            )}
          </li>
        ))}
      </ol>
      {f.editable && (
        <button
          type="button"
          class="secondary small"
          onClick={() => set(path, [...items, stateOf(f.item!, undefined)])}
        >
          {`Add ${label} item`}
        </button>
      )}
    </fieldset>
  );
}
