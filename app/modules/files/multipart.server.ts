import { Readable } from 'node:stream'
import type { ReadableStream as NodeReadableStream } from 'node:stream/web'
import busboy from 'busboy'

// multipart/form-data read with busboy (RFC 7578): any file name a browser or client sends, quoted
// with `;`, `=` and spaces in it, or as RFC 5987 `filename*=UTF-8''…`, decoded as UTF-8 as browsers
// send it. Remix's parser split the header on every `;` and `=`, refusing `Q1; report.pdf`.

export type FilePart = {
  field: string
  /** as sent, without any folder; undefined for a file input left blank */
  filename: string | undefined
  data: Readable
}

/**
 * Reads a multipart body part by part: text fields as strings, each file as a stream handed to
 * `onFile`, one at a time and in order (the parts after a file are read once `onFile` has read it).
 * Rejects with the first failure, the body's, the parser's or `onFile`'s, once the file being
 * handled has let go, and reads no further.
 */
export function readMultipart(
  body: ReadableStream<Uint8Array>,
  contentType: string,
  handlers: {
    /** may throw to refuse the form */
    onField: (field: string, value: string) => void
    onFile: (part: FilePart) => Promise<void>
    /** a text field longer than this fails the form (the caller's limit on the whole body comes first) */
    maxFieldBytes: number
  },
): Promise<void> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        defParamCharset: 'utf8',
        limits: { fieldSize: handlers.maxFieldBytes },
      })
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)))
      return
    }
    const input = Readable.fromWeb(body as NodeReadableStream<Uint8Array>)
    let failure: { error: unknown } | undefined
    let files = Promise.resolve()
    const fail = (error: unknown) => {
      if (failure) return
      failure = { error }
      input.unpipe(parser)
      input.destroy()
      // ends the file being read, so its handler settles
      parser.destroy(error instanceof Error ? error : new Error(String(error)))
      void files.finally(() => reject(error))
    }
    parser.on('field', (field, value, info) => {
      if (failure) return
      if (info.valueTruncated) return fail(new Error(`The form field ${field} is too long.`))
      try {
        handlers.onField(field, value)
      } catch (error) {
        fail(error)
      }
    })
    parser.on('file', (field, data, info) => {
      files = files
        .then(() => (failure ? void data.resume() : handlers.onFile({ field, filename: info.filename, data })))
        .catch(fail)
    })
    parser.on('error', fail)
    input.on('error', fail)
    parser.on('close', () => void files.then(() => failure || resolve()))
    input.pipe(parser)
  })
}
