import { within } from '@testing-library/dom'
import { describe, expect, it } from 'vitest'
import { postedBy, renderComponent } from '#tests/render.tsx'
import { hiddenOrderInputs, SortableList } from './sortable-list.tsx'

const items = [
  { id: 'v1', label: 'Intro to SQL' },
  { id: 'v2', label: 'Joins' },
  { id: 'v3', label: 'Star schemas' },
]

describe('hiddenOrderInputs', () => {
  it('renders one hidden order input per item, in order', async () => {
    const page = await renderComponent(<form aria-label="Order">{hiddenOrderInputs(items)}</form>)
    expect(postedBy(page.getByRole('form', { name: 'Order' }))).toEqual([
      ['order', 'v1'],
      ['order', 'v2'],
      ['order', 'v3'],
    ])
    const named = await renderComponent(
      <form aria-label="Order">{hiddenOrderInputs(items.slice(0, 1), 'videoOrder')}</form>,
    )
    expect(postedBy(named.getByRole('form', { name: 'Order' }))).toEqual([['videoOrder', 'v1']])
  })
})

describe('SortableList on the server', () => {
  it('renders a labelled, numbered list with a handle and move buttons per item, disabled until hydrated', async () => {
    const page = await renderComponent(
      <form aria-label="Videos">
        <SortableList label="Course videos" items={items} onChange={() => {}} name="order" />
      </form>,
    )
    const list = page.getByRole('list', { name: 'Course videos' })
    const rows = within(list).getAllByRole('listitem')
    expect(rows.map((row) => row.textContent)).toEqual([
      '1.Intro to SQLMove upMove down',
      '2.JoinsMove upMove down',
      '3.Star schemasMove upMove down',
    ])
    for (const row of rows) expect(row).not.toHaveAttribute('aria-roledescription')
    // each row's handle, which react-movable drags by, says where the item is and how to move it
    const handles = rows.map((row) => within(row).getAllByRole('button')[0])
    expect(handles.map((handle) => handle.textContent)).toEqual(['1.Intro to SQL', '2.Joins', '3.Star schemas'])
    for (const handle of handles) {
      expect(handle).toHaveAttribute('data-movable-handle', 'true')
      expect(handle).toHaveAccessibleDescription(/^Drag an item by its title/)
    }
    const moves = page.getAllByRole('button', { name: /^Move (up|down): / })
    expect(moves).toHaveLength(6)
    for (const move of moves) expect(move).toBeDisabled()
    expect(page.getByRole('button', { name: 'Move up: Joins' })).toBeInTheDocument()
    expect(page.getByRole('button', { name: 'Move down: Star schemas' })).toBeInTheDocument()
    expect(page.getByRole('status')).toBeInTheDocument()
    expect(postedBy(page.getByRole('form', { name: 'Videos' }))).toEqual([
      ['order', 'v1'],
      ['order', 'v2'],
      ['order', 'v3'],
    ])
  })
})
