import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { createSvcClient } from '../../../sdk/client.js'
import { startSandbox as startTestSandbox } from '../../../sdk/testing.js'
import { gatewayHopHeader } from '../../../server/upstream/own-listeners.js'
import { startSvc } from '../../../server/start/index.js'

describe('a revert while a payment is under way', () => {
  test('waits for it to finish, then undoes it', async () => {
    // An upstream that answers the gateway only when the test lets it (svc's schema probe at once).
    let held: ServerResponse | undefined
    let arrived!: () => void
    const arrival = new Promise<void>((resolve) => (arrived = resolve))
    const upstream = createServer((req: IncomingMessage, res: ServerResponse) => {
      if (req.headers[gatewayHopHeader] === undefined)
        return void res.setHeader('content-type', 'application/json').end('{}')
      held = res
      arrived()
    })
    upstream.listen(0, '127.0.0.1')
    await once(upstream, 'listening')
    const sandbox = await startTestSandbox()
    try {
      const { client } = sandbox.seller
      const api = await client.apis.create({
        name: 'Slow',
        slug: 'slow',
        upstream_base_url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
        pay_to_mode: 'user_wallet',
        pay_to_address: '0x000000000000000000000000000000000000bEEF',
      })
      await client.endpoints.create(api.id, {
        method: 'GET',
        path_pattern: '/slow',
        accepts: [{ scheme: 'exact', network: sandbox.network, asset: sandbox.usdc.address, amount: '1000' }],
      })
      const id = await sandbox.snapshot()

      const order: string[] = []
      const payment = sandbox.buyer
        .fetch(`${sandbox.gatewayUrl('slow')}/slow`)
        .then((response) => (order.push('payment'), response))
      await arrival
      const revert = sandbox.revert(id).then(() => order.push('revert'))
      // The revert is waiting for the payment: nothing has answered yet.
      await new Promise((resolve) => setImmediate(resolve))
      expect(order).toEqual([])
      held!.setHeader('content-type', 'application/json').end('{"slow":true}')
      const response = await payment
      await revert
      expect(order).toEqual(['payment', 'revert'])
      expect(response.status).toBe(200)
      // The payment settled before the revert, and the revert undid it: chain and ledger agree.
      expect((await client.settlements.list({})).settlements).toHaveLength(0)
    } finally {
      await sandbox.stop()
      upstream.close()
    }
  })
})

describe('snapshots and the clock offset across restarts', () => {
  test('a chain restart discards the snapshots and resets the offset (a new chain); a restart of svc that reloads the chain keeps it; a fresh chain starts at 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-snap-'))
    try {
      const first = await startSvc({ mode: 'up', dataDir, autoVerify: true, healthIntervalMs: 100, log: () => {} })
      try {
        const client = createSvcClient({ baseUrl: first.server.sandboxControlUrl })
        expect((await client.time.advance(3600)).offset_seconds).toBe(3600)
        const snapshot = await client.snapshots.take()
        const restarted = new Promise((resolve) => first.chain.sandboxChain.once('restart', resolve))
        process.kill(first.chain.sandboxChain.pid!, 'SIGKILL')
        await restarted
        await expect.poll(async () => (await client.time.get()).offset_seconds).toBe(0)
        await expect(client.snapshots.revert(snapshot.id)).rejects.toMatchObject({
          status: 409,
          message: `snapshot ${snapshot.id} was lost when the chain restarted`,
        })
        expect(await client.snapshots.list()).toEqual([])
        expect((await client.time.advance(7200)).offset_seconds).toBe(7200)
      } finally {
        await first.stop()
      }

      const second = await startSvc({ mode: 'up', dataDir, autoVerify: true, log: () => {} })
      try {
        const time = await createSvcClient({ baseUrl: second.server.sandboxControlUrl }).time.get()
        expect(time.offset_seconds).toBe(7200)
        expect(time.chain_time).toBeGreaterThanOrEqual(Math.floor(Date.parse(time.svc_time) / 1000) - 5)
      } finally {
        await second.stop()
      }

      const third = await startSvc({ mode: 'up', dataDir, autoVerify: true, freshChain: true, log: () => {} })
      try {
        expect((await createSvcClient({ baseUrl: third.server.sandboxControlUrl }).time.get()).offset_seconds).toBe(0)
      } finally {
        await third.stop()
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
