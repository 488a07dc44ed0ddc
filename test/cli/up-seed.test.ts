import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, existsSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { x402Client } from '@x402/core/client'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, test } from 'vitest'
import { localFetch } from '../../sdk/local-fetch.js'
import { startSvcProcess, type SvcProcess } from '../helpers/svc-process.js'
import { docBlock } from '../docs/blocks.js'

const svcBin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url))
const seedFile = fileURLToPath(new URL('../../fixtures/demo-seed.yaml', import.meta.url))
const running: SvcProcess[] = []
afterAll(async () => {
  for (const svc of running) await svc.stop()
})

describe('svc up --seed', () => {
  test('the demo seed makes an account, a key and a paid API in front of the demo upstream that a buyer can pay', async () => {
    const svc = await startSvcProcess(['--seed', seedFile])
    running.push(svc)
    const { seed, chain_manager_url, usdc, network } = svc.ready
    expect(seed).toMatchObject({
      email: 'demo@svc.test',
      keys: [{ name: 'demo automation', environment: 'development' }],
    })
    expect(seed.keys[0].key).toMatch(/^svc_sandbox_/)
    expect(seed.apis).toEqual([expect.objectContaining({ slug: 'weather', created: true, endpoints_created: 3 })])

    const buyer = privateKeyToAccount(generatePrivateKey())
    await fetch(`${chain_manager_url}/faucet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: buyer.address }),
    })
    const client = new x402Client().register(network, new ExactEvmScheme(buyer))
    client.setSpendControls({ allowedAssets: [{ network, asset: usdc, maxAmountPerPayment: '1000000' }] })
    const pay = wrapFetchWithPayment(localFetch, client)
    const response = await pay(`${seed.apis[0].gateway_url}/weather/lisbon`)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ city: 'lisbon', source: 'svc demo upstream' })
    expect(response.headers.get('payment-response')).toBeTruthy()
  })
})

describe('the data dir', () => {
  // The seed file of docs/sell.md ("Add an endpoint with a price"), as `svc up --seed weather-seed.yaml` applies it.
  test('a second svc up on the same data dir is refused while the first runs; data survives a restart (the seed of docs/sell.md)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-lock-'))
    const seedDir = mkdtempSync(join(tmpdir(), 'svc-docs-seed-'))
    const docsSeed = join(seedDir, 'weather-seed.yaml')
    writeFileSync(docsSeed, docBlock('weather-seed.yaml').code)
    try {
      const first = await startSvcProcess(['--data-dir', dataDir, '--seed', docsSeed], process.env, {
        ephemeral: false,
      })
      running.push(first)
      expect(existsSync(join(dataDir, 'svc.lock'))).toBe(true)
      expect(first.ready.seed).toMatchObject({
        email: 'me@example.com',
        keys: [{ name: 'ci', environment: 'development' }],
      })
      expect(first.ready.seed.apis).toEqual([
        expect.objectContaining({ slug: 'weather', created: true, endpoints_created: 1 }),
      ])
      // The buyer is asked 0.01 USDC (10000 of the Sandbox USDC) for GET /forecast/{city}.
      const unpaid = await localFetch(`${first.ready.seed.apis[0].gateway_url}/forecast/paris`)
      expect(unpaid.status).toBe(402)
      const required = JSON.parse(Buffer.from(unpaid.headers.get('payment-required')!, 'base64').toString('utf8'))
      expect(required.accepts).toEqual([
        expect.objectContaining({
          scheme: 'exact',
          network: first.ready.network,
          asset: first.ready.usdc,
          amount: '10000',
        }),
      ])

      const second = spawn(process.execPath, [svcBin, 'up', '--no-tui', '--port', '0', '--data-dir', dataDir], {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let stderr = ''
      second.stderr.on('data', (chunk) => (stderr += chunk))
      const code = await new Promise((resolve) => second.once('exit', resolve))
      expect(code).toBe(1)
      expect(stderr).toMatch(/another svc up \(pid \d+\) is using/)

      expect(await first.stop()).toBe(0)
      expect(existsSync(join(dataDir, 'svc.lock'))).toBe(false)
      // Restarted on the same data dir: the seed finds its account, key and API again.
      const again = await startSvcProcess(['--data-dir', dataDir, '--seed', docsSeed], process.env, {
        ephemeral: false,
      })
      running.push(again)
      expect(again.ready.seed.apis[0]).toMatchObject({ slug: 'weather', created: false, endpoints_created: 0 })
      expect(again.ready.seed.keys[0].key).toBeUndefined()
      await again.stop()
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
      rmSync(seedDir, { recursive: true, force: true })
    }
  })
})
