/**
 * `import 'svc/testing'` loads neither viem nor x402 (issue 40): a test file that imports it starts its sandbox at
 * once, and the buyer's modules (the official x402 client on the user's viem) load while svc starts
 * (startSandbox(), sdk/testing.ts), connectSandbox()'s when it is called. Seen by a module hook in the user's process
 * that notes every viem and x402 module resolved.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, expect, test } from 'vitest'

const testing = new URL('../../dist/sdk/testing.js', import.meta.url).href
const dir = mkdtempSync(join(tmpdir(), 'svc-testing-import-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Node's module hooks: every resolved module of viem or @x402 is appended to the file LOG names. */
const hooks = `
import { appendFileSync } from 'node:fs'
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context)
  if (/[\\\\/]node_modules[\\\\/](viem|@x402)[\\\\/]/.test(resolved.url)) appendFileSync(process.env.LOG, resolved.url + '\\n')
  return resolved
}
`

/** Runs `script` as a module with the hooks registered; the viem and x402 modules it resolved. */
async function resolvedBy(script: string): Promise<string[]> {
  const hooksFile = join(dir, 'hooks.mjs')
  writeFileSync(hooksFile, hooks)
  const log = join(dir, `log-${Math.random().toString(36).slice(2)}`)
  writeFileSync(log, '')
  const register = `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(hooksFile).href)})`
  await new Promise<void>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--import', `data:text/javascript,${encodeURIComponent(register)}`, '--input-type=module', '-e', script],
      { cwd: fileURLToPath(new URL('../..', import.meta.url)), env: { ...process.env, LOG: log }, timeout: 60_000 },
      (error, _stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve()),
    ),
  )
  return readFileSync(log, 'utf8').split('\n').filter(Boolean)
}

test('importing svc/testing loads no viem and no x402; startSandbox() loads the buyer on them', async () => {
  expect(await resolvedBy(`await import(${JSON.stringify(testing)})`)).toEqual([])
  const started = await resolvedBy(`
    const { startSandbox } = await import(${JSON.stringify(testing)})
    const sandbox = await startSandbox()
    await sandbox.stop()
  `)
  expect(started.some((url) => url.includes('/@x402/evm/'))).toBe(true)
  expect(started.some((url) => url.includes('/viem/'))).toBe(true)
}, 90_000)
