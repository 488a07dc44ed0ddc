import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'

const testing = new URL('../../dist/sdk/testing.js', import.meta.url).href

// A user's script: start a sandbox, stop it, and nothing else. Issue 20: viem's WebSocket reconnect and execa's
// force-kill timer kept such a process alive 5 s after stop() and printed a 40-line ECONNREFUSED.
const script = `
const { startSandbox } = await import(${JSON.stringify(testing)})
const sandbox = await startSandbox()
await sandbox.stop()
process.stdout.write('stopped\\n')
`

test('a script that starts and stops a sandbox exits by itself, printing nothing of svc', async () => {
  const result = await new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>(
    (resolve) => {
      const child = execFile(
        process.execPath,
        ['--input-type=module', '-e', script],
        { cwd: fileURLToPath(new URL('../..', import.meta.url)), encoding: 'utf8', timeout: 30_000 },
        (_error, stdout, stderr) => resolve({ code: child.exitCode, signal: child.signalCode, stdout, stderr }),
      )
    },
  )
  // `timeout` kills with SIGTERM: a process still alive 30 s in has a signal and no code.
  expect(result).toEqual({ code: 0, signal: null, stdout: 'stopped\n', stderr: '' })
}, 40_000)
