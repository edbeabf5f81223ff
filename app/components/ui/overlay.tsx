import { useNavigate } from '@remix-run/react'
import { lazy, Suspense, type ReactNode } from 'react'
import { useHydrated } from '#app/utils/use-hydrated.ts'

// The modal (Headless UI, with floating-ui and react-aria) is fetched the first time an overlay opens
// in the browser, so a page that only links to one does not carry it in its first load.
const Modal = lazy(() => import('./dialog.tsx').then((m) => ({ default: m.Modal })))

/** The id of the open overlay's title, to name a form inside it (`aria-labelledby`). */
export const OVERLAY_TITLE_ID = 'overlay-title'

/**
 * A dialog whose open state lives in the URL (`?edit=…`, `?delete=…`), so that a link opens it, the
 * back button closes it, and a form inside it works before or without JavaScript: until the page is
 * hydrated it renders as a card in the page (Headless UI's dialog renders nothing on the server), and
 * stays one while the modal's code loads.
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
  const card = (
    <section className="card my-6 border-brand-500 p-6" aria-labelledby={OVERLAY_TITLE_ID}>
      <h2 id={OVERLAY_TITLE_ID} className="text-lg font-semibold">
        {title}
      </h2>
      {description ? <div className="mt-1 text-sm text-slate-600">{description}</div> : null}
      <div className="mt-4">{children}</div>
      <a href={closeTo} className="mt-2 inline-block text-sm text-brand-700 underline">
        Close
      </a>
    </section>
  )
  if (!hydrated) return card
  return (
    <Suspense fallback={card}>
      <Modal
        open
        onClose={() => navigate(closeTo, { preventScrollReset: true, replace: true })}
        title={title}
        titleId={OVERLAY_TITLE_ID}
        description={description}
        size={size}
        role={role}
      >
        {children}
      </Modal>
    </Suspense>
  )
}

/** The buttons that end a dialog which deletes: Cancel closes it (focused first), Delete says when it is working. */
export function DeleteButtons({ closeTo, busy }: { closeTo: string; busy: boolean }) {
  return (
    <>
      <a href={closeTo} className="btn-secondary" data-autofocus>
        Cancel
      </a>
      <button type="submit" className="btn bg-red-600 text-white hover:bg-red-700" disabled={busy}>
        {busy ? 'Deleting…' : 'Delete'}
      </button>
    </>
  )
}
