import {
  useId,
  useState,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react'

type Keyed = { id?: string; key?: string | null | undefined }
type ControlProps = { id: string; 'aria-describedby'?: string; 'aria-invalid'?: true }

/**
 * A label, the control, and its error text below; the error line keeps its room so buttons below do
 * not move as errors come and go (a real click could miss them). conform's props carry a `key`, which React wants on
 * the element itself rather than spread.
 */
function FieldFrame({
  label,
  errors,
  hint,
  everyError = false,
  id: givenId,
  children,
}: {
  label: string
  errors?: string[]
  /** what to type, under the label (read out after it) */
  hint?: ReactNode
  /** every error, one a line (a field of several lines, each refused on its own), not only the first */
  everyError?: boolean
  id?: string
  children: (control: ControlProps) => ReactNode
}) {
  const fallbackId = useId()
  const id = givenId ?? fallbackId
  const errorId = errors?.length ? `${id}-error` : undefined
  const hintId = hint ? `${id}-hint` : undefined
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined
  return (
    <div>
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      {hint ? (
        <p id={hintId} className="-mt-0.5 mb-1 text-xs text-slate-500">
          {hint}
        </p>
      ) : null}
      {children({ id, 'aria-describedby': describedBy, 'aria-invalid': errorId ? true : undefined })}
      <p id={errorId} className="field-error">
        {everyError
          ? errors?.map((error) => (
              <span key={error} className="block">
                {error}
              </span>
            ))
          : errors?.[0]}
      </p>
    </div>
  )
}

type FieldProps = {
  label: string
  errors?: string[]
  hint?: ReactNode
  inputProps: InputHTMLAttributes<HTMLInputElement> & Keyed
}

/** A labelled input. */
export function Field({ label, errors, hint, inputProps }: FieldProps) {
  const { key, ...props } = inputProps
  return (
    <FieldFrame label={label} errors={errors} hint={hint} id={props.id}>
      {(control) => <input key={key ?? undefined} {...props} {...control} className="field-input" />}
    </FieldFrame>
  )
}

/** A password input with a show/hide toggle. */
export function PasswordField({ label, errors, hint, inputProps }: FieldProps) {
  const [visible, setVisible] = useState(false)
  const { key, ...props } = inputProps
  return (
    <FieldFrame label={label} errors={errors} hint={hint} id={props.id}>
      {(control) => (
        <div className="relative">
          <input
            key={key ?? undefined}
            {...props}
            {...control}
            type={visible ? 'text' : 'password'}
            className="field-input pr-20"
          />
          <button
            type="button"
            onClick={() => setVisible((v) => !v)}
            className="absolute inset-y-0 right-0 px-3 text-sm font-medium text-brand-600 hover:text-brand-800"
            aria-controls={control.id}
            aria-pressed={visible}
          >
            {visible ? 'Hide' : 'Show'}
          </button>
        </div>
      )}
    </FieldFrame>
  )
}

/** A labelled textarea. */
export function TextareaField({
  label,
  errors,
  hint,
  everyError,
  textareaProps,
}: {
  label: string
  errors?: string[]
  hint?: ReactNode
  everyError?: boolean
  textareaProps: TextareaHTMLAttributes<HTMLTextAreaElement> & Keyed
}) {
  const { key, ...props } = textareaProps
  return (
    <FieldFrame label={label} errors={errors} hint={hint} everyError={everyError} id={props.id}>
      {(control) => <textarea key={key ?? undefined} rows={4} {...props} {...control} className="field-input" />}
    </FieldFrame>
  )
}

/** A labelled native select (keyboard and screen reader friendly, works without JavaScript). */
export function SelectField({
  label,
  errors,
  options,
  placeholder,
  selectProps,
}: {
  label: string
  errors?: string[]
  options: { value: string; label: string }[]
  placeholder?: string
  selectProps: SelectHTMLAttributes<HTMLSelectElement> & Keyed
}) {
  const { key, ...props } = selectProps
  return (
    <FieldFrame label={label} errors={errors} id={props.id}>
      {(control) => (
        <select key={key ?? undefined} {...props} {...control} className="field-input">
          {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    </FieldFrame>
  )
}
