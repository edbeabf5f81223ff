import { getFormProps, type FormMetadata } from '@conform-to/react'
import { Form, useNavigation } from '@remix-run/react'
import { type ReactNode } from 'react'
import { Breadcrumb } from '#app/components/ui/breadcrumb.tsx'
import { FormFooter } from '#app/components/ui/form-footer.tsx'
import { UploadsScope, useUploads } from './fields.tsx'

/**
 * An admin page that is one form (Add New Course, Add New Video, Add Documents…): the breadcrumb, the
 * heading that names the form, the form posted to the page (multipart when it carries a file), its
 * fields, then its error, Save (waiting for the uploads of its file fields) and Cancel. `instead`
 * takes the form's place when there is nothing to fill in yet.
 */
export function PageForm({
  form,
  heading,
  breadcrumb,
  multipart = false,
  className = 'card mt-6 space-y-2 p-6',
  cancelTo,
  instead,
  children,
}: {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any page's form, whatever its schema
  form: FormMetadata<any, string[]>
  heading: string
  breadcrumb: { label: string; to?: string }[]
  multipart?: boolean
  className?: string
  cancelTo: string
  instead?: ReactNode
  children: ReactNode
}) {
  const navigation = useNavigation()
  const { uploading, report } = useUploads()
  const saving = navigation.state !== 'idle' && navigation.formMethod === 'POST'
  const headingId = `${form.id}-heading`
  return (
    <div className="max-w-2xl">
      <Breadcrumb items={breadcrumb} />
      <h1 id={headingId} className="mt-2 text-2xl font-bold">
        {heading}
      </h1>
      {instead ?? (
        <Form
          method="post"
          encType={multipart ? 'multipart/form-data' : undefined}
          className={className}
          aria-labelledby={headingId}
          {...getFormProps(form)}
        >
          <UploadsScope report={report}>{children}</UploadsScope>
          <FormFooter
            errorId={form.errorId}
            error={form.errors?.[0]}
            saving={saving}
            busy={uploading}
            cancelTo={cancelTo}
          />
        </Form>
      )}
    </div>
  )
}
