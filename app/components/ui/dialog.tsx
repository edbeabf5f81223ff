import { Description, Dialog, DialogBackdrop, DialogPanel, DialogTitle } from '@headlessui/react'
import { type ReactNode } from 'react'
import { Spinner } from './spinner.tsx'

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

type ConfirmDialogProps = {
  open: boolean
  onClose: () => void
  title: string
  message: ReactNode
  /** The confirm button's text: "Delete". */
  confirmLabel?: string
  cancelLabel?: string
  /** Red confirm button, for what cannot be undone. */
  destructive?: boolean
  /** While the action runs: the confirm button is disabled, shows `busyLabel`, and the dialog stays open. */
  busy?: boolean
  busyLabel?: string
  /**
   * The id of the form the confirm button submits (its `form` attribute). Pass the form itself,
   * a Remix `<Form method="post" id=…>` or `<fetcher.Form>`, as children, with every value it
   * needs as hidden inputs (the intent too: a disabled button would not send its own name).
   */
  formId?: string
  /** Called on confirm when there is no form to submit (and also when there is). */
  onConfirm?: () => void
  children?: ReactNode
}

/**
 * "Are you sure?" before a delete. Focus starts on Cancel, so a stray Enter does no harm.
 *
 * ```tsx
 * <ConfirmDialog open={open} onClose={close} title="Delete video" message="…" formId="delete-video"
 *   busy={fetcher.state !== 'idle'} destructive>
 *   <fetcher.Form id="delete-video" method="post">
 *     <input type="hidden" name="intent" value="deleteVideo" />
 *     <input type="hidden" name="videoId" value={video.id} />
 *   </fetcher.Form>
 * </ConfirmDialog>
 * ```
 */
export function ConfirmDialog({
  open,
  onClose,
  title,
  message,
  confirmLabel = 'Delete',
  cancelLabel = 'Cancel',
  destructive = false,
  busy = false,
  busyLabel = 'Deleting…',
  formId,
  onConfirm,
  children,
}: ConfirmDialogProps) {
  const close = () => {
    if (!busy) onClose()
  }
  return (
    <Modal open={open} onClose={close} title={title} description={message} role="alertdialog">
      {children}
      <div className="mt-2 flex justify-end gap-3">
        <button type="button" className="btn-secondary" onClick={close} disabled={busy} data-autofocus>
          {cancelLabel}
        </button>
        <button
          type={formId ? 'submit' : 'button'}
          form={formId}
          onClick={onConfirm}
          disabled={busy}
          className={destructive ? 'btn bg-red-600 text-white hover:bg-red-700' : 'btn-primary'}
        >
          {busy ? (
            <>
              <Spinner label={null} />
              {busyLabel}
            </>
          ) : (
            confirmLabel
          )}
        </button>
      </div>
    </Modal>
  )
}
