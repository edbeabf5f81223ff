import { Form, useNavigation } from '@remix-run/react'
import { useState } from 'react'
import { FormFooter } from '#app/components/ui/form-footer.tsx'
import { SortableList, type SortableItem } from '#app/components/ui/sortable-list.tsx'
import { useHydrated } from '#app/utils/use-hydrated.ts'

/**
 * The rearrange pages: drag, keyboard or Move up/down, then Save posts the ids in their
 * new order; the server gives each its zero-based position and returns to the course. Before (or
 * without) JavaScript, each item has a position number instead.
 */
export function RearrangeForm({
  title,
  listLabel,
  items: initial,
  backTo,
  error,
}: {
  title: string
  listLabel: string
  items: SortableItem[]
  backTo: string
  error?: string
}) {
  const [items, setItems] = useState(initial)
  const hydrated = useHydrated()
  const navigation = useNavigation()
  const saving = navigation.state === 'submitting'
  return (
    <div className="max-w-2xl">
      <h1 className="text-2xl font-bold">{title}</h1>
      <Form method="post" className="mt-4 space-y-4">
        {hydrated ? (
          <SortableList items={items} onChange={setItems} label={listLabel} name="order" />
        ) : (
          <PositionInputs items={items} label={listLabel} />
        )}
        <FormFooter error={error} saving={saving} cancelTo={backTo} />
      </Form>
    </div>
  )
}

/** The order as numbers to type: `position:{id}` fields, read by the server when no `order` is posted. */
function PositionInputs({ items, label }: { items: SortableItem[]; label: string }) {
  return (
    // min-w-0: a fieldset is at least as wide as its widest line otherwise, and a long title would widen the page
    <fieldset className="min-w-0">
      <legend className="mb-2 text-sm text-slate-600">Give each item its new position (1 is first), then Save.</legend>
      <ol aria-label={label} className="divide-y divide-slate-100 rounded-lg border border-slate-200 bg-white">
        {items.map((item, index) => (
          <li key={item.id} className="flex items-center gap-3 px-3 py-2 text-sm">
            <input
              type="number"
              min={1}
              max={items.length}
              name={`position:${item.id}`}
              defaultValue={index + 1}
              aria-label={`Position of ${item.label}`}
              className="field-input w-20"
            />
            <span className="min-w-0 truncate">{item.label}</span>
          </li>
        ))}
      </ol>
    </fieldset>
  )
}
