/**
 * `svc up --twin base-sepolia`: the ready line lists the twin, `/config/local-dev` too, `svc faucet --network` funds
 * there; bad twin input is one line and exit 2 with nothing started. And `startSandbox({ twins })` (sdk/testing.ts).
 */
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startSandbox, type TestSandbox } from '../../sdk/testing.js'
import { localFetch } from '../../sdk/local-fetch.js'
import { isProcessRunning } from '../../core/os-process.js'
import { startSvcProcess, type SvcProcess } from '../helpers/svc-process.js'
import { createCli } from './harness.js'

const twinLine = {
  name: 'base-sepolia',
  network: 'eip155:84532',
  chain_id: 84532,
  rpc_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
  usdc: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
}

describe('svc up --twin base-sepolia', () => {
  let svc: SvcProcess
  beforeAll(async () => {
    svc = await startSvcProcess(['--twin', 'base-sepolia'])
  })
  afterAll(async () => {
    await svc?.stop()
  })

  test('the ready line and /config/local-dev list the twin; its RPC answers chain id 84532', async () => {
    expect(svc.ready.twins).toEqual([twinLine])
    expect(svc.ready.rpc_url).not.toBe(svc.ready.twins[0].rpc_url)
    const local = (await (await localFetch(`${svc.ready.control_url}/config/local-dev`)).json()) as any
    expect(local.twins).toEqual([{ ...twinLine, v1_network: 'base-sepolia', mode: 'offline' }])
    const answer = await fetch(svc.ready.twins[0].rpc_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    })
    expect(((await answer.json()) as any).result).toBe('0x14a34')
  })

  test('svc faucet ADDRESS --network base-sepolia funds on the twin, not on the Sandbox chain', async () => {
    const cli = createCli({ SVC_BASE_URL: svc.ready.sandbox_control_url })
    const email = `twin-${Date.now()}@svc.test`
    await cli.ok(['signup', '--email', email, '--password', 'a-long-password-1'])
    const { address } = privateKeyToAccount(generatePrivateKey())
    const funded = await cli.json(['faucet', address, '--asset', 'usdc', '--amount', '2', '--network', 'base-sepolia'])
    expect(funded.balances.usdc_base).toBe('0x1e8480')
    const sandbox = await cli.json(['balances', address])
    expect(sandbox.usdc_base).toBe('0x0')
    const refused = await cli.run(['faucet', address, '--network', 'eip155:1'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/network "eip155:1": the twins running are eip155:84532/)
  })
  test('svc chain restart brings the twin back too, on its URL with its state (a new Anvil, its pid in the data dir)', async () => {
    const twin = svc.ready.twins[0]
    const pidFile = join(svc.ready.data_dir, 'anvil-base-sepolia.pid')
    const before = Number(readFileSync(pidFile, 'utf8'))
    const { address } = privateKeyToAccount(generatePrivateKey())
    const funded = await fetch(`${svc.ready.chain_manager_url}/faucet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address, network: 'base-sepolia', asset: 'usdc', amount: '3' }),
    })
    expect(funded.status).toBe(200)
    const cli = createCli({ SVC_BASE_URL: svc.ready.sandbox_control_url })
    const restarted = await cli.json(['chain', 'restart'])
    expect(restarted.twins).toEqual([
      { name: 'base-sepolia', rpc_url: twin.rpc_url, ms: expect.any(Number), block_number: expect.any(Number) },
    ])
    const after = Number(readFileSync(pidFile, 'utf8'))
    expect(after).not.toBe(before)
    expect(isProcessRunning(before)).toBe(false)
    const balance = await fetch(`${svc.ready.chain_manager_url}/faucet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address, network: 'base-sepolia', asset: 'eth', amount: '1' }),
    })
    expect(BigInt(((await balance.json()) as any).balances.usdc_base)).toBe(3_000_000n)
    const stdout = await cli.ok(['chain', 'restart'])
    expect(stdout).toMatch(
      /^the chain of http:\/\/sandbox\.localhost:\d+ restarted on .*\nthe twin base-sepolia restarted on http:\/\/127\.0\.0\.1:\d+ with its state \(block \d+, away \d+ ms\)\n$/,
    )
  })
})

describe('bad twin input: one line, exit 2, nothing started', () => {
  test.each([
    [['--twin', 'base'], 'svc: unknown twin "base": svc has twins of base-sepolia'],
    [['--twin-fork-url', 'http://127.0.0.1:9'], 'svc: --twin-fork-url needs exactly one --twin'],
  ])('svc up %j', async (args, line) => {
    const cli = createCli()
    const result = await cli.spawn(['up', '--no-tui', '--ephemeral', '--port', '0', ...args])
    expect(result.code).toBe(2)
    expect(result.stderr.trim()).toBe(line)
    expect(result.stdout).toBe('')
  })
})

describe("startSandbox({ twins: ['base-sepolia'] })", () => {
  let sandbox: TestSandbox
  beforeAll(async () => {
    sandbox = await startSandbox({ twins: ['base-sepolia'] })
  })
  afterAll(async () => {
    await sandbox?.stop()
  })

  test('lists the twin and funds the buyer there too', async () => {
    expect(sandbox.twins).toEqual([
      {
        name: 'base-sepolia',
        network: 'eip155:84532',
        v1Network: 'base-sepolia',
        chainId: 84532,
        rpcUrl: expect.any(String),
        usdc: { address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', name: 'USDC', version: '2', decimals: 6 },
      },
    ])
    const response = await fetch(`${sandbox.chainManagerUrl}/balances`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: sandbox.buyer.address }),
    })
    expect(response.status).toBe(200)
    // The Sandbox chain's balance; the twin's is asked through the faucet's answer below.
    const funded = await fetch(`${sandbox.chainManagerUrl}/faucet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: sandbox.buyer.address, network: 'base-sepolia', asset: 'usdc', amount: '1' }),
    })
    const body = (await funded.json()) as any
    expect(BigInt(body.balances.usdc_base)).toBe(1_001_000_000n)
  })

  const twinCall = async (method: string, params: unknown[]) => {
    const response = await fetch(sandbox.twins[0]!.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    return ((await response.json()) as { result: any }).result
  }
  const twinUsdcOf = async (address: string) => {
    const answer = await fetch(`${sandbox.chainManagerUrl}/faucet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address, network: 'eip155:84532', asset: 'eth', amount: '1' }),
    })
    return BigInt(((await answer.json()) as any).balances.usdc_base)
  }

  test('a revert to a snapshot puts the twin back too', async () => {
    const { address } = privateKeyToAccount(generatePrivateKey())
    const id = await sandbox.snapshot()
    const blockAtSnapshot = await twinCall('eth_blockNumber', [])
    await fetch(`${sandbox.chainManagerUrl}/faucet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address, network: 'base-sepolia', asset: 'usdc', amount: '5' }),
    })
    expect(await twinUsdcOf(address)).toBe(5_000_000n)
    await sandbox.revert(id)
    expect(BigInt(await twinCall('eth_blockNumber', []))).toBeLessThanOrEqual(BigInt(blockAtSnapshot) + 1n)
    expect(await twinUsdcOf(address)).toBe(0n)
  })

  test("time travel moves the twin's time with the Sandbox chain's", async () => {
    const before = await sandbox.time()
    const moved = await sandbox.advanceTime(3600)
    expect(moved.chain_time).toBeGreaterThanOrEqual(before.chain_time + 3600)
    const latest = await twinCall('eth_getBlockByNumber', ['latest', false])
    expect(Number(BigInt(latest.timestamp))).toBeGreaterThanOrEqual(before.chain_time + 3600)
  })
})

describe('a twin fork URL', () => {
  test('is asked its chain id once at start (by svc; the forking Anvil asks for itself)', async () => {
    const askedBySvc: string[] = []
    // An RPC that says it is Base Sepolia and answers nothing else: the twin's Anvil cannot fork from it.
    const rpc = createServer((req, res) => {
      let body = ''
      req.on('data', (chunk) => (body += chunk))
      req.on('end', () => {
        const { id, method } = JSON.parse(body) as { id: number; method: string }
        if (method === 'eth_chainId' && req.headers['user-agent'] === 'node') askedBySvc.push(method)
        const answer =
          method === 'eth_chainId' ? { result: '0x14a34' } : { error: { code: -32601, message: 'not here' } }
        res.setHeader('content-type', 'application/json').end(JSON.stringify({ jsonrpc: '2.0', id, ...answer }))
      })
    }).listen(0, '127.0.0.1')
    await once(rpc, 'listening')
    try {
      const twinForkUrl = `http://127.0.0.1:${(rpc.address() as AddressInfo).port}`
      await expect(startSandbox({ twins: ['base-sepolia'], twinForkUrl })).rejects.toThrow()
      expect(askedBySvc).toEqual(['eth_chainId'])
    } finally {
      rpc.close()
    }
  })
})
