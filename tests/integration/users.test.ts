import { describe, expect, it } from 'vitest'
import { SYSTEM } from '#app/modules/auth/roles.ts'
import { login } from '#app/modules/auth/service.server.ts'
import { createUser, getProfile, listUsers, removeAdmin } from '#app/modules/users/service.server.ts'
import { db } from '#db/client.ts'
import { makeAdmin, makeCoach, makeLearner, makeSuperAdmin, makeUser } from '#tests/factories.ts'

let n = 0
const input = (role: 'superadmin' | 'admin' | 'coach' | 'learner' = 'learner') => {
  n += 1
  return {
    role,
    firstName: 'Grace',
    lastName: 'Hopper',
    userName: `grace${n}${Date.now() % 100000}`,
    email: `grace${n}.${Date.now() % 100000}@example.com`,
    password: 'Cobol-1959!',
  }
}

describe('createUser', () => {
  it('makes an account that can sign in at once, with a hashed password', async () => {
    const data = input()
    const user = await createUser(await makeAdmin(), data)
    expect(user).toMatchObject({ roleId: 2, userName: data.userName, email: data.email })
    const { User } = await db()
    const stored = await User.findByPk(user.id)
    expect(stored?.passwordHash).toMatch(/^\$argon2id\$/)
    const { user: signedIn } = await login({ email: data.userName, password: data.password })
    expect(signedIn.id).toBe(user.id)
  })

  it('lets only the super admin create admins', async () => {
    await expect(createUser(await makeAdmin(), input('admin'))).rejects.toMatchObject({ status: 403 })
    await expect(createUser(await makeAdmin(), input('superadmin'))).rejects.toMatchObject({ status: 403 })
    expect((await createUser(await makeSuperAdmin(), input('admin'))).roleId).toBe(3)
    expect((await createUser(SYSTEM, input('superadmin'))).roleId).toBe(1)
  })

  it('refuses learners and coaches as creators', async () => {
    await expect(createUser(await makeLearner(), input())).rejects.toMatchObject({ status: 403 })
    await expect(createUser(await makeCoach(), input())).rejects.toMatchObject({ status: 403 })
  })

  it('answers 409 naming the field for a duplicate email or username, whatever the case', async () => {
    const admin = await makeAdmin()
    const first = await createUser(admin, input())
    await expect(createUser(admin, { ...input(), email: first.email.toUpperCase() })).rejects.toMatchObject({
      status: 409,
      errors: { email: 'Email already exists.' },
    })
    await expect(createUser(admin, { ...input(), userName: first.userName.toUpperCase() })).rejects.toMatchObject({
      status: 409,
      errors: { userName: 'UserName already exists.' },
    })
  })

  it('refuses invalid input before touching the database', async () => {
    const { User } = await db()
    const before = await User.count()
    await expect(createUser(SYSTEM, { ...input(), password: 'weak' })).rejects.toThrow(/at least 8/)
    expect(await User.count()).toBe(before)
  })
})

describe('getProfile', () => {
  it('lets a learner read only their own profile, and the admin side anyone’s', async () => {
    const [a, b] = [await makeLearner(), await makeLearner()]
    expect((await getProfile(a, a.id))._id).toBe(a.id)
    await expect(getProfile(a, b.id)).rejects.toMatchObject({ status: 403 })
    expect((await getProfile(await makeCoach(), b.id))._id).toBe(b.id)
  })
})

describe('removeAdmin', () => {
  const stillThere = async (user: { id: string; roleId: number }) => {
    const { User } = await db()
    expect(await User.findByPk(user.id)).toMatchObject({ roleId: user.roleId })
  }

  it('lets the super admin remove an admin', async () => {
    const admin = await makeAdmin()
    expect(await removeAdmin(await makeSuperAdmin(), admin.id)).toEqual({ userName: admin.userName })
    const { User } = await db()
    expect(await User.findByPk(admin.id)).toBeNull()
  })

  it('refuses an admin, a coach and a learner as the remover, with a 403', async () => {
    const target = await makeAdmin()
    for (const actor of [await makeAdmin(), await makeCoach(), await makeLearner()])
      await expect(removeAdmin(actor, target.id)).rejects.toMatchObject({ status: 403 })
    await stillThere(target)
  })

  it('does not let the super admin remove their own account', async () => {
    const superAdmin = await makeSuperAdmin()
    await expect(removeAdmin(superAdmin, superAdmin.id)).rejects.toMatchObject({
      status: 400,
      message: 'You cannot remove your own account.',
    })
    await stillThere(superAdmin)
  })

  it('removes only admins: never a super admin, a learner or a coach', async () => {
    const superAdmin = await makeSuperAdmin()
    for (const target of [await makeSuperAdmin(), await makeLearner(), await makeCoach()]) {
      await expect(removeAdmin(superAdmin, target.id)).rejects.toMatchObject({
        status: 400,
        message: 'Only admins can be removed here.',
      })
      await stillThere(target)
    }
  })

  it('answers 404 for an unknown or malformed id', async () => {
    const superAdmin = await makeSuperAdmin()
    await expect(removeAdmin(superAdmin, '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ status: 404 })
    await expect(removeAdmin(superAdmin, 'not-an-id')).rejects.toMatchObject({ status: 404 })
  })
})

describe('listUsers', () => {
  it('lists newest first by default, and a column named without a direction A to Z', async () => {
    const tag = `Order${Date.now() % 1e6}`
    const admin = await makeAdmin()
    for (const firstName of ['Bertha', 'Alma', 'Cyrus']) await makeUser({ firstName, lastName: tag })
    const names = async (query: Parameters<typeof listUsers>[2]) =>
      (await listUsers(admin, 'learner', { q: tag, ...query })).rows.map((u) => u.firstName)
    expect(await names({})).toEqual(['Cyrus', 'Alma', 'Bertha'])
    expect(await names({ sort: 'firstName' })).toEqual(['Alma', 'Bertha', 'Cyrus'])
    expect(await names({ sort: 'firstName', dir: 'desc' })).toEqual(['Cyrus', 'Bertha', 'Alma'])
  })
})
