import { describe, expect, it } from 'vitest'
import type { IsolationLevel, SessionName, Step } from './schema.ts'
import { checkSteps, type LogEntry, type Outcome, parseSessionScript } from './steps.ts'

/** A log entry; `tx` null runs outside a transaction block. */
function entry(
  session: SessionName,
  sql: string,
  outcome: Outcome,
  {
    tx = 1,
    isolation = 'read committed',
    waited = false,
  }: { tx?: number | null; isolation?: IsolationLevel; waited?: boolean } = {},
): LogEntry {
  return { session, sql, transaction: tx, isolation, waited, outcome }
}
const ok = (command: string, rows: unknown[][] = []): Outcome => ({ ok: true, command, rows })
const failed = (code: string): Outcome => ({ ok: false, code, message: 'failed' })

const READ = 'SELECT balance FROM accounts WHERE id = 1'

describe('checkSteps', () => {
  it('finds a wait of the named session, not of the other', () => {
    const log = [
      entry('A', 'BEGIN', ok('BEGIN')),
      entry('A', 'UPDATE accounts SET balance = 0 WHERE id = 1', ok('UPDATE')),
      entry('A', 'COMMIT', ok('COMMIT')),
      entry('B', 'UPDATE accounts SET balance = 5 WHERE id = 1', ok('UPDATE'), { tx: null, waited: true }),
    ]
    expect(checkSteps([{ waits: 'B' }], log)).toEqual({ passed: true })
    expect(checkSteps([{ waits: 'A' }], log)).toMatchObject({ passed: false, step: 0 })
    expect(checkSteps([{ waits: 'B' }], log.slice(0, 3))).toEqual({
      passed: false,
      step: 0,
      message: 'Step 1 is not met: a statement of session B waits on a lock the other session holds, then finishes.',
    })
  })

  it('keeps the steps in order', () => {
    const log = [
      entry('B', 'UPDATE accounts SET balance = 5', ok('UPDATE'), { waited: true }),
      entry('A', 'COMMIT', ok('COMMIT')),
      entry('B', 'COMMIT', ok('COMMIT')),
    ]
    expect(checkSteps([{ waits: 'B' }, { committed: 'A' }, { committed: 'B' }], log)).toEqual({ passed: true })
    expect(checkSteps([{ committed: 'A' }, { waits: 'B' }], log)).toMatchObject({ passed: false, step: 1 })
    // one COMMIT is not two steps
    expect(checkSteps([{ committed: 'A' }, { committed: 'A' }], log)).toMatchObject({ passed: false, step: 1 })
  })

  it('matches an error by session and SQLSTATE', () => {
    const log = [entry('B', 'UPDATE accounts SET balance = 1 WHERE id = 2', failed('40P01'), { waited: true })]
    expect(checkSteps([{ error: { session: 'B', code: '40P01' } }], log)).toEqual({ passed: true })
    expect(checkSteps([{ error: { session: 'A', code: '40P01' } }], log)).toMatchObject({ passed: false })
    expect(checkSteps([{ error: { session: 'B', code: '40001' } }], log)).toMatchObject({ passed: false })
    const cancelled = [entry('B', 'UPDATE accounts SET balance = 1', { ok: false, cancelled: true })]
    expect(checkSteps([{ error: { session: 'B', code: '40P01' } }], cancelled)).toMatchObject({ passed: false })
  })

  it('tells a COMMIT from a COMMIT that rolled an aborted transaction back', () => {
    const aborted = [entry('A', 'COMMIT', ok('ROLLBACK'))]
    expect(checkSteps([{ committed: 'A' }], aborted)).toMatchObject({ passed: false })
    expect(checkSteps([{ 'rolled-back': 'A' }], aborted)).toEqual({ passed: true })
  })

  const twoReads = (isolation: IsolationLevel, second: unknown[][], between: LogEntry[]) => [
    entry('A', 'BEGIN', ok('BEGIN'), { isolation }),
    entry('A', READ, ok('SELECT', [[100]]), { isolation }),
    ...between,
    entry('A', `${READ.replace(' FROM', '\n  FROM')};`, ok('SELECT', second), { isolation }),
  ]
  const bCommits = [
    entry('B', 'BEGIN', ok('BEGIN'), { tx: 1 }),
    entry('B', 'UPDATE accounts SET balance = 50 WHERE id = 1', ok('UPDATE'), { tx: 1 }),
    entry('B', 'COMMIT', ok('COMMIT'), { tx: 1 }),
  ]
  const changedRead: Step = { 'changed-read': { session: 'A', isolation: 'read committed' } }
  const sameRead: Step = { 'same-read': { session: 'A', isolation: 'repeatable read' } }

  it('finds a non-repeatable read: different rows after the other session committed a change', () => {
    expect(checkSteps([changedRead], twoReads('read committed', [[50]], bCommits))).toEqual({ passed: true })
    // the same rows, a commit without a change, no commit, another level, or two transactions: not met
    expect(checkSteps([changedRead], twoReads('read committed', [[100]], bCommits))).toMatchObject({ passed: false })
    const noChange = [entry('B', 'BEGIN', ok('BEGIN')), entry('B', 'COMMIT', ok('COMMIT'))]
    expect(checkSteps([changedRead], twoReads('read committed', [[50]], noChange))).toMatchObject({ passed: false })
    expect(checkSteps([changedRead], twoReads('read committed', [[50]], bCommits.slice(0, 2)))).toMatchObject({
      passed: false,
    })
    expect(checkSteps([changedRead], twoReads('repeatable read', [[50]], bCommits))).toMatchObject({ passed: false })
    const split = twoReads('read committed', [[50]], bCommits).map((e, i) => (i === 5 ? { ...e, transaction: 2 } : e))
    expect(checkSteps([changedRead], split)).toMatchObject({ passed: false })
  })

  it('counts a change outside a transaction block as committed', () => {
    const autocommit = [entry('B', 'UPDATE accounts SET balance = 50 WHERE id = 1', ok('UPDATE'), { tx: null })]
    expect(checkSteps([changedRead], twoReads('read committed', [[50]], autocommit))).toEqual({ passed: true })
  })

  it('finds a repeatable read: the same rows although the other session committed a change', () => {
    expect(checkSteps([sameRead], twoReads('repeatable read', [[100]], bCommits))).toEqual({ passed: true })
    expect(checkSteps([sameRead], twoReads('repeatable read', [[50]], bCommits))).toMatchObject({ passed: false })
    // the same rows with nothing committed in between prove nothing
    expect(checkSteps([sameRead], twoReads('repeatable read', [[100]], []))).toMatchObject({ passed: false })
    expect(checkSteps([sameRead], twoReads('read committed', [[100]], bCommits))).toMatchObject({
      passed: false,
      message: expect.stringContaining('REPEATABLE READ transaction of session A') as unknown,
    })
  })

  it('needs the reads after the previous step', () => {
    const log = [...twoReads('read committed', [[50]], bCommits), entry('A', 'COMMIT', ok('COMMIT'))]
    expect(checkSteps([{ committed: 'B' }, changedRead], log)).toMatchObject({ passed: false, step: 1 })
    expect(checkSteps([changedRead, { committed: 'A' }], log)).toEqual({ passed: true })
  })
})

describe('parseSessionScript', () => {
  it('reads statements by session, over several lines, in order', () => {
    const script = [
      '-- A takes the row',
      'A: BEGIN;',
      'A: UPDATE accounts',
      '     SET balance = 0',
      '   WHERE id = 1;',
      '',
      'B: UPDATE accounts SET balance = 1 WHERE id = 1;',
      'A: COMMIT',
    ].join('\n')
    expect(parseSessionScript(script)).toEqual({
      ok: true,
      statements: [
        { session: 'A', sql: 'BEGIN', line: 2 },
        { session: 'A', sql: 'UPDATE accounts\n     SET balance = 0\n   WHERE id = 1', line: 3 },
        { session: 'B', sql: 'UPDATE accounts SET balance = 1 WHERE id = 1', line: 7 },
        { session: 'A', sql: 'COMMIT', line: 8 },
      ],
    })
  })

  it('refuses a line of no session, an empty statement and an empty script', () => {
    expect(parseSessionScript('A: BEGIN;\nC: COMMIT;')).toEqual({
      ok: false,
      message: 'Line 2 must start with A: or B:, the session that runs it',
    })
    expect(parseSessionScript('SELECT 1;')).toMatchObject({ ok: false, message: expect.stringMatching(/^Line 1 /) })
    expect(parseSessionScript('A: BEGIN;\nB: ;')).toEqual({ ok: false, message: 'Line 2 has no statement after B:' })
    expect(parseSessionScript('-- nothing\n\n')).toMatchObject({ ok: false })
  })
})
