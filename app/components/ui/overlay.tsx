import { useNavigate } from '@remix-run/react'
import type { ReactNode } from 'react'
import { Modal } from './dialog.tsx'
import { useHydrated } from '#app/utils/use-hydrated.ts'

/**
 * A dialog whose open state lives in the URL (`?edit=…`, `?delete=…`), so that a link opens it, the
 * back button closes it, and a form inside it works before or without JavaScript: until the page is
 * hydrated it renders as a card in the page (Headless UI's dialog renders nothing on the server).
 */
export function Overlay({
  title,
  description,
  closeTo,
  size = 'md',
  role,
  children,
}: {
  title: string
  description?: ReactNode
  /** where closing goes: the same page without the dialog's parameter */
  closeTo: string
  size?: 'md' | 'xl'
  role?: 'dialog' | 'alertdialog'
  children: ReactNode
}) {
  const hydrated = useHydrated()
  const navigate = useNavigate()
  if (hydrated) {
    return (
      <Modal
        open
        onClose={() => navigate(closeTo, { preventScrollReset: true, replace: true })}
        title={title}
        description={description}
        size={size}
        role={role}
      >
        {children}
      </Modal>
    )
  }
  return (
    <section className="card my-6 border-brand-500 p-6" aria-labelledby="overlay-title">
      <h2 id="overlay-title" className="text-lg font-semibold">
        {title}
      </h2>
      {description ? <div className="mt-1 text-sm text-slate-600">{description}</div> : null}
      <div className="mt-4">{children}</div>
      <a href={closeTo} className="mt-2 inline-block text-sm text-brand-700 underline">
        Close
      </a>
    </section>
  )
}
