import { NavLink } from '@remix-run/react'
import { can, type Permission } from '#app/modules/auth/permissions.ts'

/** The pages of the admin area; one that needs more than entering it names the permission it needs. */
const ITEMS: { to: string; label: string; end?: boolean; permission?: Permission }[] = [
  { to: '/admin/dashboard', label: 'Dashboard' },
  { to: '/admin/users', label: 'Users', end: true },
  { to: '/admin/users/import', label: 'Import users', permission: 'manage:people' },
  { to: '/admin/adminUsers', label: 'Admins' },
  { to: '/admin/coach', label: 'Coaches' },
  { to: '/admin/courses', label: 'Courses' },
  { to: '/admin/programs', label: 'Programs' },
  { to: '/admin/certificates', label: 'Certificates', permission: 'read:certificates' },
  { to: '/admin/assignmentDocumentList', label: 'Assessments' },
  { to: '/admin/accesslog', label: 'Access Log' },
  { to: '/admin/exports', label: 'Scheduled exports' },
  { to: '/admin/reminders', label: 'Reminders', permission: 'read:reminders' },
  { to: '/admin/jobs', label: 'Background jobs' },
  { to: '/admin/backups', label: 'Backups', permission: 'read:backups' },
  { to: '/admin/sign-ins', label: 'Sign-ins', permission: 'read:sign-ins' },
  { to: '/admin/sso', label: 'Company sign-in', permission: 'manage:identity-providers' },
]

/** The admin area's side menu: each page the signed-in person may open (the permission table says which). */
export function AdminSideMenu({ user }: { user: { id: string; roleId: number } }) {
  return (
    <nav aria-label="Admin" className="flex flex-col gap-1 p-3">
      {ITEMS.filter((item) => !item.permission || can(user, item.permission)).map((item) => (
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
