import { Description, Dialog, DialogBackdrop, DialogPanel, DialogTitle } from '@headlessui/react'
import { type ReactNode } from 'react'

const WIDTHS = {
  md: 'max-w-lg',
  // the document viewer, about 1000 px wide
  xl: 'max-w-[1000px]',
} as const

type ModalProps = {
  open: boolean
  onClose: () => void
  title: string
  /** the title's id, for a form inside to be named by it (`aria-labelledby`) */
  titleId?: string
  description?: ReactNode
  size?: keyof typeof WIDTHS
  /** `alertdialog` for a question that interrupts (a confirmation). */
  role?: 'dialog' | 'alertdialog'
  children?: ReactNode
}

/**
 * A popup with a title, an optional description and a close button. Escape, the close button and a
 * click outside all call `onClose`; focus stays inside while it is open and returns afterwards.
 * Put `data-autofocus` on the element that should take focus first (the first field otherwise).
 */
export function Modal({
  open,
  onClose,
  title,
  titleId,
  description,
  size = 'md',
  role = 'dialog',
  children,
}: ModalProps) {
  return (
    // The dialog element itself covers the screen, so it has a box (and tests see it as visible).
    <Dialog open={open} onClose={onClose} role={role} className="fixed inset-0 z-50 overflow-y-auto">
      <DialogBackdrop
        transition
        className="fixed inset-0 bg-slate-900/50 transition-opacity duration-150 data-[closed]:opacity-0 motion-reduce:transition-none"
      />
      <div className="relative flex min-h-full items-center justify-center p-4">
        <DialogPanel
          transition
          className={`card w-full ${WIDTHS[size]} p-6 shadow-xl transition duration-150 data-[closed]:scale-95 data-[closed]:opacity-0 motion-reduce:transition-none`}
        >
          <div className="flex items-start justify-between gap-4">
            <div>
              <DialogTitle id={titleId} className="text-lg font-semibold text-slate-900">
                {title}
              </DialogTitle>
              {description ? <Description className="mt-1 text-sm text-slate-600">{description}</Description> : null}
            </div>
            <button
              type="button"
              onClick={onClose}
              aria-label="Close"
              className="-m-2 rounded-md p-2 text-slate-500 hover:bg-slate-100 hover:text-slate-800"
            >
              <svg
                viewBox="0 0 20 20"
                className="h-5 w-5"
                fill="none"
                stroke="currentColor"
                strokeWidth="2"
                aria-hidden
              >
                <path d="M5 5l10 10M15 5 5 15" strokeLinecap="round" />
              </svg>
            </button>
          </div>
          {children ? <div className="mt-4">{children}</div> : null}
        </DialogPanel>
      </div>
    </Dialog>
  )
}
