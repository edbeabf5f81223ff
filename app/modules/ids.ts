const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Ids are UUIDs; anything else names nothing (and must not reach a uuid column as a 500). */
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value)
