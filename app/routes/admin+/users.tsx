import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useSearchParams } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { PeoplePage } from '#app/components/people/people-page.tsx'
import { keptParams, tableHref } from '#app/components/ui/table-query.ts'
import { DUE_WITHIN_DAYS, type DueFilter } from '#app/modules/assignments/due-filter.ts'
import { can } from '#app/modules/auth/permissions.ts'
import { PRODUCT_NAME } from '#app/utils/brand.ts'
import { type FormReply, pageAction } from '#app/utils/forms.server.ts'
import { pageLoader } from '#app/utils/pages.server.ts'
import { requireAdminSide, requirePeopleManager } from '#app/utils/session.server.ts'
import { createPerson, loadLearners } from './__people.server.ts'

export const meta: MetaFunction = () => [{ title: `Users · ${PRODUCT_NAME}` }]

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, loadPage)

async function loadPage({ request }: LoaderFunctionArgs) {
  const user = await requireAdminSide(request)
  return json({ ...(await loadLearners(user, request)), canCreate: can(user, 'manage:people') })
}

export const action = (args: ActionFunctionArgs) => pageAction(args, runAction)

async function runAction({ request }: ActionFunctionArgs) {
  const user = await requirePeopleManager(request, '/admin/users')
  return createPerson(user, request, 'learner', '/admin/users')
}

export default function UsersList() {
  const { rows, total, query, due, canCreate } = useLoaderData<typeof loader>()
  const actionData = useActionData<FormReply>()
  return (
    <PeoplePage
      filters={<DueFilterForm due={due} />}
      extraColumns={[
        {
          id: 'overdue',
          header: 'Overdue',
          cell: (r) =>
            r.overdue > 0 ? (
              <span className="font-medium text-red-800">{r.overdue} overdue</span>
            ) : (
              <span className="text-slate-500">None</span>
            ),
        },
      ]}
      title="Users List"
      path="/admin/users"
      kind="learner"
      rows={rows}
      total={total}
      query={query}
      createLabel={canCreate ? 'Create New User' : null}
      lastResult={actionData?.result}
      rowHref={(r) => `/admin/user/${r._id}`}
    >
      {canCreate ? (
        <p className="mt-4 text-sm">
          Many people at once?{' '}
          <Link to="/admin/users/import" className="font-medium text-brand-700 underline">
            Import users
          </Link>{' '}
          from a CSV file.
        </p>
      ) : null}
    </PeoplePage>
  )
}

const DUE_CHOICES: { value: string; label: string }[] = [
  { value: '', label: 'All' },
  { value: 'overdue', label: 'Overdue' },
  ...DUE_WITHIN_DAYS.map((days) => ({
    value: String(days),
    label: `Due within ${days} ${days === 1 ? 'day' : 'days'}`,
  })),
]

/** "Due dates": all, overdue, or due within N days, as `?due=` on the list's URL (search and sort kept). */
function DueFilterForm({ due }: { due: DueFilter | null }) {
  const [params] = useSearchParams()
  return (
    <Form method="get" action="/admin/users" className="mt-4 flex flex-wrap items-end gap-2" aria-label="Due dates">
      {keptParams(params, ['due', 'page', 'new']).map(([name, value], index) => (
        <input key={`${name}-${index}`} type="hidden" name={name} value={value} />
      ))}
      <div>
        <label htmlFor="due-filter" className="field-label">
          Due dates
        </label>
        <select
          id="due-filter"
          name="due"
          defaultValue={due === null ? '' : String(due)}
          key={String(due)}
          className="field-input"
        >
          {DUE_CHOICES.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" className="btn-secondary">
        Filter
      </button>
      {due !== null ? (
        <Link to={tableHref('/admin/users', params, { due: null, page: null })} className="btn px-2 text-brand-700">
          Show all
        </Link>
      ) : null}
    </Form>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
