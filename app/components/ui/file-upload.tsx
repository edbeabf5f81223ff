import { useEffect, useId, useRef, useState, type ChangeEvent, type ReactNode } from 'react'
import { Spinner } from './spinner.tsx'

/** What the upload calls answer and what a form stores (docs/product.md#uploads-and-assessments). */
export type FileInfo = { key: string; link: string; name: string }

type FileUploadProps = {
  label: string
  /** The hidden field that carries `JSON.stringify(fileInfo)` once a file is uploaded ("courseImage"). */
  name: string
  /** The multipart field of the file, both for the upload call and for a form posted without JavaScript. */
  fileFieldName: string
  /** Where the file is uploaded (answers `{ fileInfo }` or `{ message }`). */
  action: string
  /** A hint for the file picker ("image/png,image/gif,image/jpeg"); the server checks the content. */
  accept?: string
  /** Field errors from the server ("Please Upload the Image"). */
  errors?: string[]
  /** The file already stored (editing a course), kept until another one is uploaded. */
  defaultFileInfo?: FileInfo | null
  /** True while a file is on its way, so the form can keep Save disabled. */
  onUploadingChange?: (uploading: boolean) => void
  onUploaded?: (fileInfo: FileInfo) => void
  hint?: ReactNode
  disabled?: boolean
  id?: string
}

type UploadState =
  | { status: 'idle' }
  | { status: 'uploading'; fileName: string; percent: number | null }
  | { status: 'done'; fileName: string }
  | { status: 'failed'; fileName: string; message: string }

/** Reads the upload call's answer: the stored file, or the message to show. Exported for tests. */
export function readUploadResponse(status: number, text: string): { fileInfo: FileInfo } | { message: string } {
  let body: unknown = null
  try {
    body = JSON.parse(text)
  } catch {
    // not JSON: a proxy's error page, a body size limit…
  }
  const record = (value: unknown) =>
    typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined
  const fileInfo = record(record(body)?.fileInfo)
  if (
    status >= 200 &&
    status < 300 &&
    typeof fileInfo?.key === 'string' &&
    typeof fileInfo.link === 'string' &&
    typeof fileInfo.name === 'string'
  ) {
    return { fileInfo: { key: fileInfo.key, link: fileInfo.link, name: fileInfo.name } }
  }
  const message = record(body)?.message
  if (typeof message === 'string' && message) return { message }
  if (status === 413) return { message: 'The file is too large.' }
  return { message: `The upload failed (${status || 'no answer'}). Please try again.` }
}

/**
 * A file field that uploads the file as soon as it is chosen, with its progress, and keeps the
 * stored file's `{ key, link, name }` in a hidden field for the form's own submit.
 *
 * Without JavaScript it is a plain file input named `fileFieldName`: put it in a
 * `<Form method="post" encType="multipart/form-data">` and the file arrives with the form. With
 * JavaScript, the input loses its name once its file is uploaded (and is emptied when an upload
 * fails), so the file is never sent twice. The server should therefore take a non-empty file under
 * `fileFieldName` if there is one, and otherwise the JSON under `name`.
 */
/** What a file picker offers and tells: the server's uploadRules(kind), handed down by a loader. */
export type UploadRules = { accept: string; hint: string }

export function FileUpload({
  label,
  name,
  fileFieldName,
  action,
  accept,
  errors,
  defaultFileInfo = null,
  onUploadingChange,
  onUploaded,
  hint,
  disabled,
  id: givenId,
}: FileUploadProps) {
  const fallbackId = useId()
  const id = givenId ?? fallbackId
  const inputRef = useRef<HTMLInputElement>(null)
  const xhrRef = useRef<XMLHttpRequest | null>(null)
  const [fileInfo, setFileInfo] = useState<FileInfo | null>(defaultFileInfo)
  const [state, setState] = useState<UploadState>({ status: 'idle' })
  // The server's errors speak of the file posted last; once another file is chosen they are stale,
  // until the server answers with different ones.
  const errorsKey = errors?.join('\n') ?? ''
  const [staleErrorsKey, setStaleErrorsKey] = useState<string | null>(null)

  // the latest callbacks, without restarting an upload when a parent passes new functions
  const callbacks = useRef({ onUploadingChange, onUploaded })
  useEffect(() => {
    callbacks.current = { onUploadingChange, onUploaded }
  })

  function upload(file: File) {
    xhrRef.current?.abort()
    const xhr = new XMLHttpRequest()
    xhrRef.current = xhr
    const body = new FormData()
    body.append(fileFieldName, file)

    const settle = (next: UploadState) => {
      if (xhrRef.current !== xhr) return // a newer file replaced this one
      xhrRef.current = null
      setState(next)
      callbacks.current.onUploadingChange?.(false)
    }
    xhr.upload.onprogress = (event) => {
      if (xhrRef.current === xhr && event.lengthComputable) {
        setState({ status: 'uploading', fileName: file.name, percent: Math.round((event.loaded / event.total) * 100) })
      }
    }
    xhr.onload = () => {
      const answer = readUploadResponse(xhr.status, xhr.responseText)
      if ('fileInfo' in answer) {
        if (xhrRef.current !== xhr) return
        setFileInfo(answer.fileInfo)
        settle({ status: 'done', fileName: file.name })
        callbacks.current.onUploaded?.(answer.fileInfo)
      } else {
        if (xhrRef.current === xhr && inputRef.current) inputRef.current.value = ''
        settle({ status: 'failed', fileName: file.name, message: answer.message })
      }
    }
    xhr.onerror = () => {
      if (xhrRef.current === xhr && inputRef.current) inputRef.current.value = ''
      settle({
        status: 'failed',
        fileName: file.name,
        message: 'The upload failed. Check your connection and try again.',
      })
    }

    xhr.open('POST', action)
    xhr.setRequestHeader('Accept', 'application/json')
    xhr.send(body)
    setState({ status: 'uploading', fileName: file.name, percent: null })
    setStaleErrorsKey(errorsKey)
    callbacks.current.onUploadingChange?.(true)
  }

  function onChange(event: ChangeEvent<HTMLInputElement>) {
    const file = event.currentTarget.files?.[0]
    if (file) upload(file)
  }

  // A file chosen before the page's JavaScript arrived: upload it now rather than drop it silently.
  useEffect(() => {
    const file = inputRef.current?.files?.[0]
    if (file) upload(file)
    // once, on mount
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [])

  // Leaving mid-upload: stop it, and do not leave the parent's Save disabled for good.
  useEffect(
    () => () => {
      if (xhrRef.current) {
        xhrRef.current.abort()
        xhrRef.current = null
        callbacks.current.onUploadingChange?.(false)
      }
    },
    [],
  )

  const error = state.status === 'failed' ? state.message : errorsKey !== staleErrorsKey ? errors?.[0] : undefined
  const errorId = `${id}-error`
  const statusId = `${id}-status`
  const hintId = `${id}-hint`

  return (
    <div>
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <input
        ref={inputRef}
        id={id}
        type="file"
        // once uploaded here, the file must not travel again with the form
        name={state.status === 'done' ? undefined : fileFieldName}
        accept={accept}
        disabled={disabled}
        onChange={onChange}
        aria-invalid={error ? true : undefined}
        aria-describedby={[hint ? hintId : null, statusId, error ? errorId : null].filter(Boolean).join(' ')}
        className="block w-full text-sm text-slate-700 file:mr-3 file:cursor-pointer file:rounded-md file:border file:border-solid file:border-slate-300 file:bg-white file:px-3 file:py-1.5 file:text-sm file:font-semibold file:text-slate-800 hover:file:bg-slate-100 disabled:opacity-50"
      />
      {hint ? (
        <p id={hintId} className="mt-1 text-xs text-slate-500">
          {hint}
        </p>
      ) : null}
      {fileInfo ? <input type="hidden" name={name} value={JSON.stringify(fileInfo)} /> : null}

      <div
        id={statusId}
        aria-live="polite"
        className="mt-1 flex min-h-[1.25rem] items-center gap-2 text-sm text-slate-700"
      >
        {state.status === 'uploading' ? (
          <>
            <Spinner label={null} className="text-brand-600" />
            <span>Uploading {state.fileName}…</span>
            {state.percent !== null ? (
              <>
                <progress
                  max={100}
                  value={state.percent}
                  aria-label={`Uploading ${state.fileName}`}
                  className="h-2 w-24 overflow-hidden rounded [&::-webkit-progress-bar]:bg-slate-200 [&::-webkit-progress-value]:bg-brand-600"
                />
                <span aria-hidden className="tabular-nums">
                  {state.percent}%
                </span>
              </>
            ) : null}
          </>
        ) : fileInfo ? (
          <span>
            {state.status === 'done' ? 'Uploaded: ' : 'Current file: '}
            <a href={fileInfo.link} target="_blank" rel="noreferrer" className="text-brand-700 hover:underline">
              {fileInfo.name}
            </a>
          </span>
        ) : null}
      </div>
      <p id={errorId} className="field-error">
        {error}
      </p>
    </div>
  )
}
