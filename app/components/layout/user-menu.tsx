import { Menu, MenuButton, MenuItem, MenuItems } from '@headlessui/react'
import { Form, Link, useSubmit } from '@remix-run/react'
import { isAdminSide } from '#app/modules/auth/roles.ts'

type MenuUser = { firstName: string; lastName: string; roleId: number }

/** EditProfile, ResetPassword and Logout (spec §2); the admin side has its own profile pages. */
export function UserMenu({ user }: { user: MenuUser }) {
  const admin = isAdminSide(user.roleId)
  const submit = useSubmit()
  const initials = `${user.firstName[0] ?? ''}${user.lastName[0] ?? ''}`.toUpperCase()
  const item = 'block w-full px-4 py-2 text-left text-sm text-slate-700 data-[focus]:bg-slate-100'
  return (
    <Menu as="div" className="relative">
      <MenuButton
        className="flex items-center gap-2 rounded-full py-1 pl-1 pr-3 text-sm font-medium hover:bg-slate-100"
        aria-label="User menu"
      >
        <span className="flex h-8 w-8 items-center justify-center rounded-full bg-brand-600 text-xs font-bold text-white">
          {initials || '?'}
        </span>
        <span className="hidden sm:inline">{user.firstName}</span>
      </MenuButton>
      <MenuItems
        anchor="bottom end"
        className="z-50 mt-2 w-48 rounded-md border border-slate-200 bg-white py-1 shadow-lg focus:outline-none"
      >
        <MenuItem>
          <Link to={admin ? '/admin/editProfile' : '/editProfile'} className={item}>
            Edit Profile
          </Link>
        </MenuItem>
        <MenuItem>
          <Link to={admin ? '/admin/passwordReset' : '/Passwordreset'} className={item}>
            Reset Password
          </Link>
        </MenuItem>
        <MenuItem>
          {/* a menu item's click is the menu's own (it does not submit a form), so submit here */}
          <button type="button" className={item} onClick={() => submit(null, { method: 'post', action: '/logout' })}>
            Logout
          </button>
        </MenuItem>
      </MenuItems>
      <noscript>
        <Form method="post" action="/logout" className="inline">
          <button type="submit" className="ml-2 text-sm font-medium text-brand-700 underline">
            Logout
          </button>
        </Form>
      </noscript>
    </Menu>
  )
}
