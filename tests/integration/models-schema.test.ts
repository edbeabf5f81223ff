import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { DataTypes, Model, QueryTypes, Sequelize, type ModelStatic } from 'sequelize'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { migrate } from '#db/migrate.ts'
import { initModels } from '#db/models/index.ts'

// The models are never synced: they have to say what the migrations built. A database of its own, empty
// and then migrated from the first migration on, is compared with every model, attribute by attribute
// (column, type, nullability, the default where the model gives one) and column by column (each one
// declared in its table's model).

const server = inject('postgres')
const database = `portal_models_${randomBytes(6).toString('hex')}`
const sequelize = new Sequelize(
  `postgres://${server.user}:${server.password}@${server.host}:${server.port}/${database}`,
  { dialect: 'postgres', logging: false },
)
const models = initModels(sequelize)

type Column = {
  table_name: string
  column_name: string
  udt_name: string
  is_nullable: 'YES' | 'NO'
  column_default: string | null
  is_identity: 'YES' | 'NO'
  numeric_precision: number | null
  numeric_scale: number | null
  character_maximum_length: number | null
}

let columns: Column[]

async function admin(sql: string) {
  const client = new pg.Client({ ...server, database: 'postgres' })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

beforeAll(async () => {
  await admin(`CREATE DATABASE ${database}`)
  await migrate(sequelize)
  columns = await sequelize.query<Column>(
    `SELECT table_name, column_name, udt_name, is_nullable, column_default, is_identity,
            numeric_precision, numeric_scale, character_maximum_length
       FROM information_schema.columns
      WHERE table_schema = 'public'`,
    { type: QueryTypes.SELECT },
  )
})

afterAll(async () => {
  await sequelize.close()
  await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
})

// A Sequelize type (its key, or the name a model gives as a string) and the PostgreSQL type it stands for.
const COLUMN_TYPE: Record<string, string> = {
  UUID: 'uuid',
  TEXT: 'text',
  CITEXT: 'citext',
  STRING: 'varchar',
  SMALLINT: 'int2',
  INTEGER: 'int4',
  BIGINT: 'int8',
  REAL: 'float4',
  DOUBLE: 'float8',
  DECIMAL: 'numeric',
  BOOLEAN: 'bool',
  DATE: 'timestamptz',
  DATEONLY: 'date',
  JSONB: 'jsonb',
  VARBIT: 'varbit',
}

type Attribute = ModelStatic<Model>['rawAttributes'][string]

function modelType(attribute: Attribute): string {
  const type = attribute.type as string | { key: string; options?: Record<string, unknown> }
  const key = typeof type === 'string' ? type.toUpperCase() : type.key
  const name = COLUMN_TYPE[key] ?? `unmapped Sequelize type ${key}`
  const options = typeof type === 'string' ? {} : (type.options ?? {})
  if (name === 'numeric' && options.precision) return `numeric(${options.precision},${options.scale ?? 0})`
  if (name === 'varchar') return `varchar(${options.length ?? 255})`
  return name
}

function columnType(column: Column): string {
  if (column.udt_name === 'numeric' && column.numeric_precision !== null)
    return `numeric(${column.numeric_precision},${column.numeric_scale})`
  if (column.udt_name === 'varchar') return `varchar(${column.character_maximum_length})`
  return column.udt_name
}

// A column default as information_schema spells it (60, true, now(), ''::text, ''::"bit") and a model default.
function columnDefault(column: Column): string | null {
  const literal = column.column_default?.match(/^'((?:[^']|'')*)'::[\w" ]+$/)
  return literal ? literal[1].replaceAll("''", "'") : column.column_default
}

function modelDefault(value: unknown): string {
  if (value instanceof DataTypes.NOW) return 'now()'
  if (value instanceof DataTypes.UUIDV4) return 'gen_random_uuid()'
  return String(value)
}

const nullability = (nullable: boolean) => (nullable ? 'nullable' : 'NOT NULL')

/** How a model and its table disagree, one line per difference; none when the model mirrors the table. */
function drift(model: ModelStatic<Model>, all: Column[]): string[] {
  const table = model.getTableName() as string
  const byName = new Map(all.filter((c) => c.table_name === table).map((c) => [c.column_name, c]))
  if (byName.size === 0) return [`table ${table} does not exist`]
  const problems: string[] = []
  const declared = new Set<string>()
  for (const [name, attribute] of Object.entries(model.getAttributes())) {
    const field = attribute.field ?? name
    declared.add(field)
    const column = byName.get(field)
    if (!column) {
      problems.push(`${name}: ${table} has no column ${field}`)
      continue
    }
    const type = modelType(attribute)
    if (type !== columnType(column)) problems.push(`${name}: the model says ${type}, ${field} is ${columnType(column)}`)
    const nullable = attribute.allowNull !== false && !attribute.primaryKey
    if (nullable !== (column.is_nullable === 'YES'))
      problems.push(`${name}: the model says ${nullability(nullable)}, ${field} is ${nullability(!nullable)}`)
    if (Object.hasOwn(attribute, 'defaultValue')) {
      const expected = modelDefault(attribute.defaultValue)
      if (expected !== columnDefault(column))
        problems.push(`${name}: the model's default is ${expected}, ${field}'s is ${column.column_default}`)
    }
    const generated = column.is_identity === 'YES' || Boolean(column.column_default?.startsWith('nextval('))
    if (Boolean(attribute.autoIncrement) !== generated)
      problems.push(
        `${name}: the model says ${generated ? 'not ' : ''}generated, ${field} is ${generated ? '' : 'not '}generated`,
      )
  }
  for (const field of byName.keys()) if (!declared.has(field)) problems.push(`${table}.${field} is not in the model`)
  return problems
}

describe('the models mirror the migrated tables', () => {
  it.each(Object.entries(models))('%s', (_name, model) => {
    expect(drift(model as ModelStatic<Model>, columns)).toEqual([])
  })

  it('tells a drifted model apart', () => {
    // video_progress as a model that calls a NOT NULL column nullable, gives one another type and
    // default, names a column the table lacks and leaves one out
    class Drifted extends Model {}
    Drifted.init(
      {
        userId: { type: DataTypes.UUID, primaryKey: true },
        videoId: { type: DataTypes.UUID, primaryKey: true },
        courseId: DataTypes.UUID,
        watched: { type: 'VARBIT', allowNull: false },
        watchedSeconds: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 1 },
        lastPosition: { type: DataTypes.INTEGER, allowNull: false },
        completed: { type: DataTypes.BOOLEAN, allowNull: false },
        completedAt: DataTypes.DATE,
        createdAt: { type: DataTypes.DATE, allowNull: false },
        updatedAt: { type: DataTypes.DATE, allowNull: false },
        rewatched: DataTypes.INTEGER,
      },
      { sequelize, tableName: 'video_progress', underscored: true, modelName: 'Drifted' },
    )
    sequelize.modelManager.removeModel(Drifted)
    expect(drift(Drifted, columns)).toEqual([
      'courseId: the model says nullable, course_id is NOT NULL',
      'watchedSeconds: the model says int8, watched_seconds is int4',
      "watchedSeconds: the model's default is 1, watched_seconds's is 0",
      'rewatched: video_progress has no column rewatched',
      'video_progress.credit is not in the model',
    ])
  })
})
