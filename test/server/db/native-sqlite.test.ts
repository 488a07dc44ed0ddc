/**
 * better-sqlite3's native addon survives the garbage collection of its statements under the Node running the tests.
 * better-sqlite3 12 built against the headers of Node 24.19 or later aborts the process there ("Assertion failed:
 * (env) != nullptr", nodejs/node#65446), which svc hit at its first start on Node 24; `.ci/node24` builds it against
 * 24.18.1's headers. A child process, so an abort fails this test instead of the run.
 */
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { expect, test } from 'vitest'

const addon = createRequire(import.meta.url).resolve('better-sqlite3')

test(`better-sqlite3 survives the collection of 50,000 statements on Node ${process.version}`, () => {
  const script = `
    const SQLite = require(${JSON.stringify(addon)})
    const db = new SQLite(':memory:')
    db.exec('create table t (a integer primary key, b text)')
    for (let i = 0; i < 50000; i++) db.prepare('insert into t (b) values (?)').run('x' + i)
    setTimeout(() => {
      gc()
      setTimeout(() => process.stdout.write(String(db.prepare('select count(*) as n from t').get().n)), 50)
    }, 50)`
  const child = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8' })
  expect({ status: child.status, signal: child.signal, stdout: child.stdout }).toEqual({
    status: 0,
    signal: null,
    stdout: '50000',
  })
})
