import { useEffect, useId, useRef, useState } from 'react'
import { arrayMove, List } from 'react-movable'
import { useHydrated } from '#app/utils/use-hydrated.ts'

export type SortableItem = { id: string; label: string }

type SortableListProps = {
  items: SortableItem[]
  onChange: (items: SortableItem[]) => void
  /** What the list holds ("Course videos"); its accessible name. */
  label: string
  /** When given, the list also renders the order as hidden inputs of this name (see `hiddenOrderInputs`). */
  name?: string
}

/**
 * The order as a form carries it: one `<input type="hidden" name="order" value={id}>` per item, in
 * order, so the action reads `formData.getAll('order')` and gives each id its zero-based position.
 */
export function hiddenOrderInputs(items: readonly SortableItem[], name = 'order') {
  return items.map((item) => <input key={item.id} type="hidden" name={name} value={item.id} />)
}

type FocusTarget = 'handle' | 'up' | 'down'

/**
 * A numbered list to put in order by dragging (mouse or touch), by keyboard on an item's handle
 * (Space lifts it, the arrow keys move it, Space drops it, Escape cancels: react-movable's own
 * keyboard support), or with each item's Move up and Move down buttons. Every move is announced
 * ("Moved X to position n of m").
 *
 * The server renders the same list; reordering needs JavaScript, so before hydration the buttons
 * are disabled and a form around it posts the order as it was.
 */
export function SortableList({ items, onChange, label, name }: SortableListProps) {
  const hydrated = useHydrated()
  const instructionsId = useId()
  const containerRef = useRef<HTMLDivElement>(null)
  const [announcement, setAnnouncement] = useState('')
  // the item lifted with the keyboard, named in react-movable's announcements
  const lifted = useRef('')
  // where focus goes once the parent has rendered the new order
  const pendingFocus = useRef<{ id: string; target: FocusTarget } | null>(null)
  const count = items.length

  useEffect(() => {
    const pending = pendingFocus.current
    if (!pending || !containerRef.current) return
    pendingFocus.current = null
    const row = [...containerRef.current.querySelectorAll<HTMLElement>('[data-sortable-id]')].find(
      (element) => element.dataset.sortableId === pending.id,
    )
    const wanted = row?.querySelector<HTMLButtonElement>(`[data-focus="${pending.target}"]`)
    // Move up on the first item is disabled: fall back to the item's handle
    const target = wanted && !wanted.disabled ? wanted : row?.querySelector<HTMLButtonElement>('[data-focus="handle"]')
    target?.focus()
  }, [items])

  function move(from: number, to: number, focus: FocusTarget) {
    if (from === to || to < 0 || to >= count) return
    const item = items[from]
    pendingFocus.current = { id: item.id, target: focus }
    setAnnouncement(`Moved ${item.label} to position ${to + 1} of ${count}`)
    onChange(arrayMove(items, from, to))
  }

  const voiceover = {
    item: (position: number) => `Position ${position} of ${count}`,
    lifted: (position: number) => {
      lifted.current = items[position - 1]?.label ?? ''
      return `${lifted.current} lifted, position ${position} of ${count}. Use the arrow keys to move it, Space to drop it, Escape to cancel.`
    },
    moved: (position: number) => `${lifted.current}: position ${position} of ${count}`,
    // a real move is announced by `move`; only a drop in place is left to say
    dropped: (from: number, to: number) =>
      from === to ? `${lifted.current} dropped, still at position ${to} of ${count}` : '',
    canceled: (position: number) => `Move cancelled. ${lifted.current} is back at position ${position} of ${count}.`,
  }

  return (
    <div ref={containerRef}>
      <p id={instructionsId} className="mb-2 text-sm text-slate-600">
        Drag an item by its title, or focus a title and press Space to lift it, the arrow keys to move it and Space to
        drop it. The Move up and Move down buttons work too.
      </p>
      <noscript>
        <p className="mb-2 text-sm font-medium text-amber-700">
          Changing the order needs JavaScript, which is turned off in this browser.
        </p>
      </noscript>
      <List
        values={items}
        disabled={!hydrated}
        voiceover={voiceover}
        lockVertically
        onChange={({ oldIndex, newIndex }) => move(oldIndex, newIndex, 'handle')}
        renderList={({ children, props, isDragged }) => (
          <ol
            {...props}
            aria-label={label}
            className={`divide-y divide-slate-100 rounded-lg border border-slate-200 bg-white${isDragged ? ' cursor-grabbing' : ''}`}
          >
            {children}
          </ol>
        )}
        renderItem={({ value, props, index = 0, isDragged, isSelected }) => {
          // react-movable keys items by index and makes the whole row a tab stop with a long
          // roledescription; key by id instead, and let the handle button take the focus.
          const { key: _key, tabIndex: _tabIndex, 'aria-roledescription': _role, ...itemProps } = props
          return (
            <li
              key={value.id}
              {...itemProps}
              tabIndex={-1}
              data-sortable-id={value.id}
              className={[
                'flex items-center gap-2 bg-white px-2 py-2',
                isDragged ? 'rounded-lg shadow-lg ring-2 ring-brand-500' : '',
                isSelected ? 'relative ring-2 ring-inset ring-brand-500' : '',
              ]
                .join(' ')
                .trim()}
            >
              <button
                type="button"
                data-movable-handle
                data-focus="handle"
                aria-describedby={instructionsId}
                className={`flex min-w-0 flex-1 items-center gap-3 rounded-md px-2 py-1.5 text-left text-sm text-slate-800 hover:bg-slate-50 ${
                  hydrated ? (isDragged ? 'cursor-grabbing' : 'cursor-grab') : 'cursor-default'
                }`}
              >
                <svg viewBox="0 0 20 20" className="h-4 w-4 shrink-0 text-slate-400" fill="currentColor" aria-hidden>
                  <path d="M7 4a1.5 1.5 0 1 1-3 0 1.5 1.5 0 0 1 3 0Zm0 6a1.5 1.5 0 1 1-3 0 1.5 1.5 0 0 1 3 0Zm-1.5 7.5a1.5 1.5 0 1 0 0-3 1.5 1.5 0 0 0 0 3ZM16 4a1.5 1.5 0 1 1-3 0 1.5 1.5 0 0 1 3 0Zm-1.5 7.5a1.5 1.5 0 1 0 0-3 1.5 1.5 0 0 0 0 3ZM16 16a1.5 1.5 0 1 1-3 0 1.5 1.5 0 0 1 3 0Z" />
                </svg>
                <span className="w-6 shrink-0 text-right tabular-nums text-slate-500">{`${index + 1}.`}</span>
                <span className="truncate">{value.label}</span>
              </button>
              {isDragged ? null : (
                <>
                  <button
                    type="button"
                    data-focus="up"
                    aria-label={`Move up: ${value.label}`}
                    onClick={() => move(index, index - 1, 'up')}
                    disabled={!hydrated || index === 0}
                    className="btn-secondary px-2 py-1 text-xs"
                  >
                    Move up
                  </button>
                  <button
                    type="button"
                    data-focus="down"
                    aria-label={`Move down: ${value.label}`}
                    onClick={() => move(index, index + 1, 'down')}
                    disabled={!hydrated || index === count - 1}
                    className="btn-secondary px-2 py-1 text-xs"
                  >
                    Move down
                  </button>
                </>
              )}
            </li>
          )
        }}
      />
      <p role="status" className="sr-only">
        {announcement}
      </p>
      {name ? hiddenOrderInputs(items, name) : null}
    </div>
  )
}
