import { useId, useState } from 'react'
import { useHydrated } from '#app/utils/use-hydrated.ts'

/**
 * A link to share: shown in a read-only field anyone can select and copy (without JavaScript too), and a
 * Copy link button once the page is hydrated, which says when it copied.
 */
export function CopyLink({ url, label }: { url: string; label: string }) {
  const hydrated = useHydrated()
  const id = useId()
  const [said, setSaid] = useState('')
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url)
      setSaid('Link copied.')
    } catch {
      setSaid('Could not copy: select the link and copy it.')
    }
  }
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <div className="flex flex-col gap-2 sm:flex-row">
        <input
          id={id}
          readOnly
          value={url}
          className="field-input min-w-0 flex-1 font-mono text-xs"
          onFocus={(e) => e.currentTarget.select()}
        />
        {hydrated ? (
          <button type="button" className="btn-secondary" onClick={() => void copy()}>
            Copy link
          </button>
        ) : null}
      </div>
      <p role="status" className="min-h-[1.25rem] text-sm text-slate-600">
        {said}
      </p>
    </div>
  )
}
