import { Form, Link, useNavigation } from '@remix-run/react'
import { useState } from 'react'
import { SortableList, type SortableItem } from '#app/components/ui/sortable-list.tsx'

/**
 * The rearrange pages (spec §2): drag, keyboard or Move up/down, then Save posts the ids in their
 * new order; the server gives each its zero-based position and returns to the course.
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
  const navigation = useNavigation()
  const saving = navigation.state === 'submitting'
  return (
    <div className="max-w-2xl">
      <h1 className="text-2xl font-bold">{title}</h1>
      <p className="mt-1 text-sm text-slate-600">
        Drag an item, or focus its handle and press Space, the arrow keys and Space again, or use Move up and Move down.
        Save keeps the new order.
      </p>
      <Form method="post" className="mt-6 space-y-4">
        <SortableList items={items} onChange={setItems} label={listLabel} name="order" />
        <p role="alert" className="field-error">
          {error}
        </p>
        <div className="flex gap-3">
          <button type="submit" className="btn-primary" disabled={saving}>
            {saving ? 'Saving…' : 'Save'}
          </button>
          <Link to={backTo} className="btn-secondary">
            Cancel
          </Link>
        </div>
      </Form>
    </div>
  )
}
