import { Link } from '@remix-run/react'
import { PRODUCT_NAME } from '#app/utils/brand.ts'

export function Logo({ to = '/' }: { to?: string }) {
  return (
    <Link to={to} className="flex items-center gap-2 font-bold text-brand-900">
      <img src="/favicon.svg" alt="" className="h-8 w-8" />
      <span>{PRODUCT_NAME}</span>
    </Link>
  )
}
