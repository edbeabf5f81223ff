import { importJWK, jwtVerify, type JWK } from 'jose'
import { describe, expect, it } from 'vitest'
import { query, sql } from '#db/client.ts'
import { call } from '#tests/requests.ts'
import * as statusRoute from '../../app/routes/issuer.status.$list.ts'

// The revocation list is signed on request with this process's key: the key is recorded before it signs (as a
// certificate's key is), so any instance's published key set verifies the list, even before the key has
// signed a certificate; and it is recorded once, not written on every request. A database of this file's
// own, where no certificate was ever issued.

const KEYS = sql(`SELECT kid, public_jwk FROM certificate_keys ORDER BY created_at`)
const statusList = async () => {
  const response = await call(statusRoute.loader, '/issuer/status/1', { params: { list: '1' } })
  expect(response.status).toBe(200)
  return response.text()
}

describe('the revocation list’s key', () => {
  it('is recorded before the list is signed, once per process', async () => {
    expect(await query(KEYS, {})).toEqual([])
    const jwt = await statusList()
    const keys = await query<{ kid: string; public_jwk: JWK }>(KEYS, {})
    expect(keys).toHaveLength(1)
    // the list verifies against the recorded key, which is what every instance publishes
    const { payload } = await jwtVerify(jwt, await importJWK(keys[0].public_jwk, 'RS256'))
    expect(payload).toMatchObject({ type: ['VerifiableCredential', 'BitstringStatusListCredential'] })

    // recorded once: a later request writes nothing (the record taken away here stays away)
    await query(sql(`DELETE FROM certificate_keys WHERE kid = :kid RETURNING kid`), { kid: keys[0].kid })
    await statusList()
    expect(await query(KEYS, {})).toEqual([])
  })
})
