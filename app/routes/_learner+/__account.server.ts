import { parseWithZod } from '@conform-to/zod'
import { json } from '@remix-run/node'
import { can } from '#app/modules/auth/permissions.ts'
import { LOG_OUT_EVERYWHERE_INTENT } from '#app/modules/auth/schema.ts'
import { signOutEverywhere, type SessionUser } from '#app/modules/auth/service.server.ts'
import { timeZoneNames } from '#app/modules/deadlines/due.ts'
import { defaultTimeZone, reminderSettings } from '#app/modules/deadlines/service.server.ts'
import { PasswordChangeSchema, ProfileSchema } from '#app/modules/users/schema.ts'
import { changePassword, editProfile, getProfile } from '#app/modules/users/service.server.ts'
import { invalidForm, readForm, submitToService } from '#app/utils/forms.server.ts'
import { destroySessionCookie, requireUser } from '#app/utils/session.server.ts'
import { redirectWithSuccess } from '#app/utils/toast.server.ts'

// The profile and password pages exist twice (learner and admin menus): the admin side's modules
// re-export the learner's, so one loader and one action each serve both.

export async function profileLoader(request: Request) {
  const user = await requireUser(request)
  const [profile, { learnersMayOptOut }] = await Promise.all([getProfile(user, user.id), reminderSettings()])
  return json({
    profile: {
      firstName: profile.firstName,
      lastName: profile.lastName,
      userName: profile.userName,
      email: profile.email,
      timeZone: profile.timeZone,
      reminderMails: profile.reminderMails,
    },
    timeZones: timeZoneChoices(profile.timeZone),
    // reminders go to learners only (those who learn: whose progress is recorded), and the switch is theirs
    // only where the admins allow it
    remindersSwitch: learnersMayOptOut && can(user, 'record:progress:own'),
  })
}

/**
 * The time zones the profile offers, the server's list (the one a save is checked against), the portal's
 * default named as such. The learner's own zone and the default are on it even where the list spells them
 * otherwise.
 */
function timeZoneChoices(current: string) {
  const portal = defaultTimeZone()
  const names = timeZoneNames()
  for (const name of [current, portal]) if (!names.includes(name)) names.unshift(name)
  return names.map((name) => ({ value: name, label: name === portal ? `${name} (the portal’s default)` : name }))
}

export async function profileAction(request: Request) {
  const user = await requireUser(request)
  const form = await readForm(request)
  if (form.get('intent') === LOG_OUT_EVERYWHERE_INTENT) return logOutEverywhere(request, user)
  const submission = parseWithZod(form, { schema: ProfileSchema })
  if (submission.status !== 'success') return invalidForm(submission)
  const saved = await submitToService(submission, () => editProfile(user, user.id, submission.value))
  if (!saved.ok) return saved.response
  return redirectWithSuccess(new URL(request.url).pathname, 'Profile updated.')
}

const PASSWORD_FIELDS = ['currentPassword', 'password', 'confirmPassword']

/** A changed password signs every session out (ADR 003): this one too, straight to /sign-in. */
export async function passwordAction(request: Request) {
  const user = await requireUser(request)
  const submission = parseWithZod(await readForm(request), { schema: PasswordChangeSchema })
  if (submission.status !== 'success') return invalidForm(submission, { hideFields: PASSWORD_FIELDS })
  const changed = await submitToService(submission, () => changePassword(user, user.id, submission.value), {
    hideFields: PASSWORD_FIELDS,
  })
  if (!changed.ok) return changed.response
  return redirectWithSuccess('/sign-in', 'Password changed. Please sign in with your new password.', {
    headers: { 'Set-Cookie': await destroySessionCookie(request) },
  })
}

/** Every session and API token of the user ends, this one too: straight to /sign-in. */
async function logOutEverywhere(request: Request, user: SessionUser) {
  await signOutEverywhere(user)
  return redirectWithSuccess(
    '/sign-in',
    'You are logged out everywhere: every device and every API token. Sign in again to go on.',
    {
      headers: { 'Set-Cookie': await destroySessionCookie(request) },
    },
  )
}
