import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { hiddenOrderInputs, SortableList } from './sortable-list.tsx'

const items = [
  { id: 'v1', label: 'Intro to SQL' },
  { id: 'v2', label: 'Joins' },
  { id: 'v3', label: 'Star schemas' },
]

describe('hiddenOrderInputs', () => {
  it('renders one hidden order input per item, in order', () => {
    const html = renderToString(<form>{hiddenOrderInputs(items)}</form>)
    expect(html).toBe(
      '<form><input type="hidden" name="order" value="v1"/><input type="hidden" name="order" value="v2"/>' +
        '<input type="hidden" name="order" value="v3"/></form>',
    )
    expect(renderToString(<>{hiddenOrderInputs(items.slice(0, 1), 'videoOrder')}</>)).toContain('name="videoOrder"')
  })
})

describe('SortableList on the server', () => {
  it('renders a labelled, numbered list with a handle and move buttons per item, disabled until hydrated', () => {
    const html = renderToString(<SortableList label="Course videos" items={items} onChange={() => {}} name="order" />)
    expect(html).toContain('<ol aria-label="Course videos"')
    const texts = [...html.matchAll(/tabular-nums[^>]*>(\d+)\.<\/span><span class="truncate">([^<]*)</g)].map(
      (m) => `${m[1]}. ${m[2]}`,
    )
    expect(texts).toEqual(['1. Intro to SQL', '2. Joins', '3. Star schemas'])
    expect(html.match(/data-movable-handle="true"/g)).toHaveLength(3)
    expect(html).toContain('aria-label="Move up: Joins"')
    expect(html).toContain('aria-label="Move down: Star schemas"')
    expect(html.match(/<button type="button" data-focus="(up|down)" aria-label="[^"]*" disabled=""/g)).toHaveLength(6)
    expect(html).toContain('role="status"')
    expect(html).not.toContain('aria-roledescription')
    expect([...html.matchAll(/name="order" value="([^"]+)"/g)].map((m) => m[1])).toEqual(['v1', 'v2', 'v3'])
  })
})
