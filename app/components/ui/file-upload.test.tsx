import { type ComponentProps } from 'react'
import { describe, expect, it } from 'vitest'
import { postedBy, renderComponent } from '#tests/render.tsx'
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
  /** The upload field inside a form named Course, as the server renders it. */
  const inCourseForm = (props: ComponentProps<typeof FileUpload>) =>
    renderComponent(
      <form aria-label="Course">
        <FileUpload {...props} />
      </form>,
    )

  it('is a plain, labelled file input named for the multipart form, with the server error', async () => {
    const page = await inCourseForm({
      id: 'course-image',
      label: 'Course Image',
      name: 'courseImage',
      fileFieldName: 'courseImage',
      action: '/api/category/addCourseImage',
      accept: 'image/png,image/gif,image/jpeg',
      errors: ['Please Upload the Image'],
    })
    const input = page.getByLabelText('Course Image')
    expect(input).toHaveAttribute('type', 'file')
    expect(input).toHaveAttribute('name', 'courseImage')
    expect(input).toHaveAttribute('accept', 'image/png,image/gif,image/jpeg')
    expect(input).toBeInvalid()
    expect(input).toHaveAccessibleDescription(/Please Upload the Image$/)
    // nothing uploaded yet: no stored file posted with the form
    expect(postedBy(page.getByRole('form', { name: 'Course' }))).toEqual([['courseImage', '']])
  })

  it('keeps an already stored file in the hidden field and links to it', async () => {
    const stored = { key: 'abc', link: '/files/abc', name: 'old "logo".png' }
    const page = await inCourseForm({
      label: 'Course Image',
      name: 'courseImage',
      fileFieldName: 'courseDocument',
      action: '/upload',
      defaultFileInfo: stored,
    })
    const posted = postedBy(page.getByRole('form', { name: 'Course' }))
    expect(posted.map(([name]) => name)).toEqual(['courseDocument', 'courseImage'])
    expect(JSON.parse(posted[1][1])).toEqual(stored)
    expect(page.getByRole('link', { name: 'old "logo".png' })).toHaveAttribute('href', '/files/abc')
    expect(page.getByRole('link', { name: 'old "logo".png' }).parentElement).toHaveTextContent(/^Current file: /)
    expect(page.getByLabelText('Course Image')).not.toBeInvalid()
  })
})
