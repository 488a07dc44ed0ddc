/**
 * Issue 20, item 7: the defaults lead away from the Sandbox. A login without `--sandbox` is production (the spec's
 * sandbox flag opts in); so the CLI says where it acts, an empty `svc apis list` says where the seller's APIs are, and
 * the gateway's 404 for a production host whose slug is a Sandbox API names the Sandbox URL (and the other way round).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { localFetch } from '../../sdk/local-fetch.js'
import { startTestServer, type TestServer } from '../helpers/control.js'
import { createCli } from './harness.js'

let t: TestServer
let seller: { jwt: string; email: string }
const slug = `weather-${process.pid}`
const payTo = '0x08210FdadC4fF91A92A3D49561109bD86BfDA6Ed'

beforeAll(async () => {
  t = await startTestServer()
  seller = await t.signup()
  const body = {
    name: 'Weather',
    slug,
    upstream_base_url: 'http://127.0.0.1:9',
    pay_to_mode: 'user_wallet',
    pay_to_address: payTo,
  }
  const created = await t.call('/apis', { jwt: seller.jwt, environment: 'development', body })
  expect(created.status).toBe(201)
})
afterAll(async () => {
  await t?.stop()
})

describe('the CLI names the environment and where the APIs are (the real binary)', () => {
  test('`svc login` without --sandbox says it is production and how to reach the Sandbox', async () => {
    const cli = createCli({ SVC_BASE_URL: t.server.controlUrl })
    const login = await cli.spawn(['login', '--email', seller.email, '--password', 'correct horse battery'])
    expect(login).toMatchObject({ code: 0, stderr: '' })
    const lines = login.stdout.trim().split('\n')
    expect(lines[0]).toMatch(new RegExp(`^logged in as ${seller.email} at ${t.server.controlUrl} \\(production\\);`))
    expect(lines[1]).toBe(
      'commands now act on production; for the Sandbox (test payments on the local chain): `svc login --sandbox` or --sandbox per command',
    )
    const sandbox = await cli.spawn([
      'login',
      '--sandbox',
      '--email',
      seller.email,
      '--password',
      'correct horse battery',
    ])
    expect(sandbox.stdout.trim().split('\n')).toHaveLength(1)
    expect(sandbox.stdout).toContain('(the Sandbox)')
  })

  test('an empty `svc apis list` in production says the Sandbox has the APIs; --sandbox lists them', async () => {
    const cli = createCli({ SVC_BASE_URL: t.server.controlUrl, SVC_JWT: seller.jwt })
    expect(await cli.spawn(['apis', 'list'])).toEqual({
      code: 0,
      stdout:
        'no APIs in production; the Sandbox has 1 API: `svc apis list --sandbox`, or `svc login --sandbox` to work there by default\n',
      stderr: '',
    })
    const listed = await cli.spawn(['apis', 'list', '--sandbox'])
    expect(listed.stdout).toContain(slug)
  })

  test('nothing in either environment: the hint says how to make a Sandbox API; a Sandbox list says so plainly', async () => {
    const other = await t.signup()
    const cli = createCli({ SVC_BASE_URL: t.server.controlUrl, SVC_JWT: other.jwt })
    expect((await cli.spawn(['apis', 'list'])).stdout).toBe(
      'no APIs in production nor in the Sandbox: `svc apis create --sandbox …` makes one\n',
    )
    expect((await cli.spawn(['apis', 'list', '--sandbox'])).stdout).toBe('no APIs in the Sandbox\n')
    expect((await cli.spawn(['settlements'])).stdout).toBe('no settlements in production nor in the Sandbox\n')
  })

  test('a live API key cannot see the Sandbox: the hint says what can', async () => {
    const key = await t.createKey(seller.jwt, 'production', ['apis:read'])
    const cli = createCli({ SVC_BASE_URL: t.server.controlUrl, SVC_API_KEY: key })
    expect((await cli.run(['apis', 'list'])).stdout).toBe(
      "no APIs in production; the Sandbox's need a svc_sandbox_ key or `svc login --sandbox`\n",
    )
  })
})

describe('the gateway’s 404 names where the API is', () => {
  const errorAt = async (url: string) => {
    const response = await localFetch(`${url}/forecast`)
    expect(response.status).toBe(404)
    return ((await response.json()) as { error: string }).error
  }

  test('a production host whose slug is a Sandbox API: "did you mean http://{slug}.dev.localhost:PORT/?"', async () => {
    expect(await errorAt(t.gatewayUrl(slug, 'production'))).toBe(
      `no API is served at ${slug}.localhost; did you mean ${t.gatewayUrl(slug, 'development')}/? (${slug} is a Sandbox API)`,
    )
  })

  test('a slug that exists nowhere: the host, no suggestion', async () => {
    expect(await errorAt(t.gatewayUrl('nowhere', 'production'))).toBe('no API is served at nowhere.localhost')
    expect(await errorAt(t.gatewayUrl('nowhere', 'development'))).toBe('no API is served at nowhere.dev.localhost')
  })

  test('a Sandbox host whose slug is a production API: the production URL', async () => {
    const prod = `shop-${process.pid}`
    const body = {
      name: 'Shop',
      slug: prod,
      upstream_base_url: 'http://127.0.0.1:9',
      pay_to_mode: 'user_wallet',
      pay_to_address: payTo,
    }
    expect((await t.call('/apis', { jwt: seller.jwt, environment: 'production', body })).status).toBe(201)
    expect(await errorAt(t.gatewayUrl(prod, 'development'))).toBe(
      `no API is served at ${prod}.dev.localhost; did you mean ${t.gatewayUrl(prod, 'production')}/? (${prod} is a production API)`,
    )
  })
})
