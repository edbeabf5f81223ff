import { describe, expect, it } from 'vitest'
import { RegisterSchema } from './schema.ts'

const valid = {
  firstName: 'Anna Maria',
  lastName: 'Smith',
  userName: 'anna',
  email: 'anna@example.com',
  password: 'Str0ng!pass',
  confirmPassword: 'Str0ng!pass',
}

function errorsOf(input: Record<string, unknown>) {
  const result = RegisterSchema.safeParse(input)
  const errors: Record<string, string> = {}
  // a form shows the first message of each field
  for (const issue of result.success ? [] : result.error.issues) errors[issue.path.join('.')] ??= issue.message
  return errors
}

describe('the registration rules', () => {
  it('accept a valid registration and default to a learner', () => {
    const result = RegisterSchema.parse(valid)
    expect(result.role).toBe('learner')
    expect(result.firstName).toBe('Anna Maria')
  })
  it('refuse short or non-letter names, short usernames and a bad email', () => {
    expect(errorsOf({ ...valid, firstName: ' Ann ' }).firstName).toBe('First Name must be at least 4 characters.')
    expect(errorsOf({ ...valid, firstName: 'Ann4' }).firstName).toBe('First Name can only contain letters and spaces.')
    expect(errorsOf({ ...valid, lastName: 'O’Neil' }).lastName).toBe('Last Name can only contain letters and spaces.')
    expect(errorsOf({ ...valid, userName: 'ann' }).userName).toBe('UserName must be at least 4 characters')
    expect(errorsOf({ ...valid, email: 'not-an-email' }).email).toBe('Email is invalid.')
  })
  it('require a strong password and a matching confirmation', () => {
    for (const weak of ['Sh0rt!a', 'alllowercase1!', 'ALLUPPER1!', 'NoDigits!!', 'NoSymbol11'])
      expect(errorsOf({ ...valid, password: weak, confirmPassword: weak }).password, weak).toMatch(/at least 8/)
    expect(errorsOf({ ...valid, password: 'Short1!', confirmPassword: 'Short1!' }).password).toMatch(/at least 8/)
    expect(errorsOf({ ...valid, confirmPassword: 'Other!pass1' }).confirmPassword).toBe('Passwords must match')
    expect(errorsOf({ ...valid, confirmPassword: '' }).confirmPassword).toBe('Confirm Password is required field.')
  })
  it('name each missing field with its required message', () => {
    const errors = errorsOf({})
    expect(errors).toMatchObject({
      firstName: 'First Name is required field.',
      lastName: 'Last Name is required field.',
      userName: 'UserName is required field.',
      email: 'Email is required field.',
      password: 'Password is required field.',
    })
  })
})
