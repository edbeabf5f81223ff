import { z } from 'zod'
import { NewProviderSchema, RuleSchema } from './schema.ts'

// The forms of the Company sign-in pages: the service's fields, with the group rules typed as one text, a rule a
// line ("engineers = program: Onboarding"), each line that cannot be read refused with its number; on the edit
// form the short name is not asked and an empty client secret keeps the one kept.

/** How a rule line is written, as the form's hint and refusals say it. */
export const RULE_FORMAT = 'group = program: Title or group = course: Title'

// the first "= program:" or "= course:" ends the group, so a group may hold "=" itself (CN=Staff,OU=…)
const RULE_LINE = /^(.+?)\s*=\s*(program|course)\s*:\s*(.+)$/i
const MAX_RULES = 500

/** A rule as typed, with its line in the text. */
export type RuleLine = z.output<typeof RuleSchema> & { line: number }

/** The rules as the form shows them, one a line. */
export const rulesText = (rules: { group: string; kind: 'program' | 'course'; target: string }[]) =>
  rules.map((rule) => `${rule.group} = ${rule.kind}: ${rule.target}`).join('\n')

/** The text of the rules read line by line; blank lines are skipped, every unreadable one refused with its number. */
const rulesField = z
  .string()
  .optional()
  .transform((text, context) => {
    const rules: RuleLine[] = []
    const refuse = (line: number, message: string) =>
      context.addIssue({ code: z.ZodIssueCode.custom, message: `Line ${line}: ${message}` })
    for (const [index, typed] of (text ?? '').split(/\r\n|\r|\n/).entries()) {
      const line = index + 1
      if (!typed.trim()) continue
      const match = RULE_LINE.exec(typed.trim())
      if (!match) {
        refuse(line, `write a rule as ${RULE_FORMAT}.`)
        continue
      }
      const rule = RuleSchema.safeParse({ group: match[1], kind: match[2].toLowerCase(), target: match[3] })
      if (rule.success) rules.push({ ...rule.data, line })
      else refuse(line, rule.error.issues[0].message)
    }
    if (rules.length > MAX_RULES) context.addIssue({ code: z.ZodIssueCode.custom, message: 'At most 500 group rules.' })
    return rules
  })

/**
 * A list typed as one text, its refusals said of the one field (the schema's would name the item: domains[2]); an
 * empty field is an empty list, for the schema's own message to say what is missing.
 */
const listField = (schema: z.ZodTypeAny) =>
  z.unknown().transform((value, context) => {
    const parsed = schema.safeParse(value ?? [])
    if (parsed.success) return parsed.data as string[]
    for (const message of new Set(parsed.error.issues.map((issue) => issue.message)))
      context.addIssue({ code: z.ZodIssueCode.custom, message })
    return z.NEVER
  })

const formFields = {
  domains: listField(NewProviderSchema.shape.domains),
  accountGroups: listField(NewProviderSchema.shape.accountGroups),
  rules: rulesField,
}

/** Add a provider: every field. */
export const NewProviderFormSchema = NewProviderSchema.extend(formFields)

/** Change a provider: every field but the short name; a secret left empty keeps the one kept. */
export const ProviderEditFormSchema = NewProviderSchema.omit({ slug: true }).extend({
  ...formFields,
  clientSecret: z.string().max(1000, 'Client secret is too long.').optional(),
})

/** Fields never sent back to the page: without JavaScript they would be rendered as values. */
export const HIDDEN_FIELDS = ['clientSecret']

/** What the provider is told about the portal: where it sends people back, and where it sends logouts. */
export function providerAddresses(publicUrl: string, slug: string) {
  return {
    redirect: `${publicUrl}/sso/${slug}/callback`,
    backchannelLogout: `${publicUrl}/sso/${slug}/backchannel-logout`,
    postLogout: `${publicUrl}/`,
  }
}
