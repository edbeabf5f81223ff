import { describe, expect, it } from 'vitest'
import { canManageContent, isAdminSide, landingPath, ROLE } from './roles.ts'

describe('roles', () => {
  it('sends r_id 1, 3 and 4 to the admin dashboard and a learner to My Courses', () => {
    expect(landingPath(ROLE.superAdmin)).toBe('/admin/dashboard')
    expect(landingPath(ROLE.admin)).toBe('/admin/dashboard')
    expect(landingPath(ROLE.coach)).toBe('/admin/dashboard')
    expect(landingPath(ROLE.learner)).toBe('/courses')
    expect(landingPath(99)).toBe('/courses')
  })
  it('lets a coach into the admin area but not change content', () => {
    expect(isAdminSide(ROLE.coach)).toBe(true)
    expect(canManageContent(ROLE.coach)).toBe(false)
    expect(canManageContent(ROLE.admin)).toBe(true)
    expect(isAdminSide(ROLE.learner)).toBe(false)
  })
})
