import { describe, expect, it } from 'vitest'
import { ServiceError } from '../errors.ts'
import {
  can,
  landingPath,
  PERMISSION_NAMES,
  PERMISSIONS,
  permissionsOf,
  requirePermission,
  type Permission,
} from './permissions.ts'
import { ROLE, SYSTEM } from './roles.ts'

// Today's rules, written out by hand: a change to the table must change this grid too, on purpose.
// S = super admin, A = admin, C = coach, L = learner.
const GRID: Record<Permission, string> = {
  'enter:admin-area': 'SAC',
  'read:dashboard': 'SAC',
  'read:access-log': 'SAC',
  'prune:access-log': 'S',
  'read:people': 'SAC',
  'manage:people': 'SA',
  'manage:admins': 'S',
  'read:sign-ins': 'SA',
  'manage:identity-providers': 'S',
  'update:content': 'SA',
  'read:course:any': 'SAC',
  'read:course:assigned': 'L',
  'record:progress:own': 'L',
  'upload:assessment:own': 'L',
  'review:assessment': 'SAC',
  'read:mail-queue': 'SAC',
  'read:exports': 'SAC',
  'manage:exports': 'SA',
  'read:jobs': 'SAC',
  'manage:jobs': 'SA',
  'read:backups': 'S',
  'manage:backups': 'S',
  'read:certificates': 'SAC',
  'manage:certificates': 'SA',
  'read:certificates:own': 'L',
  'read:reminders': 'SAC',
  'manage:reminders': 'SA',
  'sign-in:bridge': 'ACL',
}
const LETTER = { S: ROLE.superAdmin, A: ROLE.admin, C: ROLE.coach, L: ROLE.learner } as const

describe('the permission table', () => {
  it('gives each role what it has today', () => {
    expect(Object.keys(GRID).sort()).toEqual([...PERMISSION_NAMES].sort())
    for (const [letter, roleId] of Object.entries(LETTER))
      for (const permission of PERMISSION_NAMES)
        expect(can({ id: 'someone', roleId }, permission), `${letter} ${permission}`).toBe(
          GRID[permission].includes(letter),
        )
  })

  it('sends r_id 1, 3 and 4 to the admin dashboard and a learner to My Courses', () => {
    expect(landingPath(ROLE.superAdmin)).toBe('/admin/dashboard')
    expect(landingPath(ROLE.admin)).toBe('/admin/dashboard')
    expect(landingPath(ROLE.coach)).toBe('/admin/dashboard')
    expect(landingPath(ROLE.learner)).toBe('/courses')
    expect(landingPath(99)).toBe('/courses')
  })

  it('lets a coach into the admin area but not change content or people', () => {
    const coach = { id: 'c', roleId: ROLE.coach }
    expect(can(coach, 'enter:admin-area')).toBe(true)
    expect(can(coach, 'update:content')).toBe(false)
    expect(can(coach, 'manage:people')).toBe(false)
    expect(can({ id: 'a', roleId: ROLE.admin }, 'update:content')).toBe(true)
    expect(can({ id: 'l', roleId: ROLE.learner }, 'enter:admin-area')).toBe(false)
  })

  it('denies by default: no actor, a role id that is no role', () => {
    for (const permission of PERMISSION_NAMES) {
      expect(can(undefined, permission)).toBe(false)
      expect(can(null, permission)).toBe(false)
      expect(can({ id: 'x', roleId: 99 }, permission)).toBe(false)
    }
  })

  it('gives an `own` permission only to an actor with an account', () => {
    expect(can({ id: 'l', roleId: ROLE.learner }, 'record:progress:own')).toBe(true)
    expect(can({ id: null, roleId: ROLE.learner }, 'record:progress:own')).toBe(false)
    expect(can({ id: null, roleId: ROLE.learner }, 'upload:assessment:own')).toBe(false)
  })

  it("lets the CLI's SYSTEM do what the super admin may, but nothing of one's own account", () => {
    for (const permission of PERMISSION_NAMES)
      expect(can(SYSTEM, permission), permission).toBe(
        permissionsOf(ROLE.superAdmin).has(permission) && !('own' in PERMISSIONS[permission]),
      )
  })

  it("refuses with a 403 in the table's words, or the caller's", () => {
    const learner = { id: 'l', roleId: ROLE.learner }
    expect(() => requirePermission(learner, 'read:access-log')).toThrow(
      new ServiceError(403, 'The access log is for the admin side.'),
    )
    expect(() => requirePermission(learner, 'manage:people', 'Only admins can import users.')).toThrow(
      'Only admins can import users.',
    )
    expect(() => requirePermission(learner, 'record:progress:own')).not.toThrow()
  })
})
