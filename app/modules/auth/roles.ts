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
 * to the server has every right, and nothing is recorded as done by a user.
 */
export type Actor = { id: string | null; roleId: RoleId }
export const SYSTEM: Actor = { id: null, roleId: ROLE.superAdmin }

/** Ids 1, 3 and 4 are the admin side, and land on its dashboard. */
export const isAdminSide = (roleId: number) =>
  roleId === ROLE.superAdmin || roleId === ROLE.admin || roleId === ROLE.coach
/** Coaches read the admin side; only admins and the super admin change things. */
export const canManageContent = (roleId: number) => roleId === ROLE.superAdmin || roleId === ROLE.admin
export const isSuperAdmin = (roleId: number) => roleId === ROLE.superAdmin

/** Where a user lands after sign-in, or when a signed-in user opens `/`. */
export const landingPath = (roleId: number) => (isAdminSide(roleId) ? '/admin/dashboard' : '/courses')
