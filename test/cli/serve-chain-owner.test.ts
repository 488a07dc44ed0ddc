/**
 * `svc serve --sandbox-chain shared` (issue 27 item 1): processes on one PostgreSQL database elect one chain owner;
 * the others settle Sandbox payments through it and forward its chain routes (time travel and faults act on the
 * owner's chain and gateway); each names its own public Sandbox RPC and serves the paywall with the owner's chain;
 * when the owner is killed, another takes the chain over (a new epoch), answering 503 with Retry-After meanwhile.
 * Real processes, real Anvil, real PostgreSQL.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { type Address, createPublicClient, erc20Abi, type Hex, http, type PublicClient } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { sandboxChainId } from '../../core/sandbox-usdc.js'
import { clusterHeader, clusterSecret } from '../../server/cluster/cluster-secret.js'
import { batchOnOwnerOnly } from '../../server/channels/servers.js'
import { postgresAvailable, startPostgres, type TestPostgres } from '../helpers/postgres.js'
import { fetchFrom, runServe, startServeProcess, type ServeProcess } from '../helpers/serve-process.js'
import { signUpServeSeller, type ServeSeller } from '../helpers/serve-seller.js'
import { resolveNamesUnder } from '../helpers/resolve-names.js'
import { createCli } from './harness.js'
import { createElement } from 'react'
import { render } from 'ink-testing-library'
import { App } from '../../tui/App.js'
import { remoteDashboardUrls } from '../../tui/remote-urls.js'

const dir = mkdtempSync(join(tmpdir(), 'svc-serve-chain-owner-'))
const files = { jwt: join(dir, 'jwt.key'), wallet: join(dir, 'wallet.key'), admin: join(dir, 'admin.token') }
const adminToken = randomBytes(32).toString('hex')
writeFileSync(files.jwt, `${randomBytes(32).toString('hex')}\n`)
writeFileSync(files.wallet, `${randomBytes(32).toString('hex')}\n`)
writeFileSync(files.admin, `${adminToken}\n`)
const fetchLocal = fetchFrom('127.0.0.1')
const buyer = privateKeyToAccount(generatePrivateKey())
const upstream: Server = createServer((req, res) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: req.url })),
)

// Where PostgreSQL is missing outside CI the file is skipped, as test/helpers/postgres.ts's testDialects does.
const runs = postgresAvailable() || Boolean(process.env.CI)
let postgres: TestPostgres
let databaseUrl: string
let owner: ServeProcess
let other: ServeProcess
const started: ServeProcess[] = []
let seller: ServeSeller

const serve = async (name: string) => {
  const svc = await startServeProcess([
    ...['--data-dir', join(dir, name), '--database-url', databaseUrl, '--platform-domain', 'pay.test'],
    ...['--jwt-secret-file', files.jwt, '--wallet-key-file', files.wallet, '--sandbox-chain', 'shared'],
    ...['--allow-upstream', '127.0.0.3/32', '--auto-verify', '--admin-token-file', files.admin],
  ])
  started.push(svc)
  return svc
}
const sandboxControl = (svc: ServeProcess) => svc.ready.sandbox_control_url as string
const gateway = (svc: ServeProcess, path: string) =>
  `http://weather.${svc.ready.sandbox_platform_domain}:${svc.ready.port}${path}`
const sellerHeaders = () => seller.headers
const asSeller = (body?: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...sellerHeaders() },
  body: body === undefined ? undefined : JSON.stringify(body),
})
const getJson = async (url: string, headers: Record<string, string> = sellerHeaders()) =>
  (await (await fetchLocal(url, { headers })).json()) as any
/** The USDC of `address` on the chain `client` reads. */
const usdcOf = (client: PublicClient, address: Address) =>
  client.readContract({ address: owner.ready.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [address] })
/** The owner's chain, read on its Anvil directly. */
const ownerChain = () => createPublicClient({ transport: http(owner.ready.rpc_url) })
const readyz = async (svc: ServeProcess) => {
  const answer = await fetchLocal(`http://127.0.0.1:${svc.ready.port}/readyz`)
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> }
}
const faucet = (svc: ServeProcess) => seller.post(`${sandboxControl(svc)}/dev/faucet`, { address: buyer.address })
const pay = (svc: ServeProcess, path = '/forecast') => {
  const client = new x402Client().register(owner.ready.network, new ExactEvmScheme(buyer))
  client.setSpendControls({
    allowedAssets: [{ network: owner.ready.network, asset: owner.ready.usdc, maxAmountPerPayment: '1000000' }],
  })
  return wrapFetchWithPayment(fetchLocal, client)(gateway(svc, path))
}
const settlements = async (svc: ServeProcess) =>
  (
    (await (await fetchLocal(`${sandboxControl(svc)}/settlements`, { headers: seller.headers })).json()) as {
      settlements: { transaction: string; chain_epoch: string; old_chain: boolean }[]
    }
  ).settlements

beforeAll(async () => {
  if (!runs) return
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.3', resolve))
  postgres = await startPostgres()
  databaseUrl = await postgres.createDatabase()
  const [a, b] = await Promise.all([serve('a'), serve('b')])
  ;[owner, other] = a!.ready.chain_owner ? [a!, b!] : [b!, a!]
  seller = await signUpServeSeller(fetchLocal, other, upstream)
  const accept = { scheme: 'exact', network: owner.ready.network, asset: owner.ready.usdc, amount: '10000' }
  const endpoint = await seller.addEndpoint(other, '/forecast', accept)
  expect(endpoint.status).toBe(201)
}, 120_000)
afterAll(async () => {
  for (const svc of started) await svc.stop()
  await postgres?.stop()
  upstream.close()
  rmSync(dir, { recursive: true, force: true })
})

describe.skipIf(!runs)('svc serve --sandbox-chain shared: one chain owner among the processes', () => {
  test('a SQLite database is refused before anything starts', () => {
    const refused = runServe(['--data-dir', join(dir, 'sqlite'), '--sandbox-chain', 'shared'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('--sandbox-chain shared needs a PostgreSQL --database-url')
  })

  test('exactly one of two processes owns the chain; readiness says which', async () => {
    expect([owner.ready.chain_owner, other.ready.chain_owner]).toEqual([true, false])
    expect(owner.ready.sandbox_chain).toBe('shared')
    expect(other.ready.rpc_url).toBeNull()
    expect(await readyz(owner)).toEqual({ status: 200, body: { status: 'ready', database: 'ok', chain: 'ok' } })
    expect(await readyz(other)).toEqual({ status: 200, body: { status: 'ready', database: 'ok', chain: 'remote' } })
  })

  test("the owner's chain RPC and facilitator answer on its listener with the cluster secret only", async () => {
    const rpc = (headers: Record<string, string>) =>
      fetchLocal(`http://127.0.0.1:${owner.ready.port}/_svc/cluster/rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      })
    const secret = clusterSecret(Buffer.from(readFileSync(files.jwt, 'utf8').trim(), 'hex'))
    const answer = await rpc({ [clusterHeader]: secret })
    expect(answer.status).toBe(200)
    expect(((await answer.json()) as { result: string }).result).toBe(`0x${sandboxChainId.toString(16)}`)
    for (const headers of [{}, { [clusterHeader]: 'a'.repeat(64) }] as Record<string, string>[])
      expect((await rpc(headers)).status).toBe(404)
    const supported = await fetchLocal(`http://127.0.0.1:${owner.ready.port}/_svc/cluster/facilitator/supported`, {
      headers: { [clusterHeader]: secret },
    })
    expect(supported.status).toBe(200)
    // Whether its facilitator is settling an authorization (a replay of a dead process's payment asks).
    const settling = `http://127.0.0.1:${owner.ready.port}/_svc/cluster/settling?authorizer=${buyer.address}&nonce=0x${'0'.repeat(64)}`
    expect(await (await fetchLocal(settling, { headers: { [clusterHeader]: secret } })).json()).toEqual({
      settling: false,
    })
    expect((await fetchLocal(settling)).status).toBe(404)
    // The other process has no chain of its own to show: its ready line names the owner's network and token.
    expect([other.ready.network, other.ready.usdc]).toEqual([owner.ready.network, owner.ready.usdc])
  })

  test("the faucet through the other process funds on the owner's chain", async () => {
    expect((await faucet(other)).status).toBe(200)
    const balances = await seller.post(`${sandboxControl(other)}/dev/balances`, { address: buyer.address })
    expect(balances.status).toBe(200)
    expect(await usdcOf(ownerChain(), buyer.address)).toBeGreaterThan(0n)
  })

  test("a payment through the other process settles on the owner's chain and is in the ledger once", async () => {
    const paid = await pay(other)
    expect(paid.status).toBe(200)
    const settled = await settlements(owner)
    expect(settled).toHaveLength(1)
    const receipt = await ownerChain().getTransactionReceipt({
      hash: settled[0]!.transaction as Hex,
    })
    expect(receipt.status).toBe('success')
    expect(await settlements(other)).toEqual(settled)
  })

  test("a chain restart through the other process runs on the owner's chain, with the caller's credential", async () => {
    const restart = (headers: Record<string, string>) =>
      fetchLocal(`${sandboxControl(other)}/dev/chain/restart`, { method: 'POST', headers })
    // The owner's answer, passed back unchanged: without the admin token a 401.
    const refused = await restart({})
    expect(refused.status).toBe(401)
    expect(await refused.json()).toEqual({ error: 'unauthorized' })
    const restarted = await restart({ authorization: `Bearer ${adminToken}` })
    expect(restarted.status).toBe(200)
    // The owner's answer (its public RPC at its own address), never its loopback Anvil.
    expect(await restarted.json()).toMatchObject({ restarted: true, rpc_url: `${sandboxControl(owner)}/dev/rpc` })
    // The same chain, reloaded: payments go on through the other process.
    expect((await pay(other)).status).toBe(200)
    expect(await settlements(owner)).toHaveLength(2)
  })

  test("/config/local-dev through either process names its own public Sandbox RPC; a viem client on the other's reads the owner's chain", async () => {
    for (const svc of [owner, other])
      expect(await getJson(`${sandboxControl(svc)}/config/local-dev`, {})).toMatchObject({
        enabled: true,
        rpc_url: `${sandboxControl(svc)}/dev/rpc`,
        usdc: { address: owner.ready.usdc },
      })
    const rpcUrl = `${sandboxControl(other)}/dev/rpc`
    const viaOther = createPublicClient({ transport: http(rpcUrl, { fetchFn: fetchLocal }) })
    expect(await viaOther.getChainId()).toBe(sandboxChainId)
    expect(await usdcOf(viaOther, buyer.address)).toBe(await usdcOf(ownerChain(), buyer.address))
    // Anvil's own methods (minting, time travel) are not a buyer's: refused, as on any public RPC.
    const minted = await fetchLocal(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'anvil_setBalance', params: [buyer.address, '0x1'] }),
    })
    expect(await minted.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32601, message: "svc's Sandbox RPC does not serve anvil_setBalance" },
    })
  })

  test("/config/local-dev through the other process names no owner's loopback: every URL is null or answers through it", async () => {
    const config = await getJson(`${sandboxControl(other)}/config/local-dev`, {})
    expect(config).toMatchObject({
      chain_manager_url: `${sandboxControl(other)}/dev`,
      facilitator_url: null,
      twins: [],
    })
    // The owner's answer is the same but for its own address (a load balancer picks the process).
    const onOwner = JSON.stringify(await getJson(`${sandboxControl(owner)}/config/local-dev`, {}))
    expect(onOwner.replaceAll(sandboxControl(owner), sandboxControl(other))).toBe(JSON.stringify(config))
    const wallet = privateKeyToAccount(generatePrivateKey())
    const funded = await seller.post(`${config.chain_manager_url}/faucet`, { address: wallet.address })
    expect(funded.status).toBe(200)
    const balances = await seller.post(`${config.chain_manager_url}/balances`, { address: wallet.address })
    expect(balances.status).toBe(200)
    const { usdc_base } = (await balances.json()) as { usdc_base: string }
    expect(BigInt(usdc_base)).toBe(await usdcOf(ownerChain(), wallet.address))
    expect(BigInt(usdc_base)).toBeGreaterThan(0n)
    const urls = JSON.stringify(config).match(/https?:\/\/[^"]+/g)!
    expect(urls.length).toBeGreaterThan(0)
    for (const url of urls) expect(url.startsWith(sandboxControl(other))).toBe(true)
  })

  test("svc discovery catalog and the dashboard's bazaar line through the other process list the owner's catalog", async () => {
    // The payments above went through the other process and settled through the owner's facilitator.
    const resource = gateway(other, '/forecast')
    const config = await getJson(`${sandboxControl(other)}/config/local-dev`, {})
    expect(config.bazaar_url).toBe(`${sandboxControl(other)}/dev/bazaar`)
    const listed = await getJson(`${config.bazaar_url}/discovery/resources?type=http`, {})
    expect(listed).toMatchObject({ x402Version: 2, pagination: { total: 1 }, items: [{ resource }] })

    // The CLI and the dashboard run in this process, where `*.pay.test` is the loopback (their fetch asks dns.lookup).
    const restore = resolveNamesUnder('pay.test')
    try {
      const cli = createCli()
      const page = await cli.json(['--base-url', sandboxControl(other), 'discovery', 'catalog'])
      expect(page.items.map((item: { resource: string }) => item.resource)).toEqual([resource])
      const human = await cli.run(['--base-url', sandboxControl(other), 'discovery', 'catalog'])
      expect(human).toMatchObject({ code: 0, stderr: '' })
      expect(human.stdout).toContain(`${resource}  GET   0.01 USDC (exact)`)

      const urls = await remoteDashboardUrls(other.ready.control_url)
      const { lastFrame, unmount } = render(
        createElement(App, { urls, session: { jwt: seller.jwt }, refreshMs: 200, remote: true }),
      )
      try {
        await expect
          .poll(() => lastFrame() ?? '', { timeout: 20_000 })
          .toMatch(/bazaar catalog \(1\) GET \S*weather\S*\/forecast/)
      } finally {
        unmount()
      }
    } finally {
      restore()
    }
  })

  test("the browser's paywall page through the other process shows the owner's chain; its RPC and demo faucet reach it", async () => {
    const stateOf = async (svc: ServeProcess) => {
      const page = await fetchLocal(gateway(svc, '/forecast'), {
        headers: { accept: 'text/html', 'user-agent': 'Mozilla/5.0 (X11) Firefox/133.0' },
      })
      expect(page.status).toBe(402)
      return JSON.parse(/id="svc-paywall-state">(.*?)<\/script>/s.exec(await page.text())![1]!)
    }
    const [onOwner, onOther] = [await stateOf(owner), await stateOf(other)]
    expect(onOwner.chain).toMatchObject({ chainId: sandboxChainId, usdc: { address: owner.ready.usdc } })
    expect(onOther.chain).toEqual({ ...onOwner.chain, rpcUrl: gateway(other, '/__svc/rpc') })
    const wallet = privateKeyToAccount(generatePrivateKey())
    const funded = await fetchLocal(onOther.faucet, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: wallet.address }),
    })
    expect(funded.status).toBe(200)
    const pageRpc = createPublicClient({ transport: http(onOther.chain.rpcUrl, { fetchFn: fetchLocal }) })
    expect(await usdcOf(pageRpc, wallet.address)).toBe(10_000_000n)
    expect(await usdcOf(ownerChain(), wallet.address)).toBe(10_000_000n)
  })

  test("time travel and a fault through the other process act on the owner's chain and gateway, answered as the owner answers", async () => {
    const advance = (svc: ServeProcess, headers: Record<string, string>) =>
      fetchLocal(`${sandboxControl(svc)}/dev/time/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ seconds: 60 }),
      })
    // A seller may not move everyone's clock: the same refusal through both.
    const refusals = await Promise.all(
      [owner, other].map(async (svc) => {
        const answer = await advance(svc, sellerHeaders())
        return { status: answer.status, body: await answer.json() }
      }),
    )
    expect(refusals[0]!.status).toBe(403)
    expect(refusals[1]).toEqual(refusals[0])
    const clocks = (svc: ServeProcess) => getJson(`${sandboxControl(svc)}/dev/time`)
    const before = await clocks(owner)
    // 60 s: payments signed by this machine's clock stay valid (their validBefore is 300 s away).
    const advanced = await advance(other, { authorization: `Bearer ${adminToken}` })
    expect(advanced.status).toBe(200)
    expect(await advanced.json()).toMatchObject({ offset_seconds: before.offset_seconds + 60 })
    const latest = await ownerChain().getBlock()
    expect(Number(latest.timestamp)).toBeGreaterThanOrEqual(before.chain_time + 60)
    const { svc_time: _a, ...throughOther } = await clocks(other)
    const { svc_time: _b, ...onOwner } = await clocks(owner)
    expect(throughOther).toEqual(onOwner)
    expect(onOwner).toMatchObject({ offset_seconds: before.offset_seconds + 60, chain_block: Number(latest.number) })

    const added = await fetchLocal(
      `${sandboxControl(other)}/dev/faults`,
      asSeller({ kind: 'verify', reason: 'invalid_exact_evm_insufficient_balance', times: 1, api: 'weather' }),
    )
    expect(added.status).toBe(201)
    const fault = (await added.json()) as { id: string }
    const faults = (svc: ServeProcess) => getJson(`${sandboxControl(svc)}/dev/faults`)
    expect((await faults(owner)).faults).toEqual([fault])
    expect(await faults(other)).toEqual(await faults(owner))
    const refused = await pay(owner)
    expect(refused.status).toBe(402)
    expect(((await refused.json()) as { error: string }).error).toBe(
      `the payment is invalid: invalid_exact_evm_insufficient_balance (injected by svc fault ${fault.id})`,
    )
    expect((await faults(other)).faults).toEqual([])
    expect((await pay(other)).status).toBe(200)
  })

  test("a payment through the other process meets a settle delay of every API once, though the owner's facilitator settles it", async () => {
    const admin = { authorization: `Bearer ${adminToken}` }
    const added = await fetchLocal(`${sandboxControl(other)}/dev/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...admin },
      body: JSON.stringify({ kind: 'settle', delay_ms: 200, times: 3 }),
    })
    expect(added.status).toBe(201)
    const fault = (await added.json()) as { id: string }
    try {
      expect((await pay(other)).status).toBe(200)
      const { faults } = await getJson(`${sandboxControl(owner)}/dev/faults`, admin)
      expect(faults).toEqual([expect.objectContaining({ id: fault.id, times: 3, remaining: 2, hits: 1 })])
    } finally {
      await fetchLocal(`${sandboxControl(other)}/dev/faults/${fault.id}`, { method: 'DELETE', headers: admin })
    }
  })

  test('a batch-settlement Sandbox route: 402 on the owner, a clear 503 on the other process', async () => {
    const endpoint = await seller.addEndpoint(other, '/channel', {
      scheme: 'batch-settlement',
      network: owner.ready.network,
      asset: owner.ready.usdc,
      amount: '1000',
    })
    expect(endpoint.status).toBe(201)
    expect((await fetchLocal(gateway(owner, '/channel'))).status).toBe(402)
    const refused = await fetchLocal(gateway(other, '/channel'))
    expect(refused.status).toBe(503)
    expect(await refused.json()).toEqual({ error: batchOnOwnerOnly })
  })

  test('the owner killed: 503 with Retry-After meanwhile, then the other owns a new chain and takes payments', async () => {
    const before = await settlements(other)
    const killedAt = Date.now()
    owner.child.kill('SIGKILL')
    await owner.exited
    // At once, before any process took the chain over: the chain routes and the payments say "retry", nothing else.
    const waiting = await faucet(other)
    expect(waiting.status).toBe(503)
    expect(Number(waiting.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await waiting.json()).toEqual({
      error: 'the Sandbox chain is moving to another svc process: retry in a few seconds',
    })
    const refused = await pay(other)
    expect(refused.status).toBe(503)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    // The other process takes the chain over; the buyer (not a Sandbox wallet) is funded on the new chain.
    await vi.waitFor(async () => expect((await readyz(other)).body.chain).toBe('ok'), {
      timeout: 20_000,
      interval: 100,
    })
    expect((await faucet(other)).status).toBe(200)
    const paid = await pay(other)
    expect(paid.status).toBe(200)
    const takeoverMs = Date.now() - killedAt
    console.log(`chain owner takeover: kill -9 → first paid 200 in ${takeoverMs} ms`)
    const after = await settlements(other)
    expect(after).toHaveLength(before.length + 1)
    // A new epoch: the settlement before the kill is marked as settled on an earlier chain.
    expect(after.find((row) => row.transaction === before[0]!.transaction)?.old_chain).toBe(true)
    expect(after[0]!.chain_epoch).not.toBe(before[0]!.chain_epoch)
    expect(after[0]!.old_chain).toBe(false)
  })

  test('a third process stays a standby of the new owner and pays through it; the owner stopped, it takes over', async () => {
    const third = await serve('c')
    expect(third.ready.chain_owner).toBe(false)
    expect((await readyz(third)).body.chain).toBe('remote')
    expect((await pay(third)).status).toBe(200)
    // SIGTERM: the owner drains, gives the chain up and exits 0; the standby takes it over.
    expect(await other.stop()).toBe(0)
    await vi.waitFor(async () => expect((await readyz(third)).body.chain).toBe('ok'), {
      timeout: 20_000,
      interval: 100,
    })
    expect((await faucet(third)).status).toBe(200)
    expect((await pay(third)).status).toBe(200)
  })
})
