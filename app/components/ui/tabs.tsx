import { useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react'

const tabClass =
  'rounded-md px-3 py-1.5 text-sm font-medium text-slate-600 hover:bg-slate-100 aria-selected:bg-brand-600 aria-selected:text-white aria-selected:hover:bg-brand-700 focus:outline-none focus-visible:outline-2 focus-visible:outline-brand-500'

/**
 * Tabs as the WAI-ARIA pattern has them: one tab stop, Left/Right (wrapping), Home and End choose a
 * tab and show its panel. The first panel shows before JavaScript, the others are `hidden`.
 */
export function Tabs({ tabs, className }: { tabs: { label: string; content: ReactNode }[]; className?: string }) {
  const id = useId()
  const [selected, setSelected] = useState(0)
  const list = useRef<HTMLDivElement>(null)
  const choose = (index: number) => {
    const next = (index + tabs.length) % tabs.length
    setSelected(next)
    list.current?.querySelectorAll<HTMLElement>('[role="tab"]')[next]?.focus()
  }
  const onKeyDown = (event: KeyboardEvent) => {
    const to = { ArrowRight: selected + 1, ArrowLeft: selected - 1, Home: 0, End: tabs.length - 1 }[event.key]
    if (to === undefined) return
    event.preventDefault()
    choose(to)
  }
  return (
    <div className={className}>
      <div ref={list} role="tablist" className="flex gap-1 border-b border-slate-100 p-2" onKeyDown={onKeyDown}>
        {tabs.map((tab, i) => (
          <button
            key={tab.label}
            type="button"
            role="tab"
            id={`${id}-tab-${i}`}
            aria-selected={i === selected}
            aria-controls={`${id}-panel-${i}`}
            tabIndex={i === selected ? 0 : -1}
            className={tabClass}
            onClick={() => setSelected(i)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      {tabs.map((tab, i) => (
        <div
          key={tab.label}
          role="tabpanel"
          id={`${id}-panel-${i}`}
          aria-labelledby={`${id}-tab-${i}`}
          tabIndex={0}
          hidden={i !== selected}
        >
          {tab.content}
        </div>
      ))}
    </div>
  )
}
