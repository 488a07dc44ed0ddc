/**
 * Three `svc serve` processes started at once on a fresh PostgreSQL database (as a service manager or a deploy starts
 * a cluster): each process gave the database's text columns their byte order (server/db/postgres/database.ts), one
 * rewriting the tables while another, already started, read them, and PostgreSQL ended one of them with "deadlock
 * detected": `gateway: the channel managers did not start: deadlock detected` (the process served on, its channel
 * managers never started), or a start that failed. Several rounds, each on a fresh database: no process logs a
 * deadlock or a start that failed, and every one starts.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { postgresAvailable, startPostgres, type TestPostgres } from '../helpers/postgres.js'
import { startServeProcess, type ServeProcess } from '../helpers/serve-process.js'

const dir = mkdtempSync(join(tmpdir(), 'svc-start-together-'))
const jwtFile = join(dir, 'jwt.key')
const walletFile = join(dir, 'wallet.key')
writeFileSync(jwtFile, `${randomBytes(32).toString('hex')}\n`)
writeFileSync(walletFile, `${randomBytes(32).toString('hex')}\n`)
const runs = postgresAvailable() || Boolean(process.env.CI)
const running: ServeProcess[] = []
let postgres: TestPostgres

beforeAll(async () => {
  if (runs) postgres = await startPostgres()
}, 60_000)
afterAll(async () => {
  for (const svc of running) await svc.stop()
  await postgres?.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** `svc serve`, production only, on `databaseUrl`; a start that failed answers its error. */
const serve = (databaseUrl: string, name: string) => {
  const started = startServeProcess([
    ...['--sandbox-chain', 'none', '--data-dir', join(dir, name), '--platform-domain', 'pay.test'],
    ...['--jwt-secret-file', jwtFile, '--wallet-key-file', walletFile, '--database-url', databaseUrl],
  ])
  return started.then(
    (svc) => {
      running.push(svc)
      return svc
    },
    (error: Error) => error,
  )
}

describe.skipIf(!runs)('svc serve ×3 started at once on a fresh PostgreSQL database', () => {
  test('no process meets a deadlock: each starts, its channel managers with it', async () => {
    const rounds = 8
    const seen: string[] = []
    for (let round = 0; round < rounds; round++) {
      const databaseUrl = await postgres.createDatabase()
      const started = await Promise.all(['a', 'b', 'c'].map((name) => serve(databaseUrl, `${round}-${name}`)))
      // The channel managers start once the process is ready (a few queries): their failure is logged by then.
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      for (const svc of started) {
        if (svc instanceof Error) seen.push(`round ${round}: ${svc.message.split('\n')[0]}`)
        else
          for (const line of svc.stderr().split('\n'))
            if (/deadlock|did not start/.test(line)) seen.push(`round ${round}: ${line}`)
      }
      for (const svc of started) if (!(svc instanceof Error)) expect(await svc.stop()).toBe(0)
      running.length = 0
    }
    expect(seen).toEqual([])
  }, 240_000)
})
