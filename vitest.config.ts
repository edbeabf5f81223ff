import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

// Two projects: pure units beside the code, and integration tests on a real PostgreSQL (one
// throwaway server per run; every test file gets its own database cloned from a migrated template).
export default defineConfig({
  test: {
    // the integration files wait on PostgreSQL and child processes about as much as they compute: at least
    // two at a time (the default, one per core but one, runs them one by one on two cores)
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['app/**/*.test.{ts,tsx}', 'cli/**/*.test.ts', 'db/**/*.test.ts', 'eslint/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/setup/global.ts'],
          setupFiles: ['tests/setup/database.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
})
