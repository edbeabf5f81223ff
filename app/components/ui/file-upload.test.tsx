import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { FileUpload, readUploadResponse } from './file-upload.tsx'

describe('readUploadResponse', () => {
  const fileInfo = { key: 'k1', link: '/files/k1', name: 'sql.png' }

  it('returns the stored file of a successful answer', () => {
    expect(readUploadResponse(200, JSON.stringify({ fileInfo, extra: 1 }))).toEqual({ fileInfo })
    expect(readUploadResponse(201, JSON.stringify({ fileInfo }))).toEqual({ fileInfo })
  })

  it("returns the server's message when the upload is refused", () => {
    expect(readUploadResponse(400, JSON.stringify({ message: 'Please Upload the Image' }))).toEqual({
      message: 'Please Upload the Image',
    })
    // a 200 without a usable fileInfo is not a success
    expect(readUploadResponse(200, JSON.stringify({ fileInfo: { key: 'k1' }, message: 'odd' }))).toEqual({
      message: 'odd',
    })
  })

  it('explains answers that are not JSON', () => {
    expect(readUploadResponse(413, '<html>Request Entity Too Large</html>')).toEqual({
      message: 'The file is too large.',
    })
    expect(readUploadResponse(502, '')).toEqual({ message: 'The upload failed (502). Please try again.' })
    expect(readUploadResponse(0, '')).toEqual({ message: 'The upload failed (no answer). Please try again.' })
  })
})

describe('FileUpload on the server', () => {
  it('is a plain, labelled file input named for the multipart form, with the server error', () => {
    const html = renderToString(
      <FileUpload
        id="course-image"
        label="Course Image"
        name="courseImage"
        fileFieldName="courseImage"
        action="/api/category/addCourseImage"
        accept="image/png,image/gif,image/jpeg"
        errors={['Please Upload the Image']}
      />,
    )
    expect(html).toContain('<label for="course-image" class="field-label">Course Image</label>')
    expect(html).toMatch(
      /<input id="course-image" type="file" name="courseImage" accept="image\/png,image\/gif,image\/jpeg"/,
    )
    expect(html).toContain('aria-invalid="true"')
    expect(html).toMatch(/aria-describedby="course-image-status course-image-error"/)
    expect(html).toContain('<p id="course-image-error" class="field-error">Please Upload the Image</p>')
    // nothing uploaded yet: no stored-file field
    expect(html).not.toContain('type="hidden"')
  })

  it('keeps an already stored file in the hidden field and links to it', () => {
    const stored = { key: 'abc', link: '/files/abc', name: 'old "logo".png' }
    const html = renderToString(
      <FileUpload
        label="Course Image"
        name="courseImage"
        fileFieldName="courseDocument"
        action="/upload"
        defaultFileInfo={stored}
      />,
    )
    const hidden = /<input type="hidden" name="courseImage" value="([^"]*)"\/>/.exec(html)
    expect(hidden).not.toBeNull()
    expect(JSON.parse(hidden![1].replaceAll('&quot;', '"'))).toEqual(stored)
    expect(html).toContain('name="courseDocument"')
    expect(html).toContain('Current file: <a href="/files/abc"')
    expect(html).not.toContain('aria-invalid')
  })
})
