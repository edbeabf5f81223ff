/** Every stored file is reached through the app, which checks permission first (DESIGN.md §7). */
export const fileLink = (key: string) => `/files/${encodeURIComponent(key)}`
