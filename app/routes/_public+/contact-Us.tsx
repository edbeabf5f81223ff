import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { type ActionFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, useActionData, useNavigation } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FormField, FormTextareaField } from '#app/components/forms/fields.tsx'
import { FormSubmit } from '#app/components/forms/form-submit.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { ContactSchema } from '#app/modules/contact/schema.ts'
import { sendContactMessage } from '#app/modules/contact/service.server.ts'
import { useOptionalUser } from '#app/root.tsx'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { clientAddress } from '#app/utils/client-address.server.ts'
import { pageAction, invalidForm, readForm, submitToService, type FormReply } from '#app/utils/forms.server.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'

export const meta: MetaFunction = () => [{ title: `Contact Us · ${PRODUCT_NAME}` }]

export const action = (args: ActionFunctionArgs) => pageAction(args, runAction)

async function runAction({ request }: ActionFunctionArgs) {
  const submission = parseWithZod(await readForm(request), { schema: ContactSchema })
  if (submission.status !== 'success') return invalidForm(submission)
  const address = clientAddress(request)
  const sent = await submitToService(submission, () => sendContactMessage(submission.value, { address }))
  if (!sent.ok) return sent.response
  return redirectWithSuccess('/contact-Us', 'Thank you, your message is on its way. We answer within two working days.')
}

export default function ContactUs() {
  const actionData = useActionData<FormReply>()
  const navigation = useNavigation()
  const user = useOptionalUser()
  const [form, fields] = useZodForm(ContactSchema, {
    id: 'contact',
    lastResult: actionData?.result,
    defaultValue: user ? { name: `${user.firstName} ${user.lastName}`.trim(), email: user.email } : undefined,
  })
  const sending = navigation.state === 'submitting'
  return (
    <main className="mx-auto grid max-w-5xl gap-10 px-4 py-10 sm:px-6 md:grid-cols-[1fr_1.3fr]">
      <section aria-labelledby="reach-us">
        <h1 id="reach-us" className="text-3xl font-bold">
          Contact Us
        </h1>
        <p className="mt-4 text-slate-700">
          Questions about a course, access for your team, or trouble signing in? Write to us and the {PRODUCT_NAME} team
          answers within two working days.
        </p>
        <dl className="mt-6 space-y-4 text-sm">
          <div>
            <dt className="font-semibold">Training for your company</dt>
            <dd className="text-slate-600">Tell us how many people and which subjects; we suggest a program.</dd>
          </div>
          <div>
            <dt className="font-semibold">Learners</dt>
            <dd className="text-slate-600">
              Your administrator assigns your courses. If a course is missing from My Courses, ask them first.
            </dd>
          </div>
          <div>
            <dt className="font-semibold">Forgotten password</dt>
            <dd className="text-slate-600">
              Use{' '}
              <a href="/forgot-Password" className="text-brand-700 underline">
                Forgot Password
              </a>{' '}
              on the sign-in page: the reset link arrives by mail in a minute.
            </dd>
          </div>
        </dl>
      </section>
      <Form method="post" className="card space-y-1 p-6" {...getFormProps(form)}>
        <h2 className="mb-4 text-lg font-semibold">Send us a message</h2>
        <FormField meta={fields.name} label="Your name" autoComplete="name" />
        <FormField meta={fields.email} label="Your email" type="email" autoComplete="email" />
        <FormField meta={fields.subject} label="Subject" />
        <FormTextareaField meta={fields.message} label="Message" rows={6} />
        {/* people never see this field; robots fill it in */}
        <div className="hidden" aria-hidden>
          <label htmlFor="contact-website">Website</label>
          <input id="contact-website" type="text" name="website" tabIndex={-1} autoComplete="off" />
        </div>
        <FormSubmit form={form} label="Send message" busy={sending} busyLabel="Sending…" />
      </Form>
    </main>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary landmark />
}
