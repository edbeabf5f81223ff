import { describe, expect, test } from 'vitest'
import { fileLink, isInlineType } from './links.ts'

describe('stored files as the browser gets them', () => {
  test('PDFs and the accepted images are shown inline; every other type is a download', () => {
    for (const type of ['application/pdf', 'image/png', 'image/jpeg', 'image/gif'])
      expect(isInlineType(type)).toBe(true)
    for (const type of [
      'text/csv',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      'application/vnd.ms-powerpoint',
      'text/html',
      'image/svg+xml',
      '',
    ])
      expect(isInlineType(type), type).toBe(false)
  })

  test('a link goes through the app, the key encoded', () => {
    expect(fileLink('a b.pdf')).toBe('/files/a%20b.pdf')
  })
})
