import { NavLink } from '@remix-run/react'

const ITEMS: { to: string; label: string; end?: boolean; adminOnly?: boolean }[] = [
  { to: '/admin/dashboard', label: 'Dashboard' },
  { to: '/admin/users', label: 'Users', end: true },
  { to: '/admin/users/import', label: 'Import users', adminOnly: true },
  { to: '/admin/adminUsers', label: 'Admins' },
  { to: '/admin/coach', label: 'Coaches' },
  { to: '/admin/courses', label: 'Courses' },
  { to: '/admin/programs', label: 'Programs' },
  { to: '/admin/assignmentDocumentList', label: 'Assessments' },
  { to: '/admin/accesslog', label: 'Access Log' },
  { to: '/admin/exports', label: 'Scheduled exports' },
  { to: '/admin/jobs', label: 'Background jobs' },
]

/** The admin area's side menu; admins and the super admin see their own pages too. */
export function AdminSideMenu({ isAdmin }: { isAdmin: boolean }) {
  return (
    <nav aria-label="Admin" className="flex flex-col gap-1 p-3">
      {ITEMS.filter((item) => isAdmin || !item.adminOnly).map((item) => (
        <NavLink
          key={item.to}
          to={item.to}
          end={item.end}
          className={({ isActive }) =>
            `rounded-md px-3 py-2 text-sm font-medium ${
              isActive ? 'bg-brand-600 text-white' : 'text-slate-200 hover:bg-brand-700 hover:text-white'
            }`
          }
        >
          {item.label}
        </NavLink>
      ))}
    </nav>
  )
}
