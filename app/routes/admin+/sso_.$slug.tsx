import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { ProviderAddresses, ProviderFields } from '#app/components/admin/provider-form.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { Breadcrumb } from '#app/components/ui/breadcrumb.tsx'
import { DetailList } from '#app/components/ui/detail-list.tsx'
import { FormError } from '#app/components/ui/form-footer.tsx'
import { Overlay } from '#app/components/ui/overlay.tsx'
import { TABLE_CELL, TableSection } from '#app/components/ui/table-section.tsx'
import { UtcTime } from '#app/components/ui/utc-time.tsx'
import { applyMapping, previewMapping, type GrantChange } from '#app/modules/sso/grants.server.ts'
import { keptRulesText, unknownTargets } from '#app/modules/sso/provider-form.server.ts'
import { HIDDEN_FIELDS, ProviderEditFormSchema } from '#app/modules/sso/provider-form.ts'
import { getProvider, removeProvider, updateProvider } from '#app/modules/sso/providers.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { getEnv } from '#app/utils/env.server.ts'
import { invalidForm, pageAction, readForm, submitToService, type FormReply } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requirePagePermission } from '#app/utils/session.server.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'

// One identity provider, for the super admin: its fields to change (the client secret kept when left empty), its
// group rules with a dry run of what they would change (Preview: nothing saved) and Save and apply (saved, then
// applied to everyone who signed in through it before), and Remove, which asks first. Plain forms: everything
// works without JavaScript.

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.provider.name ?? 'Identity provider'} · Company sign-in · ${PRODUCT_NAME}` },
]

const LIST = '/admin/sso'
const BACK = '/admin/dashboard'
const pageOf = (slug: string) => `${LIST}/${encodeURIComponent(slug)}`

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request, params }: LoaderFunctionArgs) {
  const user = await requirePagePermission(request, 'manage:identity-providers', BACK)
  const provider = await getProvider(user, params.slug ?? '')
  return json(
    { provider, rulesText: await keptRulesText(provider.rules), publicUrl: getEnv().PUBLIC_URL },
    { headers: { 'Cache-Control': 'private, no-store' } },
  )
}

/** The form's answer: its values and errors, and after Preview what applying the typed rules would change. */
type EditReply = FormReply & { preview?: GrantChange[] }

export const action = (args: ActionFunctionArgs) => pageAction(args, runAction)

async function runAction({ request, params }: ActionFunctionArgs) {
  const user = await requirePagePermission(request, 'manage:identity-providers', BACK)
  const slug = params.slug ?? ''
  const formData = await readForm(request)
  const intent = formData.get('intent')
  if (intent === 'remove') {
    const removed = await removeProvider(user, slug)
    return redirectWithSuccess(
      LIST,
      `${removed.name} removed. The people who signed in through it keep their portal accounts and assignments.`,
    )
  }

  const hidden = { hideFields: HIDDEN_FIELDS }
  const submission = parseWithZod(formData, { schema: ProviderEditFormSchema })
  if (submission.status !== 'success') return invalidForm(submission, hidden)
  const { rules, issuer, clientId, ...rest } = submission.value
  const unknown = await unknownTargets(rules)
  if (unknown.length) return invalidForm(submission, { fieldErrors: { rules: unknown }, ...hidden })

  if (intent === 'preview') {
    const previewed = await submitToService(submission, () => previewMapping(user, slug, rules), hidden)
    if (!previewed.ok) return previewed.response
    return json<EditReply>({ result: submission.reply(hidden), preview: previewed.value })
  }

  const saved = await submitToService(
    submission,
    async () => {
      const before = await getProvider(user, slug)
      // the discovery document is read again only when where or who the portal is at the provider changes
      const provider = await updateProvider(user, slug, {
        ...rest,
        rules,
        issuer: issuer === before.issuer ? undefined : issuer,
        clientId: clientId === before.clientId ? undefined : clientId,
      })
      return { provider, applied: intent === 'apply' ? await applyMapping(user, slug) : undefined }
    },
    hidden,
  )
  if (!saved.ok) return saved.response
  const { provider, applied } = saved.value
  return redirectWithSuccess(
    pageOf(provider.slug),
    applied ? `${provider.name} saved; its rules applied: ${changesInWords(applied)}.` : `${provider.name} saved.`,
  )
}

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`

/** What applying the rules changed, as the toast says it. */
function changesInWords(changes: GrantChange[]) {
  if (changes.length === 0) return 'no learner gained or lost an assignment'
  const part = (action: GrantChange['action'], verb: string) => {
    const these = changes.filter((c) => c.action === action)
    const learners = new Set(these.map((c) => c.userId)).size
    return these.length ? `${plural(these.length, 'assignment')} ${verb} ${plural(learners, 'learner')}` : undefined
  }
  return [part('gain', 'given to'), part('lose', 'taken from')].filter(Boolean).join(', ')
}

const ACTION_WORDS: Record<GrantChange['action'], string> = { gain: 'Gains', lose: 'Loses' }
const KIND_WORDS: Record<GrantChange['kind'], string> = { program: 'Program', course: 'Course' }

export default function IdentityProvider() {
  const { provider, rulesText, publicUrl } = useLoaderData<typeof loader>()
  const actionData = useActionData<EditReply>()
  const navigation = useNavigation()
  const busy = navigation.state !== 'idle'
  const submitted = navigation.formData?.get('intent')
  const [params] = useSearchParams()
  const page = pageOf(provider.slug)
  const [form, fields] = useZodForm(ProviderEditFormSchema, {
    id: 'edit-provider',
    lastResult: actionData?.result,
    defaultValue: {
      name: provider.name,
      issuer: provider.issuer,
      clientId: provider.clientId,
      scopes: provider.scopes,
      domains: provider.domains.join(', '),
      required: provider.required ? 'on' : undefined,
      createAccounts: provider.createAccounts ? 'on' : undefined,
      accountGroups: provider.accountGroups.join(', '),
      groupsClaim: provider.groupsClaim,
      rules: rulesText,
    },
  })
  const signIns = `/admin/sign-ins?provider=${encodeURIComponent(provider.slug)}`

  return (
    <>
      <Breadcrumb items={[{ label: 'Company sign-in', to: LIST }, { label: provider.name }]} />
      <h1 className="mt-2 text-2xl font-bold">{provider.name}</h1>
      <DetailList
        className="mt-4 max-w-5xl grid-cols-1 text-sm sm:grid-cols-2 lg:grid-cols-4"
        items={[
          ['Short name', <code key="slug">{provider.slug}</code>],
          [
            'People signed in through it',
            <>
              {provider.identities}{' '}
              <Link to={signIns} className="text-brand-700 hover:underline">
                (their sign-ins)
              </Link>
            </>,
          ],
          ['Client secret', provider.secretReadable ? 'Kept, sealed' : 'Kept, but cannot be read'],
          ['Last changed', <UtcTime key="changed" iso={provider.updatedAt} />],
        ]}
      />

      <section aria-labelledby="edit-heading" className="mt-8 max-w-5xl">
        <h2 id="edit-heading" className="text-lg font-semibold">
          Settings and group rules
        </h2>
        <div className="mt-3 grid gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
          <Form
            method="post"
            aria-labelledby="edit-heading"
            preventScrollReset
            className="card grid min-w-0 gap-x-4 gap-y-1 p-4 sm:grid-cols-2 sm:p-6"
            {...getFormProps(form)}
          >
            <ProviderFields fields={fields} keptSecret={{ readable: provider.secretReadable }} />
            <div className="sm:col-span-2">
              <p className="mb-3 text-sm text-slate-600">
                Save keeps the rules: they apply to each person at their next sign-in through {provider.name}. Save and
                apply also applies them now to everyone who signed in before, from the groups of their last sign-in.
                Preview shows what applying the rules typed above would change, saving nothing.
              </p>
              <FormError id={form.errorId} errors={form.errors} />
              <div className="flex flex-wrap gap-3">
                <button type="submit" name="intent" value="save" className="btn-primary" disabled={busy}>
                  {submitted === 'save' ? 'Saving…' : 'Save'}
                </button>
                <button type="submit" name="intent" value="apply" className="btn-secondary" disabled={busy}>
                  {submitted === 'apply' ? 'Applying…' : 'Save and apply'}
                </button>
                <button type="submit" name="intent" value="preview" className="btn-secondary" disabled={busy}>
                  {submitted === 'preview' ? 'Previewing…' : 'Preview'}
                </button>
              </div>
            </div>
          </Form>
          <div className="min-w-0">
            <ProviderAddresses publicUrl={publicUrl} slug={provider.slug} />
          </div>
        </div>
      </section>

      {actionData?.preview ? <Preview changes={actionData.preview} /> : null}

      <section aria-labelledby="remove-heading" className="mt-8 max-w-3xl">
        <h2 id="remove-heading" className="text-lg font-semibold">
          Remove this provider
        </h2>
        <p className="mt-2 text-sm text-slate-600">
          Its sign-in button goes; the people who signed in through it keep their portal accounts and assignments, and
          sign in with a password from then on (one who has none sets it through Forgot password).
        </p>
        <Link
          to={`?remove=${encodeURIComponent(provider.slug)}`}
          preventScrollReset
          className="btn mt-3 bg-red-600 text-white hover:bg-red-700"
        >
          Remove {provider.name}
        </Link>
      </section>

      {params.get('remove') === provider.slug ? (
        <Overlay
          title="Remove identity provider"
          role="alertdialog"
          closeTo={page}
          description={`Remove ${provider.name}? Nobody can sign in through it any more. The people who signed in through it keep their portal accounts and assignments.`}
        >
          <Form method="post" action={page} className="flex justify-end gap-3">
            <input type="hidden" name="intent" value="remove" />
            <a href={page} className="btn-secondary" data-autofocus>
              Cancel
            </a>
            <button type="submit" className="btn bg-red-600 text-white hover:bg-red-700" disabled={busy}>
              {busy ? 'Removing…' : 'Remove'}
            </button>
          </Form>
        </Overlay>
      ) : null}
    </>
  )
}

/** What applying the typed rules would change: who would gain or lose which assignment. Nothing is saved. */
function Preview({ changes }: { changes: GrantChange[] }) {
  return (
    <>
      <TableSection
        id="preview-heading"
        title="Preview: what applying these rules would change"
        caption="Assignments the rules typed would give or take away"
        columns={['Learner', 'Change', 'Program or course', 'Title']}
        className="mt-8 max-w-5xl"
        empty={changes.length === 0 ? 'No learner would gain or lose an assignment.' : undefined}
      >
        {changes.map((change) => (
          <tr key={`${change.userId}-${change.action}-${change.kind}-${change.id}`}>
            <th scope="row" className={`${TABLE_CELL} font-medium`}>
              {change.name || change.email}
              <span className="block break-all text-xs font-normal text-slate-500">{change.email}</span>
            </th>
            <td className={TABLE_CELL}>{ACTION_WORDS[change.action]}</td>
            <td className={TABLE_CELL}>{KIND_WORDS[change.kind]}</td>
            <td className={`${TABLE_CELL} min-w-40`}>{change.title}</td>
          </tr>
        ))}
      </TableSection>
      <p className="mt-2 max-w-5xl text-sm text-slate-600">
        Nothing was saved. From the groups each learner had at their last sign-in; Save and apply makes these changes.
      </p>
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
