import { existsSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { resolveSettings } from '../../cli/settings.js'
import { runningPath } from '../../cli/running-svc.js'
import { localFetch } from '../../sdk/local-fetch.js'
import { startSvcProcess, type SvcProcess } from '../helpers/svc-process.js'
import { createCli, type Cli } from './harness.js'

// Issue 20, item 4: a CI script runs `svc up --json --port 0`, then `svc time` / `svc snapshot` with no target. They
// must act on that svc (not whatever listens on 4020), and say which sandbox they acted on.
let cli: Cli
let svc: SvcProcess

beforeAll(async () => {
  cli = createCli()
  svc = await startSvcProcess([], cli.env)
})
afterAll(() => svc?.stop())

test('commands given no target act on the svc `svc up` started, and name it', async () => {
  const url = svc.ready.sandbox_control_url as string
  expect(url).not.toMatch(/:4020$/)
  expect(existsSync(runningPath(cli.env))).toBe(true)

  const advanced = await cli.spawn(['time', 'advance', '1h', '--json'])
  expect(advanced.stderr).toBe('')
  expect(JSON.parse(advanced.stdout)).toMatchObject({ offset_seconds: 3600, sandbox_url: url })
  expect(await (await localFetch(`${url}/dev/time`)).json()).toMatchObject({ offset_seconds: 3600 })

  const shown = await cli.spawn(['time'])
  expect(shown.stdout).toMatch(new RegExp(`^sandbox +${url}\\n`))
  const id = (await cli.spawn(['snapshot'])).stdout.trim()
  expect(id).toMatch(/^snap_/)
  expect((await cli.spawn(['revert', id])).stdout).toMatch(new RegExp(`^reverted ${url} to ${id} `))

  // SVC_BASE_URL still wins over the record.
  expect(resolveSettings({}, { ...cli.env, SVC_BASE_URL: 'http://api.localhost:9' }).baseUrl).toBe(
    'http://api.localhost:9',
  )
})

test('the record goes with the svc; one left by a process that died is ignored', async () => {
  await svc.stop()
  expect(existsSync(runningPath(cli.env))).toBe(false)
  // A record whose process is gone (svc killed with -9): the CLI falls back to its default.
  writeFileSync(
    runningPath(cli.env),
    JSON.stringify({
      pid: 2 ** 22 + 1,
      port: 1234,
      control_url: 'http://api.localhost:1234',
      sandbox_control_url: 'x',
    }),
  )
  expect(resolveSettings({}, cli.env).baseUrl).toBe('http://api.localhost:4020')
})
