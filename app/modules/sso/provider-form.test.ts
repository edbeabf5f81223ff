import { parseWithZod } from '@conform-to/zod'
import { describe, expect, it } from 'vitest'
import { NewProviderFormSchema, ProviderEditFormSchema, providerAddresses, rulesText } from './provider-form.ts'

// The Company sign-in forms as the pages read them: a browser's form data (empty fields as conform drops them),
// the group rules typed a rule a line, and each refusal said of the field it is about.

const FORMAT = 'write a rule as group = program: Title or group = course: Title.'

function form(fields: Record<string, string>) {
  const data = new FormData()
  for (const [name, value] of Object.entries(fields)) data.append(name, value)
  return data
}

const added = {
  slug: 'acme',
  name: 'Acme',
  issuer: 'https://login.acme.com/tenant/',
  clientId: 'portal',
  clientSecret: 's3cret',
  domains: 'acme.com, acme.co.uk',
}

const parseNew = (fields: Record<string, string>) => parseWithZod(form(fields), { schema: NewProviderFormSchema })
const errorsOf = (submission: ReturnType<typeof parseNew>) => submission.reply().error

describe('the Add form', () => {
  it('reads every field, with the defaults for those left empty and boxes left unticked', () => {
    const submission = parseNew({ ...added, scopes: '', accountGroups: '', groupsClaim: '', rules: '' })
    expect(submission.status).toBe('success')
    expect(submission.status === 'success' && submission.value).toEqual({
      ...added,
      issuer: 'https://login.acme.com/tenant',
      scopes: 'openid email profile',
      domains: ['acme.com', 'acme.co.uk'],
      required: false,
      createAccounts: false,
      accountGroups: [],
      groupsClaim: 'groups',
      rules: [],
    })
    const ticked = parseNew({ ...added, required: 'on', createAccounts: 'on', accountGroups: 'staff, Contractors' })
    expect(ticked.status === 'success' && ticked.value).toMatchObject({
      required: true,
      createAccounts: true,
      accountGroups: ['staff', 'Contractors'],
    })
  })

  it('reads the rules a line each, blank lines skipped, the kind in any case, a group holding "="', () => {
    const submission = parseNew({
      ...added,
      rules:
        'engineers = program: Onboarding\r\n\r\n  sales=COURSE:CRM Basics  \nCN=Staff,OU=People = course: Safety: the basics',
    })
    expect(submission.status === 'success' && submission.value.rules).toEqual([
      { group: 'engineers', kind: 'program', target: 'Onboarding', line: 1 },
      { group: 'sales', kind: 'course', target: 'CRM Basics', line: 3 },
      { group: 'CN=Staff,OU=People', kind: 'course', target: 'Safety: the basics', line: 4 },
    ])
  })

  it('refuses each line it cannot read, by its number, and goes on to the next', () => {
    const long = 'g'.repeat(257)
    const submission = parseNew({
      ...added,
      rules: [
        'engineers = program: Onboarding',
        'engineers -> program: Onboarding',
        '',
        'sales = workshop: CRM',
        `${long} = course: CRM`,
        'sales = course:',
        '= program: Onboarding',
      ].join('\n'),
    })
    expect(errorsOf(submission)).toEqual({
      rules: [
        `Line 2: ${FORMAT}`,
        `Line 4: ${FORMAT}`,
        'Line 5: The group name is too long.',
        `Line 6: ${FORMAT}`,
        `Line 7: ${FORMAT}`,
      ],
    })
  })

  it('refuses more than 500 rules', () => {
    const rules = Array.from({ length: 501 }, (_, i) => `group${i} = course: C`).join('\n')
    expect(errorsOf(parseNew({ ...added, rules }))).toEqual({ rules: ['At most 500 group rules.'] })
  })

  it('says each refusal of a list of the field itself, once', () => {
    expect(errorsOf(parseNew({ ...added, domains: '' }))).toEqual({
      domains: ['Name at least one email domain the provider serves.'],
    })
    expect(errorsOf(parseNew({ ...added, domains: 'acme.com nope also-nope' }))).toEqual({
      domains: ['Email domains are names such as acme.com.'],
    })
    expect(errorsOf(parseNew({ ...added, accountGroups: `staff ${'x'.repeat(257)}` }))).toEqual({
      accountGroups: ['A group name is too long.'],
    })
  })

  it('refuses an issuer that is no address with one message, and one that is not https', () => {
    expect(errorsOf(parseNew({ ...added, issuer: 'login.acme.com' }))).toEqual({
      issuer: ['Issuer URL must be an address such as https://login.example.com/tenant.'],
    })
    expect(errorsOf(parseNew({ ...added, issuer: 'http://login.acme.com' }))).toEqual({
      issuer: ['Issuer URL must start with https:// (http:// only for a provider on this machine).'],
    })
    expect(errorsOf(parseNew({ ...added, issuer: 'https://login.acme.com/?tenant=1' }))).toEqual({
      issuer: ['Issuer URL takes no ? or # part.'],
    })
    expect(parseNew({ ...added, issuer: 'http://127.0.0.1:4000' }).status).toBe('success')
  })

  it('needs the short name, the client and its secret', () => {
    const { slug: _slug, clientId: _id, clientSecret: _secret, ...rest } = added
    expect(errorsOf(parseNew(rest))).toEqual({
      slug: ['Short name is required.'],
      clientId: ['Client ID is required.'],
      clientSecret: ['Client secret is required.'],
    })
  })
})

describe('the edit form', () => {
  const { slug: _slug, ...edited } = added
  const parseEdit = (fields: Record<string, string>) => parseWithZod(form(fields), { schema: ProviderEditFormSchema })

  it('takes an empty secret as keeping the one kept, and an unticked box as off', () => {
    const submission = parseEdit({ ...edited, clientSecret: '' })
    expect(submission.status).toBe('success')
    expect(submission.status === 'success' && submission.value).toMatchObject({
      clientSecret: undefined,
      required: false,
      createAccounts: false,
    })
    expect(submission.status === 'success' && 'slug' in submission.value).toBe(false)
  })

  it('asks no short name', () => {
    const { clientSecret: _secret, ...rest } = edited
    expect(parseEdit(rest).status).toBe('success')
  })
})

describe('the rules as the form shows them', () => {
  it('writes a rule a line, as the form reads them back', () => {
    const text = rulesText([
      { group: 'engineers', kind: 'program', target: 'Onboarding' },
      { group: 'sales', kind: 'course', target: '0b7d3f4e-1111-4a2b-8c3d-123456789abc' },
    ])
    expect(text).toBe('engineers = program: Onboarding\nsales = course: 0b7d3f4e-1111-4a2b-8c3d-123456789abc')
    const submission = parseNew({ ...added, rules: text })
    expect(submission.status === 'success' && submission.value.rules.map(({ line: _line, ...rule }) => rule)).toEqual([
      { group: 'engineers', kind: 'program', target: 'Onboarding' },
      { group: 'sales', kind: 'course', target: '0b7d3f4e-1111-4a2b-8c3d-123456789abc' },
    ])
  })
})

describe('the addresses registered at the provider', () => {
  it('are the callback, the back-channel logout and the landing page', () => {
    expect(providerAddresses('https://learn.example.com', 'acme')).toEqual({
      redirect: 'https://learn.example.com/sso/acme/callback',
      backchannelLogout: 'https://learn.example.com/sso/acme/backchannel-logout',
      postLogout: 'https://learn.example.com/',
    })
  })
})
