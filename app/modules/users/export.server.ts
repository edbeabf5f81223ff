import { Transform, type Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import QueryStream from 'pg-query-stream'
import { query, withConnection } from '#db/client.ts'
import { requirePermission } from '../auth/permissions.ts'
import { ROLE, ROLE_BY_NAME, type Actor } from '../auth/roles.ts'
import { csvRecords } from '../csv/writer.server.ts'
import { invalid } from '../errors.ts'
import { searchPattern } from '../search.ts'
import { IMPORT_COLUMNS } from './import-schema.ts'
import { ROLE_NAMES_INPUT } from './schema.ts'

// The people of the portal in the user import's own layout, streamed from a database cursor, so that
// a list can be edited in a spreadsheet and imported again. Courses and programs (a learner's only) are
// named by title when the title names one course (or program) only and holds no `;`, by id otherwise.

export const LIST_FORMATS = ['table', 'csv', 'json'] as const
export type ListFormat = (typeof LIST_FORMATS)[number]

type UserListFilter = { role?: string; search?: string }

/** A user as the list gives one: the import's columns without the password. */
type ListedUser = {
  firstName: string
  lastName: string
  email: string
  userName: string
  role: (typeof ROLE_NAMES_INPUT)[number]
  courses: string[]
  programs: string[]
}

// the time zone is the import's to set; the list leaves it out, as the users list pages do
const LIST_COLUMNS = IMPORT_COLUMNS.filter((c) => c !== 'password' && c !== 'timeZone')

type Row = {
  first_name: string
  last_name: string
  email: string
  user_name: string
  role_id: number
  courses: string[]
  programs: string[]
}

const ROLE_NAME_BY_ID = new Map<number, ListedUser['role']>(
  Object.entries(ROLE_BY_NAME).map(([name, id]) => [id, name as ListedUser['role']]),
)

/** Titles that read back as the same course (or program); ids where a title would not. */
async function labels(table: 'courses' | 'programs') {
  const rows = await query<{ id: string; title: string }>({ text: `SELECT id, title FROM ${table}`, values: [] })
  const uses = new Map<string, number>()
  for (const r of rows) uses.set(r.title.trim().toLowerCase(), (uses.get(r.title.trim().toLowerCase()) ?? 0) + 1)
  return new Map(
    rows.map((r) => {
      const title = r.title.trim()
      const readsBack = title && !title.includes(';') && uses.get(title.toLowerCase()) === 1
      return [r.id, readsBack ? title : r.id]
    }),
  )
}

/** Stream the users a filter selects into `sink` as a table, CSV or a JSON array; returns how many. */
export async function writeUserList(
  actor: Actor,
  filter: UserListFilter,
  sink: Writable,
  format: ListFormat = 'csv',
): Promise<{ rows: number }> {
  requirePermission(actor, 'read:people')
  if (filter.role !== undefined && !(ROLE_NAMES_INPUT as readonly string[]).includes(filter.role))
    throw invalid(`Role must be one of ${ROLE_NAMES_INPUT.join(', ')}.`)
  if (!(LIST_FORMATS as readonly string[]).includes(format))
    throw invalid(`Format must be one of ${LIST_FORMATS.join(', ')}.`)
  const roleId = filter.role ? ROLE_BY_NAME[filter.role as ListedUser['role']] : null
  const { search, pattern } = searchPattern(filter.search)
  const [courseLabels, programLabels] = await Promise.all([labels('courses'), labels('programs')])
  // Courses and programs are a learner's: an account moved to the admin side keeps the assignments it had
  // (they come back if it is made a learner again), but they are not listed, as its user page does not
  // show them and an import refuses courses for anyone but a learner.
  const text = `
    SELECT u.first_name, u.last_name, u.email::text AS email, u.user_name::text AS user_name, u.role_id,
      ARRAY(SELECT ca.course_id::text FROM course_assignments ca WHERE ca.user_id = u.id AND u.role_id = $4
            ORDER BY ca.created_at, ca.course_id) AS courses,
      ARRAY(SELECT pa.program_id::text FROM program_assignments pa WHERE pa.user_id = u.id AND u.role_id = $4
            ORDER BY pa.created_at, pa.program_id) AS programs
    FROM users u
    WHERE ($1::smallint IS NULL OR u.role_id = $1)
      AND ($2 = '' OR u.first_name ILIKE $3 OR u.last_name ILIKE $3 OR u.user_name ILIKE $3 OR u.email ILIKE $3)
    ORDER BY u.created_at, u.id`
  let count = 0
  const toUser = new Transform({
    objectMode: true,
    transform(row: Row, _encoding, done) {
      count++
      done(null, {
        firstName: row.first_name,
        lastName: row.last_name,
        email: row.email,
        userName: row.user_name,
        role: ROLE_NAME_BY_ID.get(row.role_id) ?? 'learner',
        courses: row.courses.map((id) => courseLabels.get(id) ?? id),
        programs: row.programs.map((id) => programLabels.get(id) ?? id),
      } satisfies ListedUser)
    },
  })
  await withConnection(async (client) => {
    const rows = client.query(new QueryStream(text, [roleId, search, pattern, ROLE.learner], { batchSize: 1000 }))
    await pipeline([rows, toUser, ...formatter(format), sink])
  })
  return { rows: count }
}

function formatter(format: ListFormat): Transform[] {
  if (format === 'csv')
    return csvRecords(LIST_COLUMNS, (user: ListedUser) =>
      LIST_COLUMNS.map((c) => {
        const value = user[c]
        return Array.isArray(value) ? value.join(';') : value
      }),
    )
  if (format === 'json') {
    let first = true
    return [
      new Transform({
        writableObjectMode: true,
        transform(user: ListedUser, _encoding, done) {
          done(null, `${first ? '[\n' : ',\n'}${JSON.stringify(user)}`)
          first = false
        },
        flush(done) {
          done(null, first ? '[]\n' : '\n]\n')
        },
      }),
    ]
  }
  // a table for people: fixed widths, so it can be printed as the rows arrive
  const widths = [28, 34, 22, 11]
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i < widths.length ? c.padEnd(widths[i] - 1) + ' ' : c))
      .join('')
      .trimEnd() + '\n'
  let first = true
  return [
    new Transform({
      writableObjectMode: true,
      transform(user: ListedUser, _encoding, done) {
        const header = first ? line(['NAME', 'EMAIL', 'USERNAME', 'ROLE', 'COURSES / PROGRAMS']) : ''
        first = false
        const learning = [...user.courses, ...user.programs.map((p) => `program: ${p}`)].join('; ')
        done(
          null,
          header + line([`${user.firstName} ${user.lastName}`.trim(), user.email, user.userName, user.role, learning]),
        )
      },
    }),
  ]
}
