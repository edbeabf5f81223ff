import { parseWithZod } from '@conform-to/zod'
import { parseTableQuery } from '#app/components/ui/table-query.ts'
import { readDueFilter } from '#app/modules/assignments/due-filter.ts'
import { overdueCounts } from '#app/modules/assignments/due.server.ts'
import type { SessionUser } from '#app/modules/auth/service.server.ts'
import { NewCoachSchema, RegisterSchema } from '#app/modules/users/schema.ts'
import {
  createCoach,
  listUsers,
  registerUser,
  USER_LIST_ORDER,
  USER_SORT_KEYS,
} from '#app/modules/users/service.server.ts'
import { invalidForm, readForm, submitToService } from '#app/utils/forms.server.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'

// The three people lists share their loader and their create action.

const PASSWORD_FIELDS = ['password', 'confirmPassword']

export async function loadPeople(user: SessionUser, request: Request, kind: 'learner' | 'admin' | 'coach') {
  const query = parseTableQuery(new URL(request.url), {
    sortKeys: USER_SORT_KEYS,
    defaultSort: USER_LIST_ORDER.sort,
    defaultDir: USER_LIST_ORDER.dir,
  })
  const { rows, total } = await listUsers(user, kind, { ...query, limit: query.size })
  return { rows, total, query }
}

/**
 * Users List: the list as loadPeople reads it, narrowed by `?due=overdue` or `?due=7` (learners with an
 * overdue assignment, or one due within so many days), with each row's count of overdue assignments.
 */
export async function loadLearners(user: SessionUser, request: Request) {
  const url = new URL(request.url)
  const due = readDueFilter(url.searchParams.get('due'))
  const query = parseTableQuery(url, {
    sortKeys: USER_SORT_KEYS,
    defaultSort: USER_LIST_ORDER.sort,
    defaultDir: USER_LIST_ORDER.dir,
  })
  const now = new Date()
  const { rows, total } = await listUsers(user, 'learner', { ...query, limit: query.size, due, now })
  const overdue = await overdueCounts(
    user,
    rows.map((r) => r._id),
    now,
  )
  return { rows: rows.map((r) => ({ ...r, overdue: overdue[r._id] ?? 0 })), total, query, due: due ?? null }
}

export async function createPerson(
  user: SessionUser,
  request: Request,
  kind: 'learner' | 'admin' | 'coach',
  back: string,
) {
  const formData = await readForm(request)
  if (kind === 'coach') {
    const submission = parseWithZod(formData, { schema: NewCoachSchema })
    if (submission.status !== 'success') return invalidForm(submission)
    const created = await submitToService(submission, () => createCoach(user, submission.value))
    if (!created.ok) return created.response
    return redirectWithSuccess(back, `Coach ${created.value.userName} created; the invitation mail is on its way.`)
  }
  // the list decides the role, never the posted form
  formData.set('role', kind)
  const submission = parseWithZod(formData, { schema: RegisterSchema })
  if (submission.status !== 'success') return invalidForm(submission, { hideFields: PASSWORD_FIELDS })
  const created = await submitToService(submission, () => registerUser(user, submission.value), {
    hideFields: PASSWORD_FIELDS,
  })
  if (!created.ok) return created.response
  return redirectWithSuccess(back, `${kind === 'admin' ? 'Admin' : 'User'} ${created.value.userName} created.`)
}
