import type pg from 'pg'
import { withConnection, withTransaction } from '#db/client.ts'
import { requirePermission } from '../auth/permissions.ts'
import { ROLE, type Actor } from '../auth/roles.ts'
import { notFound } from '../errors.ts'
import { loadProvider, resolveRules } from './providers.server.ts'
import { RuleSchema, type RuleInput } from './schema.ts'

// A provider's group rules as assignments. Each learner who signed in through the provider has the groups the
// provider last named for them; a rule "group → program or course" gives its members that assignment. What the
// rules gave is recorded (identity_grants), so that a rule taken away, or a group left, takes away only what a
// rule gave, by the usual unassigning (the assignment goes; progress, viewings and submitted work stay). An
// assignment the learner already had from an admin is left alone and never recorded as given.

export type GrantChange = {
  userId: string
  email: string
  name: string
  action: 'gain' | 'lose'
  kind: 'program' | 'course'
  id: string
  title: string
}

type Rule = { group: string; programId: string | null; courseId: string | null }

// The rules given as three parallel arrays; the learners of the provider (or one of them) with their groups.
const PLAN = `
  WITH rules AS (
         SELECT * FROM unnest($2::text[], $3::uuid[], $4::uuid[]) AS r (group_name, program_id, course_id)),
       people AS (
         SELECT i.user_id, i.groups FROM user_identities i JOIN users u ON u.id = i.user_id
          WHERE i.provider_id = $1 AND u.role_id = ${ROLE.learner} AND ($5::uuid IS NULL OR i.user_id = $5)),
       desired AS (
         SELECT DISTINCT p.user_id, r.program_id, r.course_id FROM people p JOIN rules r ON r.group_name = ANY (p.groups)),
       given AS (
         SELECT g.user_id, g.program_id, g.course_id FROM identity_grants g
          WHERE g.provider_id = $1 AND ($5::uuid IS NULL OR g.user_id = $5)),
       changes AS (
         SELECT 'gain' AS action, d.* FROM desired d
          WHERE NOT EXISTS (SELECT 1 FROM given g WHERE g.user_id = d.user_id
                              AND g.program_id IS NOT DISTINCT FROM d.program_id AND g.course_id IS NOT DISTINCT FROM d.course_id)
            AND NOT EXISTS (SELECT 1 FROM program_assignments a WHERE a.user_id = d.user_id AND a.program_id = d.program_id)
            AND NOT EXISTS (SELECT 1 FROM course_assignments a WHERE a.user_id = d.user_id AND a.course_id = d.course_id)
         UNION ALL
         SELECT 'lose', g.* FROM given g
          WHERE NOT EXISTS (SELECT 1 FROM desired d WHERE d.user_id = g.user_id
                              AND d.program_id IS NOT DISTINCT FROM g.program_id AND d.course_id IS NOT DISTINCT FROM g.course_id))
  SELECT c.action, c.user_id AS "userId", u.email, btrim(u.first_name || ' ' || u.last_name) AS name,
         CASE WHEN c.program_id IS NULL THEN 'course' ELSE 'program' END AS kind,
         COALESCE(c.program_id, c.course_id) AS id, COALESCE(pr.title, co.title) AS title
    FROM changes c JOIN users u ON u.id = c.user_id
    LEFT JOIN programs pr ON pr.id = c.program_id
    LEFT JOIN courses co ON co.id = c.course_id
   ORDER BY u.email, c.action, title`

const STORED_RULES = `
  SELECT group_name AS "group", program_id AS "programId", course_id AS "courseId"
    FROM identity_provider_rules WHERE provider_id = $1`

async function planChanges(client: pg.ClientBase, providerId: string, rules: Rule[], userId: string | null) {
  const { rows } = await client.query<GrantChange>(PLAN, [
    providerId,
    rules.map((r) => r.group),
    rules.map((r) => r.programId),
    rules.map((r) => r.courseId),
    userId,
  ])
  return rows
}

/** Make the changes: assign and record what is gained, unassign and forget what is lost. */
async function applyChanges(client: pg.ClientBase, providerId: string, changes: GrantChange[]) {
  for (const change of changes) {
    const program = change.kind === 'program' ? change.id : null
    const course = change.kind === 'course' ? change.id : null
    if (change.action === 'gain') {
      const table = program ? 'program_assignments' : 'course_assignments'
      const column = program ? 'program_id' : 'course_id'
      const assigned = await client.query(
        `INSERT INTO ${table} (user_id, ${column}) VALUES ($1, $2) ON CONFLICT (user_id, ${column}) DO NOTHING`,
        [change.userId, change.id],
      )
      // an assignment made meanwhile by an admin stays the admin's
      if (assigned.rowCount === 0) continue
      await client.query(
        `INSERT INTO identity_grants (provider_id, user_id, program_id, course_id) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING`,
        [providerId, change.userId, program, course],
      )
    } else {
      await client.query(
        `DELETE FROM identity_grants WHERE provider_id = $1 AND user_id = $2
            AND program_id IS NOT DISTINCT FROM $3 AND course_id IS NOT DISTINCT FROM $4`,
        [providerId, change.userId, program, course],
      )
      if (program)
        await client.query('DELETE FROM program_assignments WHERE user_id = $1 AND program_id = $2', [
          change.userId,
          program,
        ])
      else
        await client.query('DELETE FROM course_assignments WHERE user_id = $1 AND course_id = $2', [
          change.userId,
          course,
        ])
    }
  }
}

/** At sign-in: the learner's assignments brought in line with the groups the provider names now. */
export async function syncGrants(client: pg.ClientBase, providerId: string, userId: string) {
  const { rows: rules } = await client.query<Rule>(STORED_RULES, [providerId])
  const changes = await planChanges(client, providerId, rules, userId)
  await applyChanges(client, providerId, changes)
  return changes
}

/**
 * What applying the rules would change, for every learner who has signed in through the provider, from the
 * groups it last named: the rules stored, or `proposed` ones (a dry run of a change, nothing saved).
 */
export async function previewMapping(actor: Actor, slug: string, proposed?: RuleInput[]): Promise<GrantChange[]> {
  requirePermission(actor, 'manage:identity-providers')
  const { provider, rules } = await resolveCompared(slug, proposed)
  return withConnection((client) => planChanges(client, provider.id, rules, null))
}

/** Apply the stored rules to every learner of the provider, in one transaction; answers what changed. */
export async function applyMapping(actor: Actor, slug: string): Promise<GrantChange[]> {
  requirePermission(actor, 'manage:identity-providers')
  const { provider, rules } = await resolveCompared(slug, undefined)
  return withTransaction(async (client) => {
    const changes = await planChanges(client, provider.id, rules, null)
    await applyChanges(client, provider.id, changes)
    return changes
  })
}

/** The rules to compare with what was given: the provider's own, or proposed ones (by id or title). */
async function resolveCompared(slug: string, proposed: RuleInput[] | undefined) {
  const provider = await loadProvider(slug)
  if (!provider) throw notFound('No identity provider has that name.')
  if (proposed) return { provider, rules: await resolveRules(RuleSchema.array().parse(proposed)) }
  const rules = provider.rules.map((r) => ({
    group: r.group,
    programId: r.kind === 'program' ? r.id : null,
    courseId: r.kind === 'course' ? r.id : null,
  }))
  return { provider, rules }
}
