import { getInputProps, getSelectProps, getTextareaProps, type FieldMetadata } from '@conform-to/react'
import {
  createContext,
  useCallback,
  useContext,
  useId,
  useState,
  type ChangeEvent,
  type InputHTMLAttributes,
  type ReactNode,
  type TextareaHTMLAttributes,
} from 'react'
import { Field, PasswordField, SelectField, TextareaField } from '#app/components/ui/field.tsx'
import { FileUpload, type FileInfo, type UploadRules } from '#app/components/ui/file-upload.tsx'

// The form fields as the forms use them: one conform field's metadata and its label give the control
// its name, id, constraints and default, and its errors the line below it (tied by aria-describedby,
// aria-invalid set). The markup itself is app/components/ui/field.tsx's.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any form's field, whatever its schema
type Meta = FieldMetadata<any, any, string[]>

type InputExtras = Omit<InputHTMLAttributes<HTMLInputElement>, 'type' | 'name' | 'id' | 'form' | 'children'>

/** A labelled input for one field (`type` text by default). */
export function FormField({
  meta,
  label,
  hint,
  type = 'text',
  ...extras
}: {
  meta: Meta
  label: string
  hint?: ReactNode
  type?: 'text' | 'email' | 'number' | 'url' | 'search' | 'tel'
} & InputExtras) {
  return (
    <Field
      label={label}
      errors={meta.errors}
      hint={hint}
      inputProps={{ ...getInputProps(meta, { type }), ...extras }}
    />
  )
}

/** A labelled password input with its show/hide toggle; `autoComplete` says which password it is. */
export function FormPasswordField({
  meta,
  label,
  hint,
  autoComplete,
}: {
  meta: Meta
  label: string
  hint?: ReactNode
  autoComplete: 'current-password' | 'new-password'
}) {
  return (
    <PasswordField
      label={label}
      errors={meta.errors}
      hint={hint}
      inputProps={{ ...getInputProps(meta, { type: 'password' }), autoComplete }}
    />
  )
}

type TextareaExtras = Pick<TextareaHTMLAttributes<HTMLTextAreaElement>, 'rows' | 'placeholder' | 'spellCheck'>

/** A labelled textarea for one field; `everyError` shows each of its errors (one a line), not only the first. */
export function FormTextareaField({
  meta,
  label,
  hint,
  everyError,
  ...extras
}: { meta: Meta; label: string; hint?: ReactNode; everyError?: boolean } & TextareaExtras) {
  return (
    <TextareaField
      label={label}
      errors={meta.errors}
      hint={hint}
      everyError={everyError}
      textareaProps={{ ...getTextareaProps(meta), ...extras }}
    />
  )
}

/** A labelled checkbox for one field (posted as "on" when ticked), with its error below. */
export function FormCheckbox({ meta, label }: { meta: Meta; label: string }) {
  const { key, ...input } = getInputProps(meta, { type: 'checkbox' })
  return (
    <div className="pb-2">
      <label className="flex items-start gap-2 text-sm text-slate-700">
        <input
          key={key ?? undefined}
          {...input}
          className="mt-0.5 h-4 w-4 shrink-0 rounded border-slate-300 text-brand-600 focus:ring-brand-500"
        />
        <span>{label}</span>
      </label>
      <p id={meta.errorId} className="field-error">
        {meta.errors?.[0]}
      </p>
    </div>
  )
}

/** A labelled native select for one field, with an empty first choice when `placeholder` is given. */
export function FormSelectField({
  meta,
  label,
  options,
  placeholder,
  onChange,
}: {
  meta: Meta
  label: string
  options: { value: string; label: string }[]
  placeholder?: string
  onChange?: (event: ChangeEvent<HTMLSelectElement>) => void
}) {
  return (
    <SelectField
      label={label}
      errors={meta.errors}
      placeholder={placeholder}
      options={options}
      selectProps={{ ...getSelectProps(meta), onChange }}
    />
  )
}

type ReportUpload = (field: string, uploading: boolean) => void

const UploadsContext = createContext<ReportUpload | null>(null)

/**
 * The uploads of a form's file fields: `uploading` while any of them is sending its file (the form's
 * Save waits), and `report`, which they call from inside an `UploadsScope`.
 */
export function useUploads() {
  const [busy, setBusy] = useState<ReadonlySet<string>>(() => new Set())
  const report = useCallback(
    (field: string, uploading: boolean) =>
      setBusy((current) => {
        const next = new Set(current)
        if (uploading) next.add(field)
        else next.delete(field)
        return next
      }),
    [],
  )
  return { uploading: busy.size > 0, report }
}

/** Where the file fields inside report their uploads to (`useUploads().report`). */
export function UploadsScope({ report, children }: { report: ReportUpload; children: ReactNode }) {
  return <UploadsContext.Provider value={report}>{children}</UploadsContext.Provider>
}

/**
 * Where each kind of file goes: the upload call, and the multipart field the file travels in (to the
 * call, or with the form posted without JavaScript). Images (course and program pictures), documents
 * (course documents, scenarios, learners' assessments) and the issuer's signature on certificates.
 */
const UPLOADS = {
  image: { fileFieldName: 'courseImage', action: '/api/category/addCourseImage' },
  signature: { fileFieldName: 'certificateSignature', action: '/api/category/addCertificateSignature' },
  document: { fileFieldName: 'courseDocument', action: '/api/category/addCourseDocument' },
} as const

/**
 * A labelled file field for one field: the file is uploaded when chosen and the field carries its
 * `{ key, link, name }` (or, without JavaScript, the file travels with the form). `upload` is the
 * server's rules for the picker; `hint` replaces their hint. Inside an `UploadsScope` it tells the
 * form while it uploads.
 */
export function FormFileField({
  meta,
  label,
  kind,
  upload,
  hint = upload.hint,
  defaultFileInfo,
}: {
  meta: Meta
  label: string
  kind: keyof typeof UPLOADS
  upload: UploadRules
  hint?: string
  defaultFileInfo?: FileInfo | null
}) {
  const field = useId()
  const report = useContext(UploadsContext)
  return (
    <FileUpload
      label={label}
      name={meta.name}
      {...UPLOADS[kind]}
      accept={upload.accept}
      hint={hint}
      defaultFileInfo={defaultFileInfo}
      errors={meta.errors}
      onUploadingChange={report ? (uploading) => report(field, uploading) : undefined}
    />
  )
}
