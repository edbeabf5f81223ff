import { describe, expect, it } from 'vitest'
import { renderComponent } from '#tests/render.tsx'
import { Breadcrumb } from './breadcrumb.tsx'
import { FormFooter } from './form-footer.tsx'

describe('Breadcrumb', () => {
  it('links the steps back and marks the last, unlinked, as the current page', async () => {
    const page = await renderComponent(
      <Breadcrumb
        items={[
          { label: 'Courses', to: '/admin/courses' },
          { label: 'SQL <Basics>', to: '/admin/course/c1' },
          { label: 'Add New Video' },
        ]}
      />,
      '/admin/newVideo',
    )
    const trail = page.getByRole('navigation', { name: 'Breadcrumb' })
    expect(trail).toHaveTextContent(/^Courses \/ SQL <Basics> \/ Add New Video$/)
    const links = page.getAllByRole('link')
    expect(links.map((link) => [link.textContent, link.getAttribute('href')])).toEqual([
      ['Courses', '/admin/courses'],
      ['SQL <Basics>', '/admin/course/c1'],
    ])
    expect(page.getByText('Add New Video')).toHaveAttribute('aria-current', 'page')
    expect(page.queryByRole('link', { name: 'Add New Video' })).toBeNull()
  })
})

describe('FormFooter', () => {
  it('names the form error for Conform, and keeps Save disabled while saving or uploading', async () => {
    const idle = await renderComponent(
      <FormFooter errorId="f-error" error="Try again" saving={false} cancelTo="/admin/courses" />,
    )
    expect(idle.getByRole('alert')).toHaveTextContent('Try again')
    expect(idle.getByRole('alert')).toHaveAttribute('id', 'f-error')
    expect(idle.getByRole('button', { name: 'Save' })).toHaveAttribute('type', 'submit')
    expect(idle.getByRole('button', { name: 'Save' })).toBeEnabled()
    expect(idle.getByRole('link', { name: 'Cancel' })).toHaveAttribute('href', '/admin/courses')

    const uploading = await renderComponent(<FormFooter errorId="f-error" saving={false} busy />)
    expect(uploading.getByRole('button', { name: 'Save' })).toBeDisabled()
    expect(uploading.queryByRole('link', { name: 'Cancel' })).toBeNull()

    const saving = await renderComponent(<FormFooter errorId="f-error" saving />)
    expect(saving.getByRole('button', { name: 'Saving…' })).toBeDisabled()
    expect(saving.queryByRole('button', { name: 'Save' })).toBeNull()
  })
})
