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

export default defineConfig({
  testDir: './tests/e2e',
  fullyParallel: false,
  workers: 1,
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
    {
      name: 'chromium',
      use: {
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
      },
    },
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
