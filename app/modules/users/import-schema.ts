import { z } from 'zod'
import { NewUserSchema, password } from './schema.ts'

// The layout of a user import file: its columns, the header names each one answers to, and the check
// every row goes through (the Create New User form's own rules and messages, the password optional).

export const IMPORT_COLUMNS = [
  'firstName',
  'lastName',
  'email',
  'userName',
  'role',
  'password',
  'courses',
  'programs',
  'timeZone',
] as const
export type ImportColumn = (typeof IMPORT_COLUMNS)[number]

/** Without these the file cannot be read; the others may be left out. */
export const REQUIRED_COLUMNS: readonly ImportColumn[] = ['firstName', 'lastName', 'email', 'userName']

/** A header name as compared: lower case, without spaces, dashes, underscores or dots. */
const headerKey = (name: string) => name.toLowerCase().replace(/[\s_.-]+/g, '')

const ALIASES: Record<ImportColumn, string[]> = {
  firstName: ['firstname', 'first', 'givenname', 'forename'],
  lastName: ['lastname', 'last', 'surname', 'familyname'],
  email: ['email', 'emailaddress', 'mail', 'emailid'],
  userName: ['username', 'user', 'login', 'loginname'],
  role: ['role', 'rolename'],
  password: ['password', 'pass', 'pwd'],
  courses: ['courses', 'course', 'courseids', 'coursetitles'],
  programs: ['programs', 'program', 'programids', 'programtitles', 'programmes', 'programme'],
  timeZone: ['timezone', 'zone', 'tz'],
}

const COLUMN_BY_KEY = new Map<string, ImportColumn>(
  Object.entries(ALIASES).flatMap(([column, keys]) => keys.map((key) => [key, column as ImportColumn] as const)),
)

/** The column a header cell names, or undefined when it names none. */
export const importColumnOf = (header: string): ImportColumn | undefined => COLUMN_BY_KEY.get(headerKey(header))

/** A row as checked: the form's fields and role, the password optional (no password: an invitation). */
export const ImportRowSchema = NewUserSchema.omit({ password: true }).extend({ password: password.optional() })
export type ImportRow = z.output<typeof ImportRowSchema>

/** "Super admin", "ADMIN" and "learner " all name a role; an empty cell is the default (learner). */
export const roleKey = (value: string) => value.toLowerCase().replace(/[\s_-]+/g, '')

export const ON_EXISTING = ['skip', 'update', 'fail'] as const
export type OnExisting = (typeof ON_EXISTING)[number]

export const IMPORT_DELIMITERS = [',', ';'] as const
export type ImportDelimiter = (typeof IMPORT_DELIMITERS)[number]

/** The Import users page's file field, where the file's errors are shown too. */
export const FILE_FIELD = 'file'

/** The choices the Import users page offers: the separator, read from the header line when "auto". */
const WEB_DELIMITERS = ['auto', ',', ';'] as const
/** The page offers skip and update; failing on existing accounts is the CLI's. */
const WEB_ON_EXISTING = ['skip', 'update'] as const

/** A form leaves a choice out, or sends it empty: the default then. */
const blankAsMissing = (value: unknown) => (value === '' || value === null ? undefined : value)

const importChoices = {
  onExisting: z.preprocess(
    blankAsMissing,
    z.enum(WEB_ON_EXISTING, { message: 'Choose skip or update.' }).default('skip'),
  ),
  // a checkbox: "on" when ticked, absent when not
  invite: z.preprocess((value) => value === true || value === 'on' || value === 'true', z.boolean()),
  delimiter: z.preprocess(
    blankAsMissing,
    z.enum(WEB_DELIMITERS, { message: 'Choose auto, comma or semicolon.' }).default('auto'),
  ),
}

/** A stored file's key as the upload answered it: `{ key, link, name }` JSON, or the bare key. */
const fileKey = z
  .string({ required_error: 'Choose a CSV file to import.' })
  .trim()
  .min(1, 'Choose a CSV file to import.')
  .transform((value, context) => {
    let key: unknown = value
    if (value.startsWith('{')) {
      try {
        key = (JSON.parse(value) as { key?: unknown }).key
      } catch {
        key = undefined
      }
    }
    if (typeof key === 'string' && /^[a-z0-9][a-z0-9._-]{0,200}$/.test(key)) return key
    context.addIssue({ code: z.ZodIssueCode.custom, message: 'Upload the CSV file again.' })
    return z.NEVER
  })

/** Step 1 of the page: the uploaded file and how to read it. */
export const ImportUploadSchema = z.object({ file: fileKey, ...importChoices })

/** Step 2: the file checked in the dry run, by its key, and the same choices (checked again). */
export const ImportConfirmSchema = z.object({ key: fileKey, ...importChoices })
export type ImportChoices = z.output<typeof ImportConfirmSchema>
