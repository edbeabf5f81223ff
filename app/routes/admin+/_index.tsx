import { redirect, type LoaderFunctionArgs } from '@remix-run/node'
import { pageLoader } from '#app/utils/pages.server.ts'

export const loader = (args: LoaderFunctionArgs) => pageLoader(args, () => redirect('/admin/dashboard'))
