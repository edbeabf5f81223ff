import { useId, useState, type InputHTMLAttributes } from 'react'

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
