import { Form, Link, NavLink, useLocation, useSearchParams } from '@remix-run/react'
import { useEffect, useId, useState } from 'react'
import { can } from '#app/modules/auth/permissions.ts'
import { useHydrated } from '#app/utils/use-hydrated.ts'
import { Logo } from './logo.tsx'
import { UserMenu } from './user-menu.tsx'

type HeaderUser = { id: string; firstName: string; lastName: string; roleId: number } | null

const navClass = ({ isActive }: { isActive: boolean }) =>
  `rounded-md px-3 py-2 text-sm font-medium ${isActive ? 'bg-brand-50 text-brand-700' : 'text-slate-700 hover:bg-slate-100'}`

/**
 * The top bar: a visitor gets Home, Courses and Login; a learner (whoever is assigned courses) My Courses,
 * Explore Courses and, on those two pages, the course search; everyone signed in the user menu.
 */
export function SiteHeader({ user, marketingUrl }: { user: HeaderUser; marketingUrl: string | null }) {
  const learner = can(user, 'read:course:assigned')
  const links = user
    ? learner
      ? [
          { to: '/courses', label: 'My Courses' },
          { to: '/explore-courses', label: 'Explore Courses' },
        ]
      : can(user, 'enter:admin-area')
        ? [{ to: '/admin/dashboard', label: 'Admin dashboard' }]
        : []
    : [{ to: '/explore-courses', label: 'Courses' }]
  // the mobile menu: before JavaScript runs (or without it) a <details> that opens as plain HTML; once
  // hydrated, a button with aria-expanded over the panel it shows, closed again by a navigation
  const hydrated = useHydrated()
  const mobileMenuId = useId()
  const [mobileOpen, setMobileOpen] = useState(false)
  const location = useLocation()
  useEffect(() => setMobileOpen(false), [location.key])
  const mobileLinks = (
    <>
      {!user ? (
        <a href={marketingUrl ?? '/'} className="block rounded-md px-3 py-2 text-sm text-slate-700 hover:bg-slate-100">
          Home
        </a>
      ) : null}
      {links.map((l) => (
        <NavLink key={l.to} to={l.to} className={(s) => `block ${navClass(s)}`}>
          {l.label}
        </NavLink>
      ))}
      <NavLink to="/contact-Us" className={(s) => `block ${navClass(s)}`}>
        Contact Us
      </NavLink>
    </>
  )
  const menuIcon = (
    <svg viewBox="0 0 24 24" className="h-6 w-6" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden>
      <path d="M4 6h16M4 12h16M4 18h16" />
    </svg>
  )
  return (
    <header className="sticky top-0 z-40 border-b border-slate-200 bg-white/95 backdrop-blur">
      <div className="mx-auto flex h-16 max-w-7xl items-center gap-4 px-4 sm:px-6">
        <Logo to={user ? (learner ? '/courses' : '/admin/dashboard') : '/'} />
        <nav aria-label="Main" className="hidden items-center gap-1 md:flex">
          {!user ? (
            <a href={marketingUrl ?? '/'} className={navClass({ isActive: false })}>
              Home
            </a>
          ) : null}
          {links.map((l) => (
            <NavLink key={l.to} to={l.to} className={navClass}>
              {l.label}
            </NavLink>
          ))}
        </nav>
        <div className="ml-auto flex items-center gap-3">
          {learner ? <CourseSearch /> : null}
          {user ? (
            <UserMenu user={user} />
          ) : (
            <Link to="/sign-in" className="btn-primary">
              Login
            </Link>
          )}
          {hydrated ? (
            <button
              type="button"
              className="rounded-md p-2 text-slate-700 hover:bg-slate-100 md:hidden"
              aria-label="Open menu"
              aria-expanded={mobileOpen}
              aria-controls={mobileOpen ? mobileMenuId : undefined}
              onClick={() => setMobileOpen((o) => !o)}
            >
              {menuIcon}
            </button>
          ) : (
            // the panel is placed under the whole header (the sticky header is its containing block)
            <details className="md:hidden">
              <summary className="cursor-pointer list-none rounded-md p-2 text-slate-700 hover:bg-slate-100 [&::-webkit-details-marker]:hidden">
                {menuIcon}
                <span className="sr-only">Menu</span>
              </summary>
              <nav
                aria-label="Mobile"
                className="absolute inset-x-0 top-full border-y border-slate-200 bg-white px-4 py-2 shadow-sm"
              >
                {mobileLinks}
              </nav>
            </details>
          )}
        </div>
      </div>
      {hydrated && mobileOpen ? (
        <nav id={mobileMenuId} aria-label="Mobile" className="border-t border-slate-200 px-4 py-2 md:hidden">
          {mobileLinks}
        </nav>
      ) : null}
    </header>
  )
}

/** Search box of My Courses and Explore Courses; it filters the page it is on (GET, works without JS). */
function CourseSearch() {
  const location = useLocation()
  const [params] = useSearchParams()
  const path = location.pathname.toLowerCase()
  if (path !== '/courses' && path !== '/explore-courses') return null
  return (
    <Form method="get" action={location.pathname} role="search" className="hidden sm:block">
      <label htmlFor="course-search" className="sr-only">
        Search courses
      </label>
      <input
        id="course-search"
        type="search"
        name="q"
        defaultValue={params.get('q') ?? ''}
        placeholder="Search courses"
        className="field-input w-56"
      />
    </Form>
  )
}
