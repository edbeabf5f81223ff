import { Form, Link, useLocation, useSubmit } from '@remix-run/react'
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react'
import { can } from '#app/modules/auth/permissions.ts'
import { useHydrated } from '#app/utils/use-hydrated.ts'

type MenuUser = { firstName: string; lastName: string; roleId: number }

const itemClass = 'block w-full px-4 py-2 text-left text-sm text-slate-700 focus:bg-slate-100 focus:outline-none'
const panelClass = 'absolute right-0 top-full z-50 mt-2 w-48 rounded-md border border-slate-200 bg-white py-1 shadow-lg'
const triggerClass = 'flex items-center gap-2 rounded-full py-1 pl-1 pr-3 text-sm font-medium hover:bg-slate-100'

/** Edit Profile, Reset Password and My Certificates (learners): the admin side has its own profile pages. */
function accountLinks(user: MenuUser) {
  const admin = can(user, 'enter:admin-area')
  return [
    { to: admin ? '/admin/editProfile' : '/editProfile', label: 'Edit Profile' },
    { to: admin ? '/admin/passwordReset' : '/Passwordreset', label: 'Reset Password' },
    ...(can(user, 'read:certificates:own') ? [{ to: '/certificates', label: 'My Certificates' }] : []),
  ]
}

function Avatar({ user }: { user: MenuUser }) {
  const initials = `${user.firstName[0] ?? ''}${user.lastName[0] ?? ''}`.toUpperCase()
  return (
    <>
      <span
        aria-hidden
        className="flex h-8 w-8 items-center justify-center rounded-full bg-brand-600 text-xs font-bold text-white"
      >
        {initials || '?'}
      </span>
      <span aria-hidden className="hidden sm:inline">
        {user.firstName}
      </span>
    </>
  )
}

/**
 * Edit Profile, Reset Password, My Certificates (learners) and Logout. Before JavaScript runs (or without it) a `<details>`
 * disclosure whose links and Logout form work as plain HTML; once hydrated, the menu button.
 */
export function UserMenu({ user }: { user: MenuUser }) {
  const hydrated = useHydrated()
  return hydrated ? <UserMenuButton user={user} /> : <UserMenuDisclosure user={user} />
}

/** The menu as plain HTML: a disclosure over two links and the Logout form. */
function UserMenuDisclosure({ user }: { user: MenuUser }) {
  return (
    <details className="relative">
      <summary className={`${triggerClass} cursor-pointer list-none [&::-webkit-details-marker]:hidden`}>
        <Avatar user={user} />
        <span className="sr-only">User menu</span>
      </summary>
      <ul className={panelClass}>
        {accountLinks(user).map((link) => (
          <li key={link.to}>
            <Link to={link.to} className={itemClass}>
              {link.label}
            </Link>
          </li>
        ))}
        <li>
          <Form method="post" action="/logout">
            <button type="submit" className={itemClass}>
              Logout
            </button>
          </Form>
        </li>
      </ul>
    </details>
  )
}

/**
 * A menu button as the WAI-ARIA pattern has it, in a few lines of our own rather than Headless UI's
 * (which brought floating-ui and react-aria to every page): Enter, Space or the arrows open it on an
 * item, the arrows, Home, End and a first letter move, Escape closes it back to the button, Tab or a
 * click elsewhere closes it.
 */
function UserMenuButton({ user }: { user: MenuUser }) {
  const submit = useSubmit()
  const location = useLocation()
  const id = useId()
  const [open, setOpen] = useState(false)
  /** the item to focus once the menu is shown: its index, or -1 for the last */
  const [focusOnOpen, setFocusOnOpen] = useState(0)
  const wrapper = useRef<HTMLDivElement>(null)
  const button = useRef<HTMLButtonElement>(null)
  const menu = useRef<HTMLDivElement>(null)

  const items = () => [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])]
  const show = (index: number) => {
    setFocusOnOpen(index)
    setOpen(true)
  }
  const close = (refocus: boolean) => {
    setOpen(false)
    if (refocus) button.current?.focus()
  }

  useEffect(() => {
    if (!open) return
    const all = menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]')
    all?.[focusOnOpen < 0 ? all.length - 1 : focusOnOpen]?.focus()
    const outside = (event: PointerEvent) => {
      if (!wrapper.current?.contains(event.target as Node)) setOpen(false)
    }
    document.addEventListener('pointerdown', outside)
    return () => document.removeEventListener('pointerdown', outside)
  }, [open, focusOnOpen])

  // a chosen link navigates: the menu closes with it
  useEffect(() => setOpen(false), [location.key])

  const onButtonKey = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault()
      show(event.key === 'ArrowDown' ? 0 : -1)
    }
  }
  const onMenuKey = (event: KeyboardEvent) => {
    const all = items()
    const current = all.indexOf(document.activeElement as HTMLElement)
    const move = (index: number) => {
      event.preventDefault()
      all.at(index % all.length)?.focus()
    }
    if (event.key === 'ArrowDown') move(current + 1)
    else if (event.key === 'ArrowUp') move(current - 1)
    else if (event.key === 'Home') move(0)
    else if (event.key === 'End') move(-1)
    else if (event.key === 'Escape') {
      event.preventDefault()
      close(true)
    } else if (event.key === 'Tab') close(false)
    else if (event.key.length === 1 && /\S/.test(event.key)) {
      const letter = event.key.toLowerCase()
      const next = [...all.slice(current + 1), ...all.slice(0, current + 1)].find((el) =>
        el.textContent?.trim().toLowerCase().startsWith(letter),
      )
      if (next) {
        event.preventDefault()
        next.focus()
      }
    }
  }

  return (
    <div ref={wrapper} className="relative">
      <button
        ref={button}
        type="button"
        id={`${id}-button`}
        className={triggerClass}
        aria-label="User menu"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? `${id}-menu` : undefined}
        onClick={() => (open ? close(false) : show(0))}
        onKeyDown={onButtonKey}
      >
        <Avatar user={user} />
      </button>
      {open ? (
        <div
          ref={menu}
          id={`${id}-menu`}
          role="menu"
          aria-labelledby={`${id}-button`}
          onKeyDown={onMenuKey}
          className={panelClass}
        >
          {accountLinks(user).map((link) => (
            <Link
              key={link.to}
              role="menuitem"
              tabIndex={-1}
              to={link.to}
              className={itemClass}
              onClick={() => setOpen(false)}
            >
              {link.label}
            </Link>
          ))}
          <button
            role="menuitem"
            tabIndex={-1}
            type="button"
            className={itemClass}
            onClick={() => {
              setOpen(false)
              submit(null, { method: 'post', action: '/logout' })
            }}
          >
            Logout
          </button>
        </div>
      ) : null}
    </div>
  )
}
