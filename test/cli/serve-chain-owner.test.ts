/**
 * `svc serve --sandbox-chain shared` (issue 27 item 1): processes on one PostgreSQL database elect one chain owner;
 * the others settle Sandbox payments through it and forward its chain routes; when it is killed, another takes the
 * chain over (a new epoch), answering 503 with Retry-After meanwhile. Real processes, real Anvil, real PostgreSQL.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { createPublicClient, http, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { sandboxChainId } from '../../core/sandbox-usdc.js'
import { clusterHeader, clusterSecret } from '../../server/cluster/cluster-secret.js'
import { batchOnOwnerOnly } from '../../server/gateway/batch-servers.js'
import { postgresAvailable, startPostgres, type TestPostgres } from '../helpers/postgres.js'
import { fetchFrom, runServe, startServeProcess, type ServeProcess } from '../helpers/serve-process.js'
import { signUpServeSeller, type ServeSeller } from '../helpers/serve-seller.js'

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
    // The other process has no chain of its own to show: its ready line names the owner's network and token.
    expect([other.ready.network, other.ready.usdc]).toEqual([owner.ready.network, owner.ready.usdc])
  })

  test("the faucet through the other process funds on the owner's chain", async () => {
    expect((await faucet(other)).status).toBe(200)
    const balances = await seller.post(`${sandboxControl(other)}/dev/balances`, { address: buyer.address })
    expect(balances.status).toBe(200)
    const ownerChain = createPublicClient({ transport: http(owner.ready.rpc_url) })
    const usdc = await ownerChain.readContract({
      address: owner.ready.usdc,
      abi: [
        {
          type: 'function',
          name: 'balanceOf',
          stateMutability: 'view',
          inputs: [{ type: 'address' }],
          outputs: [{ type: 'uint256' }],
        },
      ],
      functionName: 'balanceOf',
      args: [buyer.address],
    })
    expect(usdc).toBeGreaterThan(0n)
  })

  test("a payment through the other process settles on the owner's chain and is in the ledger once", async () => {
    const paid = await pay(other)
    expect(paid.status).toBe(200)
    const settled = await settlements(owner)
    expect(settled).toHaveLength(1)
    const receipt = await createPublicClient({ transport: http(owner.ready.rpc_url) }).getTransactionReceipt({
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
    expect(JSON.stringify(await restarted.json())).toContain(owner.ready.rpc_url)
    // The same chain, reloaded: payments go on through the other process.
    expect((await pay(other)).status).toBe(200)
    expect(await settlements(owner)).toHaveLength(2)
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
