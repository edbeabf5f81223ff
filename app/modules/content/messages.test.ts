import { describe, expect, test } from 'vitest'
import { documentMessage, videoDeletedMessage } from './messages.ts'

describe('what the admin is told', () => {
  test('names a document or a scenario and what was done to it', () => {
    expect(documentMessage('document', 'added')).toBe('Document added.')
    expect(documentMessage('scenario', 'updated')).toBe('Scenario updated.')
    expect(documentMessage('scenario', 'deleted')).toBe('Scenario deleted.')
  })

  test('names the videos a deleted video no longer locks', () => {
    expect(videoDeletedMessage({ title: 'Intro', unlocked: [] })).toBe('Video "Intro" deleted.')
    expect(videoDeletedMessage({ title: 'Intro', unlocked: ['Joins', 'Views'] })).toBe(
      'Video "Intro" deleted; it is no longer a prerequisite of Joins, Views.',
    )
  })
})
