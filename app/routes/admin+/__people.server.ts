import { parseWithZod } from '@conform-to/zod'
import { parseTableQuery } from '#app/components/ui/table-query.ts'
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
