import { Link } from '@remix-run/react'
import { useId, useRef, type KeyboardEvent, type ReactNode } from 'react'
import { useHydrated } from '#app/utils/use-hydrated.ts'

const tabClass = (chosen: boolean) =>
  `rounded-md px-3 py-1.5 text-sm font-medium focus:outline-none focus-visible:outline-2 focus-visible:outline-brand-500 ${
    chosen ? 'bg-brand-600 text-white hover:bg-brand-700' : 'text-slate-600 hover:bg-slate-100'
  }`

type TabItem<Id extends string> = { id: Id; label: string; href: string; content: ReactNode }

/**
 * Tabs whose choice lives in the URL (`?tab=`). Before JavaScript runs (or without it) they are links
 * in a navigation, the current one marked `aria-current`, and only the chosen panel is in the page:
 * each link loads the page with its panel. Once hydrated they are tabs as the WAI-ARIA pattern has
 * them: one tab stop, Left/Right (wrapping), Home and End choose a tab and show its panel, and
 * `onSelect` hears of each choice (to keep the URL in step).
 */
export function Tabs<Id extends string>({
  label,
  tabs,
  selected,
  onSelect,
  className,
}: {
  /** names the tab list (or the navigation before hydration) */
  label: string
  tabs: TabItem<Id>[]
  selected: Id
  onSelect: (id: Id) => void
  className?: string
}) {
  const hydrated = useHydrated()
  const id = useId()
  const list = useRef<HTMLDivElement>(null)
  const index = Math.max(
    0,
    tabs.findIndex((tab) => tab.id === selected),
  )

  if (!hydrated) {
    const chosen = tabs[index]
    return (
      <div className={className}>
        <nav aria-label={label} className="flex gap-1 border-b border-slate-100 p-2">
          {tabs.map((tab, i) => (
            <Link
              key={tab.id}
              to={tab.href}
              preventScrollReset
              aria-current={i === index ? 'page' : undefined}
              className={tabClass(i === index)}
            >
              {tab.label}
            </Link>
          ))}
        </nav>
        {chosen ? <section aria-label={chosen.label}>{chosen.content}</section> : null}
      </div>
    )
  }

  const choose = (to: number) => {
    const next = (to + tabs.length) % tabs.length
    onSelect(tabs[next]!.id)
    list.current?.querySelectorAll<HTMLElement>('[role="tab"]')[next]?.focus()
  }
  const onKeyDown = (event: KeyboardEvent) => {
    const to = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 }[event.key]
    if (to === undefined) return
    event.preventDefault()
    choose(to)
  }
  return (
    <div className={className}>
      <div
        ref={list}
        role="tablist"
        aria-label={label}
        className="flex gap-1 border-b border-slate-100 p-2"
        onKeyDown={onKeyDown}
      >
        {tabs.map((tab, i) => (
          <button
            key={tab.id}
            type="button"
            role="tab"
            id={`${id}-tab-${i}`}
            aria-selected={i === index}
            aria-controls={`${id}-panel-${i}`}
            tabIndex={i === index ? 0 : -1}
            className={tabClass(i === index)}
            onClick={() => onSelect(tab.id)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      {tabs.map((tab, i) => (
        <div
          key={tab.id}
          role="tabpanel"
          id={`${id}-panel-${i}`}
          aria-labelledby={`${id}-tab-${i}`}
          tabIndex={0}
          hidden={i !== index}
        >
          {tab.content}
        </div>
      ))}
    </div>
  )
}
