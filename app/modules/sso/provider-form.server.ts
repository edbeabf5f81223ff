import { findAssignable } from '../assignments/import.server.ts'
import { isServiceError } from '../errors.ts'
import { rulesText, type RuleLine } from './provider-form.ts'
import type { ProviderView } from './providers.server.ts'

// The group rules of the Company sign-in forms, where they meet the catalogue: each typed line's program or course
// looked up before the service is asked (which stops at the first it cannot find), and the kept rules written back
// as the form shows them.

/** The lines whose program or course is not there (or whose title several share), each with its number. */
export async function unknownTargets(rules: RuleLine[]): Promise<string[]> {
  const refusals: string[] = []
  for (const rule of rules)
    await findAssignable(rule.kind, rule.target).catch((error: unknown) => {
      if (!isServiceError(error)) throw error
      refusals.push(`Line ${rule.line}: ${error.message}`)
    })
  return refusals
}

/**
 * The kept rules as the form's text: each program or course by its title, or by its id where the title would not
 * find it again (another with the same title), so that saving the form unchanged keeps the rules as they are.
 */
export async function keptRulesText(rules: ProviderView['rules']): Promise<string> {
  const lines = await Promise.all(
    rules.map(async (rule) => {
      const byTitle = await findAssignable(rule.kind, rule.title).catch((error: unknown) => {
        if (!isServiceError(error)) throw error
        return undefined
      })
      return { group: rule.group, kind: rule.kind, target: byTitle?.id === rule.id ? rule.title : rule.id }
    }),
  )
  return rulesText(lines)
}
