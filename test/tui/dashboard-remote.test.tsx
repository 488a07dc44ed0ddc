/**
 * `svc dashboard --url` (issue 27, item 4): the dashboard watching a remote svc (a `svc serve` child process, a
 * shared Sandbox) as one logged-in seller: its own APIs, settlements and faults, never another seller's; the block
 * and svc's clock through the control plane. And the command's refusals: no session, no terminal.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cleanup, render } from 'ink-testing-library'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { checkDashboardLogin } from '../../cli/commands/dashboard.js'
import { createSvcClient } from '../../sdk/client.js'
import { connectSandbox, type SharedSandbox } from '../../sdk/connect-sandbox.js'
import { App } from '../../tui/App.js'
import { remoteDashboardUrls } from '../../tui/remote-urls.js'
import { createCli } from '../cli/harness.js'
import { startServeProcess, type ServeProcess } from '../helpers/serve-process.js'

const dir = mkdtempSync(join(tmpdir(), 'svc-dashboard-remote-'))
writeFileSync(join(dir, 'admin.token'), randomBytes(32).toString('hex'))
const upstream: Server = createServer((_req, res) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
)
let svc: ServeProcess
let upstreamUrl: string

beforeAll(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.3', resolve))
  upstreamUrl = `http://127.0.0.3:${(upstream.address() as { port: number }).port}`
  svc = await startServeProcess([
    ...['--data-dir', join(dir, 'data'), '--allow-upstream', '127.0.0.3/32'],
    ...['--admin-token-file', join(dir, 'admin.token'), '--auto-verify'],
  ])
}, 60_000)
afterAll(async () => {
  cleanup()
  await svc?.stop()
  upstream.close()
  rmSync(dir, { recursive: true, force: true })
})

/** A tenant with one paid API (GET /quote, 0.01 USDC); answers its slug. */
async function tenantWithApi(sandbox: SharedSandbox, name: string) {
  const slug = `${name}-${randomBytes(3).toString('hex')}`
  const { client } = sandbox.seller
  const api = await client.apis.create({
    name,
    slug,
    upstream_base_url: upstreamUrl,
    pay_to_mode: 'user_wallet',
    pay_to_address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  })
  await client.endpoints.create(api.id, {
    method: 'GET',
    path_pattern: '/quote',
    accepts: [{ scheme: 'exact', network: sandbox.network, asset: sandbox.usdc.address, amount: '10000' }],
  })
  return slug
}

test("the dashboard of a remote svc shows the logged-in seller's APIs, settlements and faults, not another's", async () => {
  const email = `remote-${randomBytes(4).toString('hex')}@svc.test`
  const password = randomBytes(12).toString('base64url')
  const { token: jwt } = await createSvcClient({ baseUrl: svc.ready.sandbox_control_url }).auth.signup(email, password)
  const [mine, other] = await Promise.all([
    connectSandbox(svc.ready.control_url, { email, password }),
    connectSandbox(svc.ready.control_url),
  ])
  try {
    const [mySlug, otherSlug] = await Promise.all([tenantWithApi(mine, 'mine'), tenantWithApi(other, 'theirs')])
    await mine.faults.add({ kind: 'upstream', status: 418, api: mySlug, times: 5 })
    await other.faults.add({ kind: 'upstream', status: 451, api: otherSlug, times: 5 })

    const urls = await remoteDashboardUrls(svc.ready.control_url)
    expect(urls.sandbox_control_url).toBe(svc.ready.sandbox_control_url)
    const { lastFrame } = render(<App urls={urls} session={{ jwt }} refreshMs={200} remote />)
    const frame = () => lastFrame() ?? ''
    await expect
      .poll(frame, { timeout: 15_000 })
      .toSatisfy((text: string) => /block #\d/.test(text) && text.includes(mySlug) && text.includes('upstream 418'))
    expect(frame()).not.toContain(otherSlug)
    expect(frame()).not.toContain('upstream 451')

    // A payment to my API shows among my settlements; the other seller's does not.
    await mine.faults.clear()
    expect((await mine.buyer.fetch(`${mine.gatewayUrl(mySlug)}/quote`)).status).toBe(200)
    await other.faults.clear()
    expect((await other.buyer.fetch(`${other.gatewayUrl(otherSlug)}/quote`)).status).toBe(200)
    await expect.poll(frame, { timeout: 15_000 }).toContain('GET /quote')
    expect(frame().match(/GET \/quote +0\.01 USDC/g)).toHaveLength(1)
    // The facilitator's bazaar catalog is public discovery (any buyer lists it), so it may name the other's endpoint
    // once that was paid; nothing else of the other seller shows.
    const ownPanels = frame()
      .split('\n')
      .filter((line) => !line.trim().startsWith('bazaar catalog'))
      .join('\n')
    expect(ownPanels).not.toContain(otherSlug)
  } finally {
    await Promise.all([mine.stop(), other.stop()])
  }
})

test('svc dashboard --url refuses without a session, and without a terminal', async () => {
  const cli = createCli()
  const url = svc.ready.control_url
  const anonymous = await cli.run(['dashboard', '--url', url], {}, { tty: true })
  expect(anonymous.code).toBe(2)
  expect(anonymous.stderr).toContain('log in first (`svc login --sandbox`)')
  const piped = await cli.run(['dashboard', '--url', url], { SVC_JWT: 'a.b.c' })
  expect(piped.code).toBe(2)
  expect(piped.stderr).toContain('needs a terminal')
  const bad = await cli.run(['dashboard', '--url', 'not a url'], { SVC_JWT: 'a.b.c' }, { tty: true })
  expect(bad.code).toBe(2)
})

test("svc dashboard --url refuses a saved login of another svc (exit 2) and a session the svc does not accept (exit 1); takes this svc's", async () => {
  const cli = createCli()
  const url = svc.ready.control_url
  const elsewhere = 'http://sandbox.localhost:1'
  writeFileSync(
    join(cli.configDir, 'config.json'),
    JSON.stringify({ jwt: 'a.b.c', email: 'me@svc.test', base_url: elsewhere, environment: 'development' }),
  )
  const saved = await cli.run(['dashboard', '--url', url], {}, { tty: true })
  expect(saved).toMatchObject({ code: 2, stdout: '' })
  expect(saved.stderr).toBe(
    `svc: the saved login is for ${elsewhere}, not ${url}: log in to it (\`svc login --sandbox --base-url ${url}\`), or set SVC_JWT\n`,
  )
  // A session given explicitly is the svc's to judge.
  const foreign = await cli.run(['dashboard', '--url', url], { SVC_JWT: 'x.y.z' }, { tty: true })
  expect(foreign).toMatchObject({ code: 1, stdout: '' })
  expect(foreign.stderr).toMatch(/^svc: \S+ does not accept this login \(expired, or another svc's\): log in to it/)
  expect(foreign.stderr.split('\n')).toHaveLength(2)

  // A login made on this svc (on either control plane) passes.
  const email = `login-${randomBytes(4).toString('hex')}@svc.test`
  const { token } = await createSvcClient({ baseUrl: svc.ready.sandbox_control_url }).auth.signup(
    email,
    'a long password!',
  )
  const urls = await remoteDashboardUrls(url)
  for (const base_url of [svc.ready.sandbox_control_url, svc.ready.control_url])
    await expect(checkDashboardLogin(token, { jwt: token, email, base_url }, url, urls)).resolves.toBeUndefined()
})
