import { getFormProps } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod'
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { ProviderAddresses, ProviderFields } from '#app/components/admin/provider-form.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FormField } from '#app/components/forms/fields.tsx'
import { FormSubmit } from '#app/components/forms/form-submit.tsx'
import { useZodForm } from '#app/components/forms/use-zod-form.ts'
import { EmptyState } from '#app/components/ui/empty-state.tsx'
import { TABLE_CELL, TableSection } from '#app/components/ui/table-section.tsx'
import { unknownTargets } from '#app/modules/sso/provider-form.server.ts'
import { HIDDEN_FIELDS, NewProviderFormSchema } from '#app/modules/sso/provider-form.ts'
import { addProvider, listProviders } from '#app/modules/sso/providers.server.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { getEnv } from '#app/utils/env.server.ts'
import { invalidForm, pageAction, readForm, submitToService, type FormReply } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requirePagePermission } from '#app/utils/session.server.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'

// Company sign-in, for the super admin only: the identity providers people may sign in through, and the form that
// adds one (a plain form: it works without JavaScript, each refusal beside its field, the client secret never sent
// back), with the addresses to register at the provider for the short name typed.

export const meta: MetaFunction = () => [{ title: `Company sign-in · ${PRODUCT_NAME}` }]

const PAGE = '/admin/sso'
const BACK = '/admin/dashboard'
const providerPage = (slug: string) => `${PAGE}/${encodeURIComponent(slug)}`

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requirePagePermission(request, 'manage:identity-providers', BACK)
  const providers = await listProviders(user)
  return json(
    {
      providers: providers.map((p) => ({
        slug: p.slug,
        name: p.name,
        issuer: p.issuer,
        domains: p.domains,
        required: p.required,
        createAccounts: p.createAccounts,
        rules: p.rules.length,
        identities: p.identities,
      })),
      publicUrl: getEnv().PUBLIC_URL,
    },
    { headers: { 'Cache-Control': 'private, no-store' } },
  )
}

export const action = (args: ActionFunctionArgs) => pageAction(args, runAction)

async function runAction({ request }: ActionFunctionArgs) {
  const user = await requirePagePermission(request, 'manage:identity-providers', BACK)
  const hidden = { hideFields: HIDDEN_FIELDS }
  const submission = parseWithZod(await readForm(request), { schema: NewProviderFormSchema })
  if (submission.status !== 'success') return invalidForm(submission, hidden)
  const unknown = await unknownTargets(submission.value.rules)
  if (unknown.length) return invalidForm(submission, { fieldErrors: { rules: unknown }, ...hidden })
  const added = await submitToService(submission, () => addProvider(user, submission.value), hidden)
  if (!added.ok) return added.response
  return redirectWithSuccess(
    providerPage(added.value.slug),
    `${added.value.name} added: people at ${added.value.domains.join(', ')} can sign in through it.`,
  )
}

const yesNo = (value: boolean) => (value ? 'Yes' : 'No')

export default function CompanySignIn() {
  const { providers, publicUrl } = useLoaderData<typeof loader>()
  const actionData = useActionData<FormReply>()
  const busy = useNavigation().state !== 'idle'
  const [form, fields] = useZodForm(NewProviderFormSchema, {
    id: 'new-provider',
    lastResult: actionData?.result,
    defaultValue: { scopes: 'openid email profile', groupsClaim: 'groups' },
  })
  const slug = typeof fields.slug.value === 'string' ? fields.slug.value.trim().toLowerCase() : ''

  return (
    <>
      <h1 className="text-2xl font-bold">Company sign-in</h1>
      <p className="mt-2 max-w-3xl text-sm text-slate-600">
        People at a company with its own identity provider (Microsoft Entra ID, Google Workspace, Okta, Keycloak or any
        other OpenID Connect provider) can sign in with their company account instead of a portal password. Each
        provider serves some email domains; it can be required for them (passwords off), create learner accounts for
        people who have none, and assign programs and courses by the groups it names.
      </p>

      {providers.length === 0 ? (
        <section aria-labelledby="providers-heading" className="mt-6">
          <h2 id="providers-heading" className="text-lg font-semibold">
            Identity providers
          </h2>
          <EmptyState
            className="card mt-3"
            title="No identity provider yet"
            text="Until one is added, everyone signs in with a password. Add the company’s provider below: its people then find a button to sign in with it on the sign-in page."
            action={
              <a href="#add-heading" className="btn-primary">
                Add a provider
              </a>
            }
          />
        </section>
      ) : (
        <TableSection
          id="providers-heading"
          title="Identity providers"
          caption="Identity providers"
          columns={[
            'Name',
            'Short name',
            'Issuer',
            'Email domains',
            'Required',
            'Creates accounts',
            'Rules',
            'People signed in',
          ]}
        >
          {providers.map((p) => (
            <tr key={p.slug}>
              <th scope="row" className={`${TABLE_CELL} font-medium`}>
                <Link to={providerPage(p.slug)} className="text-brand-700 hover:underline">
                  {p.name}
                </Link>
              </th>
              <td className={TABLE_CELL}>
                <code>{p.slug}</code>
              </td>
              <td className={`${TABLE_CELL} min-w-48 break-all`}>{p.issuer}</td>
              <td className={`${TABLE_CELL} min-w-32 break-words`}>{p.domains.join(', ')}</td>
              <td className={TABLE_CELL}>{yesNo(p.required)}</td>
              <td className={TABLE_CELL}>{yesNo(p.createAccounts)}</td>
              <td className={`${TABLE_CELL} tabular-nums`}>{p.rules}</td>
              <td className={`${TABLE_CELL} tabular-nums`}>{p.identities}</td>
            </tr>
          ))}
        </TableSection>
      )}

      <section aria-labelledby="add-heading" className="mt-8 max-w-5xl">
        <h2 id="add-heading" className="text-lg font-semibold">
          Add a provider
        </h2>
        <div className="mt-3 grid gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
          <Form
            method="post"
            aria-labelledby="add-heading"
            className="card grid min-w-0 gap-x-4 gap-y-1 p-4 sm:grid-cols-2 sm:p-6"
            {...getFormProps(form)}
          >
            <FormField
              meta={fields.slug}
              label="Short name"
              hint="Lower-case letters, digits and dashes, such as acme. It is in the addresses below and cannot change."
              autoComplete="off"
              spellCheck={false}
            />
            <ProviderFields fields={fields} />
            <div className="sm:col-span-2">
              <FormSubmit form={form} label="Add provider" busy={busy} busyLabel="Checking the provider…" />
            </div>
          </Form>
          <div className="min-w-0">
            <ProviderAddresses publicUrl={publicUrl} slug={slug} />
            <p className="mt-3 text-sm text-slate-600">
              Adding the provider reads its discovery document from the issuer URL, so a mistyped address is caught now.
            </p>
          </div>
        </div>
      </section>
    </>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
