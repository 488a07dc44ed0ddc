import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { localFetch } from '../../sdk/local-fetch.js'
import { startSandbox, type TestSandbox } from '../../sdk/testing.js'
import { createCli } from './harness.js'

// Issue 20, "Also": what a newcomer tries first.
let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startSandbox()
})
afterAll(() => sandbox?.stop())

test('svc --version prints the version (the real binary)', async () => {
  const result = await createCli().spawn(['--version'])
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
  expect(result).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' })
})

test("the control plane's root answers a person with links, not a 404", async () => {
  const json = await localFetch(`${sandbox.sandboxControlUrl}/`)
  expect(json.status).toBe(200)
  expect(await json.json()).toMatchObject({
    name: 'svc',
    links: { openapi_yaml: `${sandbox.sandboxControlUrl}/openapi.yaml`, local_dev: expect.any(String) },
  })
  const page = await localFetch(`${sandbox.controlUrl}/`, { headers: { accept: 'text/html' } })
  expect(page.headers.get('content-type')).toMatch(/^text\/html/)
  expect(await page.text()).toContain(`<a href="${sandbox.controlUrl}/openapi.json">`)
})

test('an API slug works wherever an id does; "api not found" names what was looked up', async () => {
  const cli = createCli({ SVC_BASE_URL: sandbox.sandboxControlUrl, SVC_API_KEY: sandbox.seller.apiKey })
  const api = await cli.json([
    'apis',
    'create',
    '--name',
    'Slugged',
    '--slug',
    'slugged',
    '--upstream',
    'http://127.0.0.1:9',
    '--pay-to',
    '0x000000000000000000000000000000000000bEEF',
  ])
  expect((await cli.json(['apis', 'get', 'slugged'])).id).toBe(api.id)
  await cli.json(['endpoints', 'add', 'slugged', '--path', '/a', '--price', '0.01'])
  expect((await cli.json(['endpoints', 'list', api.id])).endpoints ?? []).toBeDefined()
  const missing = await cli.run(['apis', 'get', 'no-such-api'])
  expect(missing).toEqual({
    code: 1,
    stdout: '',
    stderr: 'svc: api not found: no API of this account in the Sandbox has the id or slug "no-such-api"\n',
  })
})

test('an expired session says how to log in again', async () => {
  const cli = createCli({ SVC_BASE_URL: sandbox.sandboxControlUrl, SVC_JWT: sandbox.seller.jwt })
  expect((await cli.run(['whoami'])).code).toBe(0)
  await sandbox.advanceTime(8 * 24 * 3600)
  expect(await cli.run(['whoami'])).toEqual({
    code: 1,
    stdout: '',
    stderr: `svc: ${sandbox.sandboxControlUrl} refused SVC_JWT: session expired: log in again (\`svc login\`, with --sandbox for the Sandbox; or POST /auth/login)\n`,
  })
})
