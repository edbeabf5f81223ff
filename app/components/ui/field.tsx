import {
  useId,
  useState,
  type InputHTMLAttributes,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react'

type FieldProps = {
  label: string
  errors?: string[]
  inputProps: InputHTMLAttributes<HTMLInputElement> & { id?: string; key?: string | null | undefined }
}

/** A labelled input with its error text below; the error line keeps its room (DESIGN.md §9). */
export function Field({ label, errors, inputProps }: FieldProps) {
  const fallbackId = useId()
  const { key, ...props } = inputProps
  const id = props.id ?? fallbackId
  const errorId = errors?.length ? `${id}-error` : undefined
  return (
    <div>
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <input
        key={key ?? undefined}
        {...props}
        id={id}
        className="field-input"
        aria-describedby={errorId}
        aria-invalid={errorId ? true : undefined}
      />
      <p id={errorId} className="field-error">
        {errors?.[0]}
      </p>
    </div>
  )
}

/** A password input with a show/hide toggle. */
export function PasswordField({ label, errors, inputProps }: FieldProps) {
  const fallbackId = useId()
  const [visible, setVisible] = useState(false)
  const { key, ...props } = inputProps
  const id = props.id ?? fallbackId
  const errorId = errors?.length ? `${id}-error` : undefined
  return (
    <div>
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <div className="relative">
        <input
          key={key ?? undefined}
          {...props}
          id={id}
          type={visible ? 'text' : 'password'}
          className="field-input pr-20"
          aria-describedby={errorId}
          aria-invalid={errorId ? true : undefined}
        />
        <button
          type="button"
          onClick={() => setVisible((v) => !v)}
          className="absolute inset-y-0 right-0 px-3 text-sm font-medium text-brand-600 hover:text-brand-800"
          aria-controls={id}
          aria-pressed={visible}
        >
          {visible ? 'Hide' : 'Show'}
        </button>
      </div>
      <p id={errorId} className="field-error">
        {errors?.[0]}
      </p>
    </div>
  )
}

type TextareaFieldProps = {
  label: string
  errors?: string[]
  textareaProps: TextareaHTMLAttributes<HTMLTextAreaElement> & { id?: string; key?: string | null | undefined }
}

/** A labelled textarea with its error text below, like Field. */
export function TextareaField({ label, errors, textareaProps }: TextareaFieldProps) {
  const fallbackId = useId()
  const { key, ...props } = textareaProps
  const id = props.id ?? fallbackId
  const errorId = errors?.length ? `${id}-error` : undefined
  return (
    <div>
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <textarea
        key={key ?? undefined}
        rows={4}
        {...props}
        id={id}
        className="field-input"
        aria-describedby={errorId}
        aria-invalid={errorId ? true : undefined}
      />
      <p id={errorId} className="field-error">
        {errors?.[0]}
      </p>
    </div>
  )
}

type SelectFieldProps = {
  label: string
  errors?: string[]
  options: { value: string; label: string }[]
  placeholder?: string
  selectProps: SelectHTMLAttributes<HTMLSelectElement> & { id?: string; key?: string | null | undefined }
}

/** A labelled native select (keyboard and screen reader friendly, works without JavaScript). */
export function SelectField({ label, errors, options, placeholder, selectProps }: SelectFieldProps) {
  const fallbackId = useId()
  const { key, ...props } = selectProps
  const id = props.id ?? fallbackId
  const errorId = errors?.length ? `${id}-error` : undefined
  return (
    <div>
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <select
        key={key ?? undefined}
        {...props}
        id={id}
        className="field-input"
        aria-describedby={errorId}
        aria-invalid={errorId ? true : undefined}
      >
        {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      <p id={errorId} className="field-error">
        {errors?.[0]}
      </p>
    </div>
  )
}
