import { copyFileSync, existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startChainServices, type ChainServices } from '../../chain/services.js'
import { startTestServer, type TestServer } from '../helpers/control.js'
import { startTestDns, type TestDns } from '../helpers/discovery-domains.js'
import { localFetch } from '../../sdk/local-fetch.js'
import { docBlock } from '../docs/blocks.js'
import { createCli, docsShell, fixture, type Cli } from './harness.js'

let chain: ChainServices
let t: TestServer
let dns: TestDns
let cli: Cli
const email = `cli-${Date.now()}@example.test`
const payTo = '0x000000000000000000000000000000000000bEEF'

beforeAll(async () => {
  chain = await startChainServices()
  dns = await startTestDns()
  t = await startTestServer({ chain, dnsServers: [dns.server] })
  cli = createCli({ SVC_BASE_URL: t.server.sandboxControlUrl })
})
afterAll(async () => {
  await t?.stop()
  await chain?.stop()
  await dns?.close()
})

// One seller's way through the CLI, in order: each test builds on the previous ones.
describe('a seller in the Sandbox, through the CLI', () => {
  const state: { key?: string; apiId?: string; slug?: string; walletKey?: string; walletAddress?: string } = {}

  test('signup (the real binary) saves the session in a 0600 config file', async () => {
    const result = await cli.spawn(['signup', '--email', email, '--password', 'correct horse battery'])
    expect(result).toMatchObject({ code: 0, stderr: '' })
    expect(result.stdout).toContain(`signed up as ${email} at ${t.server.sandboxControlUrl}`)
    expect(result.stdout).toContain('svc verify-email TOKEN')

    const path = join(cli.configDir, 'config.json')
    expect(statSync(path).mode & 0o777).toBe(0o600)
    const saved = JSON.parse(readFileSync(path, 'utf8'))
    expect(saved).toMatchObject({ email, base_url: t.server.sandboxControlUrl, environment: 'development' })
    expect(saved.jwt).toMatch(/^ey/)
  })

  test('outbox shows the verification mail; verify-email verifies it', async () => {
    const human = await cli.ok(['outbox'])
    expect(human).toMatch(/^ID\s+TO\s+SUBJECT\s+TOKEN\s+CREATED$/m)
    expect(human).toContain(email)
    const { messages } = await cli.json(['outbox'])
    expect(messages).toHaveLength(1)
    expect(await cli.ok(['verify-email', messages[0].token])).toBe(`verified ${email}\n`)
    expect((await cli.json(['whoami'])).user).toMatchObject({ email, email_verified: true })
  })

  test('keys create --preset gives a Sandbox key whose secret is shown once; keys list lists it', async () => {
    const human = await cli.ok(['keys', 'create', '--name', 'ci', '--preset', 'apiManager'])
    expect(human).toMatch(/^created development key ci \(\S+\) with apis:read, apis:write/m)
    const key = await cli.json([
      'keys',
      'create',
      '--name',
      'automation',
      '--scopes',
      'apis:read,apis:write,endpoints:read,endpoints:write,domains:read,domains:write,openapi:read',
    ])
    expect(key.key).toMatch(/^svc_sandbox_/)
    state.key = key.key
    const { api_keys } = await cli.json(['keys', 'list'])
    expect(api_keys.map((k: any) => k.name).sort()).toEqual(['automation', 'ci'])
    expect(JSON.stringify(api_keys)).not.toContain(key.key)
  })

  test('apis create and get, with the API key', async () => {
    state.slug = `weather-${Date.now()}`
    const env = { SVC_API_KEY: state.key }
    const api = await cli.json(
      [
        'apis',
        'create',
        '--name',
        'Weather',
        '--slug',
        state.slug,
        '--upstream',
        'http://127.0.0.1:9',
        '--pay-to',
        payTo,
        '--guidance',
        'Use it for forecasts.',
      ],
      env,
    )
    expect(api).toMatchObject({
      slug: state.slug,
      environment: 'development',
      pay_to_mode: 'user_wallet',
      discovery_guidance: 'Use it for forecasts.',
    })
    state.apiId = api.id
    const human = await cli.ok(['apis', 'get', api.id], env)
    expect(human).toMatch(new RegExp(`^gateway\\s+http://${state.slug}\\.dev\\.localhost:${t.server.port}$`, 'm'))
    expect(await cli.ok(['apis', 'list'], env)).toContain(state.slug)
  })

  test('endpoints add --price 0.01 is 10000 atomic units of the Sandbox USDC; list shows it', async () => {
    const env = { SVC_API_KEY: state.key }
    const endpoint = await cli.json(
      ['endpoints', 'add', state.apiId!, '--path', '/forecast/{city}', '--price', '0.01'],
      env,
    )
    expect(endpoint).toMatchObject({ method: 'GET', path_pattern: '/forecast/{city}', schema_source: 'inferred' })
    expect(endpoint.accepts).toEqual([
      expect.objectContaining({
        scheme: 'exact',
        amount: '10000',
        network: 'eip155:845320402',
        asset: chain.sandboxChain.usdc.address,
      }),
    ])
    const list = await cli.ok(['endpoints', 'list', state.apiId!], env)
    expect(list).toMatch(/^ID\s+METHOD\s+PATH\s+PRICE\s+STATUS\s+SCHEMA\s+EXPIRES$/m)
    expect(list).toMatch(/GET\s+\/forecast\/\{city\}\s+0\.01 USDC\s+enabled\s+inferred/)

    const updated = await cli.json(
      ['endpoints', 'update', state.apiId!, endpoint.id, '--disable', '--amount', '25000'],
      env,
    )
    expect(updated).toMatchObject({ enabled: false, accepts: [expect.objectContaining({ amount: '25000' })] })
  })

  test('endpoints add/update set the payment flow, gas sponsoring, sign-in-with-x and a required payment id', async () => {
    const env = { SVC_API_KEY: state.key }
    const endpoint = await cli.json(
      [
        'endpoints',
        'add',
        state.apiId!,
        '--path',
        '/reports/{id}',
        '--price',
        '0.01',
        '--payment-flow',
        'upfront',
        '--siwx',
        '3600',
        '--require-payment-id',
      ],
      env,
    )
    expect(endpoint).toMatchObject({
      accepts: [expect.objectContaining({ extra: expect.objectContaining({ paymentFlow: 'upfront' }) })],
      siwx: { access_seconds: 3600 },
      payment_identifier_required: true,
    })
    const shown = await cli.ok(
      [
        'endpoints',
        'update',
        state.apiId!,
        endpoint.id,
        '--payment-flow',
        'authorization',
        '--no-siwx',
        '--no-require-payment-id',
      ],
      env,
    )
    expect(shown).toMatch(/^flow\s+authorization$/m)
    expect(shown).toMatch(/^sign-in\s+off$/m)
    expect(shown).toMatch(/^payment id\s+optional$/m)

    const permit2 = await cli.json(
      ['endpoints', 'add', state.apiId!, '--path', '/sponsored', '--price', '0.01', '--transfer-method', 'permit2'],
      env,
    )
    const sponsored = await cli.json(
      [
        'endpoints',
        'update',
        state.apiId!,
        permit2.id,
        '--gas-sponsoring',
        'erc20ApprovalGasSponsoring',
        '--siwx',
        '60',
      ],
      env,
    )
    expect(sponsored).toMatchObject({
      accepts: [
        expect.objectContaining({
          extra: expect.objectContaining({
            assetTransferMethod: 'permit2',
            gasSponsoring: 'erc20ApprovalGasSponsoring',
          }),
        }),
      ],
      siwx: { access_seconds: 60 },
    })

    // A name the control plane does not know is a usage error before any request; a combination it refuses is its 400.
    const unknown = await cli.spawn(['endpoints', 'update', state.apiId!, permit2.id, '--payment-flow', 'later'], env)
    expect(unknown).toMatchObject({ code: 2, stdout: '' })
    expect(unknown.stderr).toBe('svc: --payment-flow must be one of authorization, upfront, escrow, got "later"\n')
    // `escrow` is auth-capture's flow: on an exact accept the control plane refuses it (its 400: exit 1).
    const escrow = await cli.spawn(['endpoints', 'update', state.apiId!, permit2.id, '--payment-flow', 'escrow'], env)
    expect(escrow).toMatchObject({ code: 1, stdout: '' })
    expect(escrow.stderr).toMatch(/^svc: .*auth-capture/)
    const upto = await cli.spawn(
      [
        'endpoints',
        'add',
        state.apiId!,
        '--path',
        '/upto',
        '--price',
        '0.01',
        '--scheme',
        'upto',
        '--payment-flow',
        'upfront',
      ],
      env,
    )
    expect(upto.code).toBe(1)
    expect(upto.stderr).toMatch(/^svc: .*upfront/)
    expect(
      (await cli.spawn(['endpoints', 'add', state.apiId!, '--path', '/x', '--price', '1', '--siwx', '0'], env)).code,
    ).toBe(2)
    // The API's endpoint counts below are of the other tests.
    for (const id of [endpoint.id, permit2.id]) await cli.ok(['endpoints', 'remove', state.apiId!, id], env)
  })

  test('import creates the operations of an OpenAPI file; importing again skips them all', async () => {
    const env = { SVC_API_KEY: state.key }
    const first = await cli.ok(['import', state.apiId!, fixture('petstore-3.0.yaml'), '--price', '0.02'], env)
    expect(first).toMatch(/^created 5, skipped 0 \(of 5 operations\)$/m)
    expect(first).toMatch(/GET\s+\/pets\s+0\.02 USDC\s+enabled\s+openapi/)
    const again = await cli.json(['import', state.apiId!, fixture('petstore-3.0.yaml'), '--amount', '20000'], env)
    expect(again.created).toEqual([])
    expect(again.skipped).toHaveLength(5)
    expect(again.skipped[0]).toEqual({ method: 'GET', path_pattern: '/pets', reason: 'exists' })
  })

  test('domains add prints the TXT record to create; domains list lists it pending', async () => {
    const env = { SVC_API_KEY: state.key }
    const hostname = `${state.slug}.example.test`
    const added = await cli.ok(['domains', 'add', state.apiId!, hostname], env)
    expect(added).toMatch(
      new RegExp(`^TXT\\s+_svc-challenge\\.${hostname.replaceAll('.', '\\.')}\\s+svc-verification=[0-9a-f]{32}$`, 'm'),
    )
    expect(added).toMatch(
      new RegExp(`^CNAME\\s+${hostname.replaceAll('.', '\\.')}\\s+${state.slug}\\.dev\\.localhost$`, 'm'),
    )
    const { domains } = await cli.json(['domains', 'list', state.apiId!], env)
    expect(domains).toEqual([expect.objectContaining({ hostname, status: 'pending' })])
    expect(await cli.ok(['domains', 'list', state.apiId!], env)).toMatch(new RegExp(`${hostname}\\s+pending`))

    const [domain] = domains
    expect(await cli.ok(['domains', 'verify', state.apiId!, domain.id], env)).toMatch(
      new RegExp(`^${hostname}: still pending: `),
    )
    dns.txt.set(domain.verification_record.name, [domain.verification_record.value])
    expect(await cli.ok(['domains', 'verify', state.apiId!, domain.id], env)).toBe(`${hostname}: verified\n`)
    expect((await cli.json(['domains', 'verify', state.apiId!, domain.id], env)).status).toBe('already verified')
  })

  test('discovery prints where the documents are', async () => {
    const summary = await cli.json(['discovery', state.apiId!], { SVC_API_KEY: state.key })
    const hostname = `${state.slug}.example.test`
    expect(summary).toMatchObject({
      primary_host: hostname,
      hosts: [`${state.slug}.dev.localhost`, hostname],
      endpoint_count: 6,
      discoverable_endpoint_count: 5,
    })
    const human = await cli.ok(['discovery', state.apiId!], { SVC_API_KEY: state.key })
    expect(human).toMatch(new RegExp(`^openapi\\s+http://${hostname}:${t.server.port}/openapi.json$`, 'm'))
    expect(human).toContain(`${state.slug}.dev.localhost`)
  })

  test('stats --days 7 and settlements --csv (with the JWT: the key has no analytics scopes)', async () => {
    const stats = await cli.json(['stats', '--days', '7', '--api', state.apiId!])
    expect(stats).toMatchObject({ days: 7, api_id: state.apiId, totals: { settlements: 0 } })
    expect(stats.daily).toHaveLength(7)
    expect(await cli.ok(['stats', '--days', '7'])).toMatch(/^DAY\s+REQUESTS\s+402\s+PAID\s+SETTLED\s+REVENUE$/m)

    const csv = await cli.ok(['settlements', '--csv'])
    expect(csv.split('\r\n')[0]).toBe(
      'id,api_id,endpoint_id,environment,network,asset,amount,payer,pay_to,transaction,method,path,created_at,chain_epoch,old_chain,delivered,escrow_state,authorized,captured,refunded',
    )
    expect(await cli.ok(['settlements'])).toBe('no settlements in the Sandbox\n')
    expect(await cli.json(['settlements', '--limit', '10'])).toEqual({ settlements: [], next_cursor: null })
  })

  test('sandbox-wallet get: human output hides the private key, --json shows it; --wait waits for the USDC', async () => {
    const wallet = await cli.json(['sandbox-wallet', 'get'])
    expect(wallet.private_key).toMatch(/^0x[0-9a-f]{64}$/)
    state.walletKey = wallet.private_key
    state.walletAddress = wallet.address
    const human = await cli.ok(['sandbox-wallet', 'get', '--wait'])
    expect(human).not.toContain(wallet.private_key)
    expect(human).not.toContain(wallet.private_key.slice(2))
    expect(human).toMatch(new RegExp(`^address\\s+${wallet.address}$`, 'm'))
    expect(human).toContain(wallet.private_key_redacted)
    expect(human).toMatch(/^USDC\s+[1-9]/m)
    // `sandbox-wallet` alone is `get`.
    expect(await cli.ok(['sandbox-wallet'])).not.toContain(wallet.private_key)
  })

  test("balances and faucet default to the Sandbox wallet's address", async () => {
    const before = await cli.json(['balances'])
    expect(before.address).toBe(state.walletAddress)
    const human = await cli.ok(['faucet', '--asset', 'usdc', '--amount', '2.5'])
    // Issue 35, item 5: a command that changes the sandbox names it.
    expect(human).toMatch(
      new RegExp(
        `^sent 2\\.5 USDC to ${state.walletAddress} on http://sandbox\\.localhost:\\d+ \\(USDC tx 0x[0-9a-f]{64}\\)$`,
        'm',
      ),
    )
    const after = await cli.json(['balances', state.walletAddress!])
    expect(BigInt(after.usdc_base) - BigInt(before.usdc_base)).toBe(2_500_000n)
    expect(await cli.ok(['balances'])).toMatch(/^ETH\s+\d/m)
  })

  test('logout removes the session; key commands then need a JWT (exit code 2)', async () => {
    expect(await cli.ok(['logout'])).toContain('logged out')
    const result = await cli.run(['keys', 'list'], { SVC_API_KEY: state.key })
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(
      'svc: `svc keys list` needs a JWT: run `svc login` or set SVC_JWT (API keys are not accepted here)\n',
    )
    const login = await cli.run(['login', '--email', email, '--password', 'correct horse battery'])
    expect(login.code).toBe(0)
    expect((await cli.json(['keys', 'list'])).api_keys).toHaveLength(2)
  })
})

/**
 * docs/sell.md's CLI blocks, as a seller types them: bash, with `svc` on the PATH, in a directory of their own, against
 * this file's svc (SVC_BASE_URL) and a fresh config dir. Each names the same endpoint the page's other forms make.
 */
describe("docs: sell.md's CLI blocks (a new seller, bash with svc on the PATH)", () => {
  let seller: Cli
  let dir: string
  let bash: ReturnType<typeof docsShell>['bash']
  beforeAll(() => {
    seller = createCli({ SVC_BASE_URL: t.server.sandboxControlUrl })
    ;({ dir, bash } = docsShell(seller))
  })

  /** What a block's placeholder stands for, found the way the page says (`svc outbox`, `svc endpoints list`). */
  const jsonOf = (command: string, expression: string) =>
    `"$(${command} --json | node -pe 'const d = JSON.parse(require("fs").readFileSync(0, "utf8")); ${expression}')"`

  test('seller-account.sh: sign up, verify from the outbox, a Sandbox key', async () => {
    const script = docBlock('seller-account.sh').code.replace(
      'svc verify-email TOKEN',
      `svc verify-email ${jsonOf('svc outbox', 'd.messages[0].token')}`,
    )
    const result = await bash(script)
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('verified me@example.com')
    expect(result.stdout).toMatch(/^created development key ci \(\S+\) with apis:read, apis:write/m)
  })

  test('control-plane-curl.sh: sign up, the outbox and the Sandbox wallet over plain HTTP (curl and jq)', async () => {
    const script = docBlock('control-plane-curl.sh')
      .code.replace('B=http://sandbox.localhost:4020', `B=${t.server.sandboxControlUrl}`)
      .replace('localhost:4020/dev/outbox', `localhost:${t.server.port}/dev/outbox`)
    const result = await bash(script)
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    // curl prints each answer without a newline: the two JSON documents, one after the other.
    const [verified, wallet] = result.stdout
      .trim()
      .replace(/\}\s*\{"/, '}\n{"')
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(verified).toMatchObject({ verified: true, user: { email: 'curl@example.com' } })
    expect(wallet.address).toMatch(/^0x[0-9a-fA-F]{40}$/)
  })

  test('add-endpoint.sh: the buyer is asked 0.01 USDC (10000 of the Sandbox USDC) for GET /forecast/{city}', async () => {
    const result = await bash(docBlock('add-endpoint.sh').code)
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const unpaid = await localFetch(`http://weather.dev.localhost:${t.server.port}/forecast/paris`)
    expect(unpaid.status).toBe(402)
    const required = JSON.parse(Buffer.from(unpaid.headers.get('payment-required')!, 'base64').toString('utf8'))
    expect(required.accepts).toEqual([
      expect.objectContaining({
        scheme: 'exact',
        network: 'eip155:845320402',
        asset: chain.sandboxChain.usdc.address,
        amount: '10000',
        payTo: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
      }),
    ])
  })

  test('seller-cli.sh: upto, Permit2, an upfront route with sign-in and a payment id, an update, an import, stats and a CSV', async () => {
    copyFileSync(fixture('petstore-3.0.yaml'), join(dir, 'openapi.yaml'))
    const anyId = jsonOf(
      'svc endpoints list weather --sandbox',
      'd.endpoints.find((e) => e.path_pattern === "/any/*").id',
    )
    const result = await bash(docBlock('seller-cli.sh').code.replace('ENDPOINT_ID', anyId))
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const { endpoints } = await seller.json(['endpoints', 'list', 'weather', '--sandbox'])
    const at = (path: string) => endpoints.find((e: any) => e.path_pattern === path)
    expect(at('/llm/*').accepts[0]).toMatchObject({ scheme: 'upto', amount: '100000' })
    expect(at('/any/*')).toMatchObject({ siwx: null })
    expect(at('/any/*').accepts[0].extra).toMatchObject({
      assetTransferMethod: 'permit2',
      gasSponsoring: 'erc20ApprovalGasSponsoring',
    })
    expect(at('/report')).toMatchObject({ siwx: { access_seconds: 3600 }, payment_identifier_required: true })
    expect(at('/report').accepts[0]).toMatchObject({
      amount: '50000',
      extra: expect.objectContaining({ paymentFlow: 'upfront' }),
    })
    expect(at('/pets').accepts[0]).toMatchObject({ amount: '5000' })
    expect(existsSync(join(dir, 'settlements.csv'))).toBe(true)
    expect(readFileSync(join(dir, 'settlements.csv'), 'utf8')).toMatch(/^id,/)
  })
})
