/**
 * `svc … | head -1`: a reader that closes stdout early. svc exits quietly (no EPIPE stack trace), over a real pipe:
 * the output is larger than a pipe's buffer, so svc is still writing when the reader goes away.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTestServer, type TestServer } from '../helpers/control.js'
import { createCli, svcBin } from './harness.js'

let t: TestServer
let jwt: string

/** Rows enough for ~600 kB of output: far more than a pipe holds (64 kB on Linux). */
const rows = 400
const longPath = `/${'p'.repeat(1500)}`

beforeAll(async () => {
  t = await startTestServer()
  const seller = await t.signup()
  jwt = seller.jwt
  const api = await t.call('/apis', {
    jwt,
    body: {
      name: 'Piped',
      slug: `piped-${Date.now()}`,
      upstream_base_url: 'http://127.0.0.1:9',
      pay_to_mode: 'user_wallet',
      pay_to_address: '0x000000000000000000000000000000000000bEEF',
    },
  })
  const values = Array.from({ length: rows }, (_, i) => ({
    id: `stl_pipe_${String(i).padStart(6, '0')}`,
    api_id: api.body.id,
    endpoint_id: 'ep_1',
    user_id: seller.userId,
    environment: 'production',
    network: 'eip155:8453',
    asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    amount: '1000',
    payer: '0x1111111111111111111111111111111111111111',
    pay_to: '0x000000000000000000000000000000000000bEEF',
    transaction: `0x${i.toString(16).padStart(64, '0')}`,
    method: 'GET',
    path: longPath,
    created_at: new Date(Date.now() - i * 1000).toISOString(),
  }))
  for (let i = 0; i < values.length; i += 100)
    await t.server.database.db
      .insertInto('settlements')
      .values(values.slice(i, i + 100) as any)
      .execute()
})
afterAll(() => t?.stop())

/** Runs the real binary with its stdout on a pipe, reads the first line, closes the pipe, and waits for the exit. */
async function readFirstLineAndClose(
  args: string[],
): Promise<{ first: string; code: number | null; signal: string | null; stderr: string }> {
  const cli = createCli({ SVC_BASE_URL: t.server.controlUrl, SVC_JWT: jwt })
  const child = spawn(process.execPath, [svcBin, ...args], { env: cli.env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = once(child, 'exit') as Promise<[number | null, string | null]>
  let buffered = ''
  const first = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk
      const end = buffered.indexOf('\n')
      if (end < 0) return
      // As `head -1` does: one line, then the read end of the pipe is closed.
      child.stdout.destroy()
      resolve(buffered.slice(0, end))
    })
    child.stdout.on('end', () => reject(new Error(`stdout ended before a line: ${stderr}`)))
  })
  const [code, signal] = await exited
  return { first, code, signal, stderr }
}

describe('a reader that closes stdout early (`svc settlements | head -1`)', () => {
  test.each([
    ['the table', ['settlements', '--limit', '200'], /^CREATED\s+API\s+REQUEST/],
    ['--csv', ['settlements', '--csv'], /^id,/],
  ])('%s: svc exits quietly with code 0, no EPIPE stack trace', async (_name, args, firstLine) => {
    const result = await readFirstLineAndClose(args)
    expect(result.first).toMatch(firstLine)
    expect(result.stderr).toBe('')
    expect(result).toMatchObject({ code: 0, signal: null })
  })
})
