import autocannon from 'autocannon'

// One address under load from autocannon, for the benches on the served portal: the request of a target (each
// one its own headers and body when the target says so), every response's time, and autocannon's result.

/** What a load sends: a path, its method and headers, or each request's own. */
export type Target = {
  path: string
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  /** each request's own headers and body */
  next?: () => { headers: Record<string, string>; body: string }
}

/** Runs the load; the response times come back sorted, fastest first. */
export async function cannon(
  url: string,
  target: Target,
  options: { connections: number; duration: number; overallRate?: number },
): Promise<{ times: number[]; result: autocannon.Result }> {
  const next = target.next
  const request: autocannon.Request = {
    method: target.method ?? 'GET',
    path: target.path,
    headers: target.headers ?? {},
    ...(next && { setupRequest: (r: autocannon.Request) => ({ ...r, ...next() }) }),
  }
  const times: number[] = []
  // without a callback autocannon answers its instance, which is also a promise of the result
  const instance = autocannon({ url, ...options, requests: [request] }) as unknown as autocannon.Instance
  instance.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime))
  const result = await (instance as unknown as Promise<autocannon.Result>)
  return { times: times.sort((a, b) => a - b), result }
}

/** The answers other than 2xx, by status, and the connection errors. */
export function notOk(result: autocannon.Result): Record<string, number> {
  const statuses: Record<string, number> = {}
  for (const [code, { count = 0 }] of Object.entries(result.statusCodeStats ?? {}))
    if (!code.startsWith('2')) statuses[code] = count
  if (result.errors) statuses['connection errors'] = result.errors
  return statuses
}
