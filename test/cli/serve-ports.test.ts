import { spawnSync } from 'node:child_process'
import { describe, expect, test } from 'vitest'
import { svcBin } from './harness.js'

// `svc serve` parses its ports with `svc up`'s parser (cli/inputs.ts); up.test.ts checks `svc up`'s side.
describe('svc serve', () => {
  test.each([
    [
      ['--port', 'eighty'],
      {},
      `svc: option '--port <port>' argument 'eighty' is invalid. It must be a port number (0-65535).`,
    ],
    [
      ['--public-port', '65536'],
      {},
      `svc: option '--public-port <port>' argument '65536' is invalid. It must be a port number (0-65535).`,
    ],
    [[], { SVC_PORT: '80a' }, 'svc: SVC_PORT "80a" is invalid. It must be a port number (0-65535).'],
  ])('a bad port (%j, %j) is a usage error before anything starts: one line, exit code 2', (args, env, line) => {
    const result = spawnSync(process.execPath, [svcBin, 'serve', ...args], {
      encoding: 'utf8',
      env: { ...process.env, ...env },
    })
    expect(result.stderr.trim()).toBe(line)
    expect(result.status).toBe(2)
  })
})
