import { describe, expect, it } from 'vitest'
import { bridgePath, parseBridgePath } from './schema.ts'

describe('the /ibridge path', () => {
  it('reads the keyword first for program and admin links, the token first for a course link', () => {
    expect(parseBridgePath('program', 'a.b.c')).toEqual({ token: 'a.b.c', target: { kind: 'program' } })
    expect(parseBridgePath('admin', 'a.b.c')).toEqual({ token: 'a.b.c', target: { kind: 'admin' } })
    expect(parseBridgePath('a.b.c', 'course-1')).toEqual({
      token: 'a.b.c',
      target: { kind: 'course', courseId: 'course-1' },
    })
  })

  it('opens My Courses for a token without a course, and has no token for a bare keyword', () => {
    expect(parseBridgePath('a.b.c', undefined)).toEqual({ token: 'a.b.c', target: { kind: 'program' } })
    expect(parseBridgePath('admin', undefined)).toEqual({ token: '', target: { kind: 'admin' } })
  })

  it('builds the paths it reads', () => {
    for (const target of [{ kind: 'program' }, { kind: 'admin' }, { kind: 'course', courseId: 'c1' }] as const) {
      const [, , first, second] = bridgePath('x.y.z', target).split('/')
      expect(parseBridgePath(first, second)).toEqual({ token: 'x.y.z', target })
    }
  })
})
