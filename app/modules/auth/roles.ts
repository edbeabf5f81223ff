// role.r_id as the /api and the old client number them (docs/product.md#roles).
export const ROLE = { superAdmin: 1, learner: 2, admin: 3, coach: 4 } as const
export type RoleId = (typeof ROLE)[keyof typeof ROLE]
/** A role as the code names it: the keys of ROLE, the names the permission table lists. */
export type RoleName = keyof typeof ROLE

/**
 * "Admin or super admin", named once: the roles of the people the product calls admins. What they may do
 * is the permission table's (permissions.ts); this says who they are, for the Admin's list, the
 * dashboard's count, the contact form's recipients and the roles only the super admin gives.
 */
export const ADMIN_ROLE_NAMES = ['superAdmin', 'admin'] as const satisfies readonly RoleName[]
/** The same roles by id, as users.role_id keeps them. */
export const ADMIN_ROLES: readonly RoleId[] = ADMIN_ROLE_NAMES.map((name) => ROLE[name])

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
