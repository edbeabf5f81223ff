import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react'
import { type ReactNode } from 'react'
import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { parsePage, renderComponent } from '#tests/render.tsx'
import {
  FormField,
  FormFileField,
  FormPasswordField,
  FormSelectField,
  FormTextareaField,
  UploadsScope,
} from './fields.tsx'
import { PageForm } from './page-form.tsx'

// The shared form fields as the server renders them (as a browser without JavaScript gets them),
// found by role and name: each control is named by its label, its error is its description, and it
// says it is invalid only when it has an error.

const UPLOAD = { accept: 'image/png', hint: 'PNG, at most 2 MB' }

/** A refusal as an action answers it: what was typed, and the errors by field. */
const refused = (error: Record<string, string[]>): SubmissionResult<string[]> => ({
  status: 'error',
  initialValue: { title: 'Kept title', description: 'Kept text', level: 'b' },
  error,
})

function Fields({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const [form, fields] = useForm({ id: 'sample', lastResult })
  return (
    <form {...getFormProps(form)}>
      <FormField meta={fields.title} label="Course Title" />
      <FormField meta={fields.email} label="Email" type="email" />
      <FormPasswordField meta={fields.password} label="Password" autoComplete="new-password" />
      <FormTextareaField meta={fields.description} label="Description" />
      <FormSelectField
        meta={fields.level}
        label="Level"
        placeholder="Choose a level"
        options={[
          { value: 'a', label: 'Beginner' },
          { value: 'b', label: 'Advanced' },
        ]}
      />
      <UploadsScope report={() => {}}>
        <FormFileField meta={fields.courseImage} label="Course Image" kind="image" upload={UPLOAD} />
      </UploadsScope>
    </form>
  )
}

const render = (lastResult?: SubmissionResult<string[]>) =>
  parsePage(renderToString(<Fields lastResult={lastResult} />))

describe('the shared form fields', () => {
  it('name each control by its label, with the field name and what was typed', () => {
    const page = render(refused({}))
    const title = page.getByRole('textbox', { name: 'Course Title' })
    expect(title).toHaveAttribute('name', 'title')
    expect(title).toHaveValue('Kept title')
    expect(page.getByLabelText('Course Title')).toBe(title)
    expect(page.getByRole('textbox', { name: 'Email' })).toHaveAttribute('type', 'email')
    const password = page.getByLabelText('Password')
    expect(password).toHaveAttribute('type', 'password')
    expect(password).toHaveAttribute('autocomplete', 'new-password')
    expect(page.getByRole('button', { name: 'Show' })).toHaveAttribute('aria-controls', password.id)
    expect(page.getByRole('textbox', { name: 'Description' })).toHaveValue('Kept text')
    const level = page.getByRole('combobox', { name: 'Level' })
    expect(level).toHaveValue('b')
    expect(page.getAllByRole('option').map((o) => o.textContent)).toEqual(['Choose a level', 'Beginner', 'Advanced'])
    // without JavaScript the file travels with the form in the upload's own field
    const file = page.getByLabelText('Course Image')
    expect(file).toHaveAttribute('type', 'file')
    expect(file).toHaveAttribute('name', 'courseImage')
    expect(file).toHaveAttribute('accept', 'image/png')
    expect(file).toHaveAccessibleDescription(/PNG, at most 2 MB/)
  })

  it('are neither invalid nor described by an error before one is shown', () => {
    const page = render()
    for (const control of [
      page.getByRole('textbox', { name: 'Course Title' }),
      page.getByLabelText('Password'),
      page.getByRole('textbox', { name: 'Description' }),
      page.getByRole('combobox', { name: 'Level' }),
      page.getByLabelText('Course Image'),
    ]) {
      expect(control).not.toHaveAttribute('aria-invalid')
      expect(control).not.toHaveAccessibleDescription(/Please/)
    }
  })

  it('tie each error to its control by aria-describedby and mark the control invalid', () => {
    const errors = {
      title: ['Please enter the Course Title'],
      password: ['Please enter a Password'],
      description: ['Please enter the Description'],
      level: ['Please choose a Level'],
      courseImage: ['Please Upload the Image'],
    }
    const page = render(refused(errors))
    const controls = {
      title: page.getByRole('textbox', { name: 'Course Title' }),
      password: page.getByLabelText('Password'),
      description: page.getByRole('textbox', { name: 'Description' }),
      level: page.getByRole('combobox', { name: 'Level' }),
      courseImage: page.getByLabelText('Course Image'),
    }
    for (const [field, control] of Object.entries(controls)) {
      const [message] = errors[field as keyof typeof errors]
      expect(control, field).toHaveAttribute('aria-invalid', 'true')
      expect(control, field).toHaveAccessibleDescription(new RegExp(message))
      expect(page.getByText(message).id, field).not.toBe('')
      expect(control.getAttribute('aria-describedby')?.split(' '), field).toContain(page.getByText(message).id)
    }
    // a field without an error stays as it was
    expect(page.getByRole('textbox', { name: 'Email' })).not.toHaveAttribute('aria-invalid')
  })
})

function NewThing({ instead }: { instead?: ReactNode }) {
  const [form, fields] = useForm({ id: 'new-thing' })
  return (
    <PageForm
      form={form}
      heading="Add New Thing"
      breadcrumb={[{ label: 'Things', to: '/admin/things' }, { label: 'Add New Thing' }]}
      multipart
      cancelTo="/admin/things"
      instead={instead}
    >
      <FormField meta={fields.title} label="Thing Title" />
      <FormFileField meta={fields.courseImage} label="Thing Image" kind="image" upload={UPLOAD} />
    </PageForm>
  )
}

describe('PageForm', () => {
  it('is a form named by the page heading, posted as multipart, ending with Save and Cancel', async () => {
    const page = await renderComponent(<NewThing />, '/admin/newThing')
    expect(page.getByRole('heading', { level: 1, name: 'Add New Thing' })).toBeInTheDocument()
    const form = page.getByRole('form', { name: 'Add New Thing' })
    expect(form).toHaveAttribute('method', 'post')
    expect(form).toHaveAttribute('enctype', 'multipart/form-data')
    expect(form).toContainElement(page.getByRole('textbox', { name: 'Thing Title' }))
    expect(form).toContainElement(page.getByRole('button', { name: 'Save' }))
    expect(page.getByRole('link', { name: 'Cancel' })).toHaveAttribute('href', '/admin/things')
  })

  it('shows what it is given instead of the form when there is nothing to fill in', async () => {
    const page = await renderComponent(<NewThing instead={<p>Add a course first.</p>} />, '/admin/newThing')
    expect(page.queryByRole('form')).toBeNull()
    expect(page.getByText('Add a course first.')).toBeInTheDocument()
  })
})
