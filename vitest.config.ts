import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Every file starts its own Anvil and servers on free ports; two at a time fits a 2-core machine.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits for what a test cannot signal (a row written after the answer, a process gone): as long as a
    // slow, shared machine may need, looking often.
    expect: { poll: { timeout: 10_000, interval: 20 } },
    setupFiles: ['./test/setup.ts'],
    globalSetup: ['./test/global-setup.ts'],
    // Type tests (`expectTypeOf` in *.test-d.ts) are checked by tsc as part of the run: `vitest run` erases them in
    // ordinary test files, so there they could never fail.
    typecheck: { enabled: true, checker: 'tsc', include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
})
