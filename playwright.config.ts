import os from 'node:os'
import path from 'node:path'
import { defineConfig, devices } from '@playwright/test'

// The end-to-end suite runs the built app (npm run build) through `portal serve`, on a throwaway
// DATA_DIR with its own embedded PostgreSQL, in Debian's Chromium (browsers cannot be downloaded here).
const port = Number(process.env.E2E_PORT ?? 3210)
process.env.E2E_DATA_DIR ??= path.join(os.tmpdir(), `portal-e2e-${port}`)
process.env.E2E_BASE_URL = `http://127.0.0.1:${port}`
const videoHostPort = Number(process.env.E2E_VIDEO_HOST_PORT ?? 3211)
process.env.E2E_VIDEO_HOST = `http://127.0.0.1:${videoHostPort}`
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

// The spec files share one server and one database. Most of them change the demo data and some read what an earlier
// file left, so they run one at a time in file order (the project `chromium`). Two things run beside them, in a
// second worker: the files that only look at pages (`pages`: every page with axe, and on a phone), whose accounts,
// schedules and company sign-in provider are their own and named so that no other file reads them; and first,
// before any file adds to the demo, the files that count it as the seed made it (`seeded`: admin.spec.ts counts its
// users and courses), beside admin-a11y.spec.ts, which only looks. The later projects wait for `seeded`, and are
// not run when it fails; `npx playwright test --no-deps <file>` runs a file without it.
const SEEDED = /\/admin(-certificates|-nojs)?\.spec\.ts$/
const BESIDE_SEEDED = /\/admin-a11y\.spec\.ts$/
const PAGES = /\/(a11y|phone)\.spec\.ts$/

const browser = {
  ...devices['Desktop Chrome'],
  launchOptions: {
    executablePath: chromium,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  },
}

export default defineConfig({
  testDir: './tests/e2e',
  fullyParallel: false,
  workers: 2,
  forbidOnly: true,
  retries: 0,
  reporter: process.env.CI ? [['list']] : [['list'], ['html', { open: 'never' }]],
  timeout: 30_000,
  expect: { timeout: 10_000 },
  use: {
    baseURL: process.env.E2E_BASE_URL,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  projects: [
    { name: 'seeded', testMatch: SEEDED, workers: 1, use: browser },
    { name: 'seeded-pages', testMatch: BESIDE_SEEDED, workers: 1, use: browser },
    {
      name: 'chromium',
      testIgnore: [SEEDED, BESIDE_SEEDED, PAGES],
      dependencies: ['seeded'],
      workers: 1,
      use: browser,
    },
    { name: 'pages', testMatch: PAGES, dependencies: ['seeded'], workers: 1, use: browser },
  ],
  webServer: [
    {
      command: 'node --import tsx tests/e2e/serve.ts',
      url: `${process.env.E2E_BASE_URL}/healthcheck`,
      reuseExistingServer: false,
      timeout: 120_000,
      // stopped as an operator stops it (the drain, then the database): the embedded PostgreSQL runs in a
      // process group of its own and would outlive the SIGKILL that Playwright sends otherwise
      gracefulShutdown: { signal: 'SIGTERM', timeout: 30_000 },
      stdout: 'ignore',
      stderr: 'pipe',
      env: {
        PORT: String(port),
        PUBLIC_URL: process.env.E2E_BASE_URL,
        DATA_DIR: process.env.E2E_DATA_DIR,
        EMBEDDED_PG_PORT: String(Number(process.env.E2E_PG_PORT ?? 54330)),
        // the stand-in video host is allowed in embeds here only (tests/e2e/video-host.ts)
        VIDEO_HOSTS: `127.0.0.1:${videoHostPort}`,
      },
    },
    {
      // no internet in tests: a local page that speaks YouTube's embed protocol stands in for the host
      command: 'node --import tsx tests/e2e/video-host.ts',
      url: `${process.env.E2E_VIDEO_HOST}/health`,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: 'ignore',
      stderr: 'pipe',
      env: { VIDEO_HOST_PORT: String(videoHostPort) },
    },
  ],
})
