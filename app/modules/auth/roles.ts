// role.r_id as the /api and the old client number them (docs/product.md#roles).
export const ROLE = { superAdmin: 1, learner: 2, admin: 3, coach: 4 } as const
export type RoleId = (typeof ROLE)[keyof typeof ROLE]

export const ROLE_NAMES: Record<RoleId, string> = {
  1: 'Super admin',
  2: 'Learner',
  3: 'Admin',
  4: 'Coach',
}

/** Role names as the CLI and the registration payload spell them. */
export const ROLE_BY_NAME = {
  superadmin: ROLE.superAdmin,
  admin: ROLE.admin,
  coach: ROLE.coach,
  learner: ROLE.learner,
} as const satisfies Record<string, RoleId>

/**
 * The acting user every service call takes. The CLI acts as SYSTEM: an operator with shell access
 * to the server holds the super admin's role, so it asks the permission table (permissions.ts) like
 * anyone, and nothing is recorded as done by a user.
 */
export type Actor = { id: string | null; roleId: RoleId }
export const SYSTEM: Actor = { id: null, roleId: ROLE.superAdmin }
