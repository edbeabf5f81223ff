import { json } from '@remix-run/node'

// Any other /api path answers JSON, never an HTML page.
const notFound = () => json({ message: 'No such API call.' }, { status: 404 })
export const loader = notFound
export const action = notFound
