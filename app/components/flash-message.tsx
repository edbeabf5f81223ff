import { useEffect } from 'react'
import { toast as showToast } from 'sonner'
import { useHydrated } from '#app/utils/use-hydrated.ts'

/** The one-time message a redirect leaves for the next page (remix-toast's flash cookie). */
export type Flash = {
  message: string
  description?: string
  type: 'success' | 'error' | 'info' | 'warning'
}

const LOOKS: Record<Flash['type'], string> = {
  success: 'border-emerald-200 bg-emerald-50 text-emerald-900',
  info: 'border-sky-200 bg-sky-50 text-sky-900',
  warning: 'border-amber-200 bg-amber-50 text-amber-900',
  error: 'border-red-200 bg-red-50 text-red-900',
}

/**
 * The flash message of this page load, shown once. In the page's HTML it is a bar above the page (a
 * status, or an alert for an error or a warning), so it reads without JavaScript; once React runs in the
 * browser the bar goes and the same message shows as a toast instead, never both.
 */
export function FlashMessage({ flash }: { flash: Flash | null }) {
  const hydrated = useHydrated()
  useEffect(() => {
    if (!flash) return
    const show = {
      success: showToast.success,
      error: showToast.error,
      info: showToast.info,
      warning: showToast.warning,
    }[flash.type]
    show(flash.message, { description: flash.description })
  }, [flash])
  if (!flash || hydrated) return null
  const urgent = flash.type === 'error' || flash.type === 'warning'
  return (
    <div
      role={urgent ? 'alert' : 'status'}
      data-flash={flash.type}
      className={`border-b py-3 text-sm ${LOOKS[flash.type]}`}
    >
      <div className="mx-auto max-w-7xl px-4 sm:px-6">
        <p className="font-medium">{flash.message}</p>
        {flash.description ? <p className="mt-0.5">{flash.description}</p> : null}
      </div>
    </div>
  )
}
