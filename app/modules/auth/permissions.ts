import { forbidden } from '../errors.ts'
import { ADMIN_ROLE_NAMES, ROLE, type RoleId, type RoleName } from './roles.ts'

// Who may do what: the one table every check asks, whether it is a page's guard, an /api gate, a
// service or the CLI (whose SYSTEM actor holds the super admin's role). Deny by default: a role not
// listed for a permission, or a role id that is no role, may not. A permission marked `own` is about
// the actor's own records, so an actor without an account (SYSTEM) never has it. Rules that depend on
// the record as well as the role (one's own profile, an assigned course) ask the table first, then
// look at the record. docs/product.md#roles says the same rules in the product's words.

const MANAGERS = ADMIN_ROLE_NAMES
const STAFF = [...ADMIN_ROLE_NAMES, 'coach'] as const satisfies readonly RoleName[]

/** Each permission: the roles that have it, and the refusal a caller without it gets unless told otherwise. */
export const PERMISSIONS = {
  /** /admin pages, the admin links of the menus, landing on the dashboard, a bridge link to the admin area */
  'enter:admin-area': { roles: STAFF, denied: 'You do not have access to the admin area.' },
  'read:dashboard': { roles: STAFF, denied: 'The dashboard is for the admin side.' },
  'read:access-log': { roles: STAFF, denied: 'The access log is for the admin side.' },
  /** `portal db prune-pings`: removing old access-log pings */
  'prune:access-log': { roles: ['superAdmin'], denied: 'Pruning pings is for operators.' },
  /** the lists of users, admins and coaches, anyone's profile, courses and progress, the users export */
  'read:people': { roles: STAFF, denied: 'You do not have permission to do that.' },
  /** create learners and coaches, import users, assign courses and programs */
  'manage:people': { roles: MANAGERS, denied: 'Only admins can manage people.' },
  /** create, change (by import) and remove admin and super admin accounts */
  'manage:admins': { roles: ['superAdmin'], denied: 'Only the super admin can manage admins.' },
  'read:sign-ins': { roles: MANAGERS, denied: 'Only admins can read the record of sign-ins.' },
  /** identity providers for company sign-in: add, change, remove them and apply their group rules */
  'manage:identity-providers': {
    roles: ['superAdmin'],
    denied: 'Only the super admin can manage company sign-in.',
  },
  /** courses, videos, documents, scenarios, programs, their images and files */
  'update:content': { roles: MANAGERS, denied: 'Only admins can change courses and their contents.' },
  /** open any course with its hidden entries, and any document of one */
  'read:course:any': { roles: STAFF, denied: 'This course is not assigned to you.' },
  /** open the courses assigned to oneself, directly or through a program */
  'read:course:assigned': { roles: ['learner'], own: true, denied: 'This course is not assigned to you.' },
  /** heartbeats, video audits and access-log pings: progress is kept for learners only */
  'record:progress:own': { roles: ['learner'], own: true, denied: 'Progress is kept for learners only.' },
  'upload:assessment:own': { roles: ['learner'], own: true, denied: 'Assessments are uploaded by learners.' },
  /** every learner's uploaded assessments, and each one's file */
  'review:assessment': { roles: STAFF, denied: 'Only the admin side reviews assessments.' },
  'read:mail-queue': { roles: STAFF, denied: 'The mail queue is for the admin side.' },
  /** the Scheduled exports page, its runs and their files */
  'read:exports': { roles: STAFF, denied: 'Scheduled exports are for the admin side.' },
  'manage:exports': { roles: MANAGERS, denied: 'Only admins can change scheduled exports.' },
  /** the Jobs page and `portal jobs list`: the queues of background work, their counts and failed jobs */
  'read:jobs': { roles: STAFF, denied: 'Background jobs are for the admin side.' },
  /** retry or cancel a job */
  'manage:jobs': { roles: MANAGERS, denied: 'Only admins can retry or cancel jobs.' },
  /** the Backups page, the scheduled backups and their runs, an archive's download, the dashboard's backup notice */
  'read:backups': { roles: ['superAdmin'], denied: 'Backups are for the super admin and operators.' },
  /** take a backup (`portal backup`), add, run and remove scheduled backups: an archive holds every password hash */
  'manage:backups': { roles: ['superAdmin'], denied: 'Backups are for the super admin and operators.' },
  /** the Certificates page, anyone's certificates, their PDFs and credentials, the certificates export */
  'read:certificates': { roles: STAFF, denied: 'Certificates are for the admin side.' },
  /** revoke and re-issue certificates, give them for completions before certificates were switched on */
  'manage:certificates': { roles: MANAGERS, denied: 'Only admins can revoke or issue certificates.' },
  /** My Certificates: one's own certificates, their PDFs and credentials */
  'read:certificates:own': { roles: ['learner'], own: true, denied: 'Certificates are given to learners.' },
  /** the reminder plan and who may turn reminders off: coaches read it */
  'read:reminders': { roles: STAFF, denied: 'Reminders are for the admin side.' },
  'manage:reminders': { roles: MANAGERS, denied: 'Only admins can change the reminders.' },
  /** be signed in by a partner's bridge link: a partner holding the secret must not become the super admin */
  'sign-in:bridge': {
    roles: ['admin', 'coach', 'learner'],
    denied: 'The super admin signs in with a username and password only.',
  },
} as const satisfies Record<string, { roles: readonly RoleName[]; own?: true; denied: string }>

export type Permission = keyof typeof PERMISSIONS

export const PERMISSION_NAMES = Object.keys(PERMISSIONS) as Permission[]

const GRANTED = new Map<number, ReadonlySet<Permission>>(
  (Object.keys(ROLE) as RoleName[]).map((name) => [
    ROLE[name],
    new Set(PERMISSION_NAMES.filter((p) => (PERMISSIONS[p].roles as readonly RoleName[]).includes(name))),
  ]),
)

/** The permissions a role has, by the table. */
export const permissionsOf = (roleId: RoleId): ReadonlySet<Permission> => GRANTED.get(roleId) ?? new Set()

type Acting = { id?: string | null; roleId: number } | null | undefined

const needsAccount = (permission: Permission) => 'own' in PERMISSIONS[permission]

/** May this actor (a signed-in user, or the CLI's SYSTEM) do this? Its role counts, and for `own` its account. */
export function can(actor: Acting, permission: Permission): boolean {
  if (!actor || !(GRANTED.get(actor.roleId)?.has(permission) ?? false)) return false
  return !needsAccount(permission) || Boolean(actor.id)
}

/** A 403 ServiceError with the permission's refusal (or `denied`) unless the actor may. */
export function requirePermission(
  actor: Acting,
  permission: Permission,
  denied: string = PERMISSIONS[permission].denied,
): void {
  if (!can(actor, permission)) throw forbidden(denied)
}

/** `requirePermission` for an `own` permission: the id of the account the actor's records are kept under. */
export function requireOwnPermission(actor: { id: string | null; roleId: number }, permission: Permission): string {
  requirePermission(actor, permission)
  if (!actor.id) throw new Error(`${permission} was granted to an actor without an account`)
  return actor.id
}

/** Where a user lands after sign-in, or when a signed-in user opens `/`. */
export const landingPath = (roleId: number) => (can({ roleId }, 'enter:admin-area') ? '/admin/dashboard' : '/courses')
