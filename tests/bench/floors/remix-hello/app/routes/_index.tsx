import { json, type MetaFunction } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'

export const meta: MetaFunction = () => [{ title: 'Hello' }]

// a loader, as every portal page has one, but with nothing to read
export const loader = () => json({ greeting: 'Hello, world' })

export default function Hello() {
  const { greeting } = useLoaderData<typeof loader>()
  return <h1>{greeting}</h1>
}
