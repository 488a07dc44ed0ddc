/**
 * The bazaar catalog outlives a restart: a seller's payment settled at svc's facilitator (over HTTP, as a foreign
 * seller's resource server sends it) is listed, svc stops, starts again on the same data dir, and
 * `withBazaar(new HTTPFacilitatorClient({ url }))` lists it still.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HTTPFacilitatorClient } from '@x402/core/http'
import { declareDiscoveryExtension, withBazaar } from '@x402/extensions/bazaar'
import { afterAll, expect, test } from 'vitest'
import { startSvc, type RunningSvc } from '../../server/start/index.js'
import { newAccount, sandboxRequirements, signPayment } from '../helpers/payments.js'

const dataDir = mkdtempSync(join(tmpdir(), 'svc-bazaar-restart-'))
let running: RunningSvc<'up'> | undefined
afterAll(async () => {
  await running?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

const listed = async (url: string) =>
  (await withBazaar(new HTTPFacilitatorClient({ url })).extensions.bazaar.listResources({ type: 'http' })).items

test('a restart on the same data dir keeps the catalog', async () => {
  running = await startSvc({ mode: 'up', dataDir, port: 0, log: () => {} })
  const chain = running.chain.sandboxChain
  const buyer = newAccount()
  await running.chain.manager.fund(buyer.address, 'usdc', '1')
  const requirements = sandboxRequirements(chain, { payTo: newAccount().address })
  const { bazaar } = declareDiscoveryExtension({ input: {}, output: { example: { quote: 'text' } } }) as any
  bazaar.info.input.method = 'GET'
  const payload = {
    ...(await signPayment(chain, buyer, requirements)),
    resource: { url: 'https://quotes.example/today', description: 'A quote a day' },
    extensions: { bazaar },
  }
  const settled = await new HTTPFacilitatorClient({ url: running.chain.facilitatorUrl }).settle(payload, requirements)
  expect(settled.success).toBe(true)
  const before = await listed(running.chain.facilitatorUrl)
  expect(before.map((item) => item.resource)).toEqual(['https://quotes.example/today'])

  await running.stop()
  running = await startSvc({ mode: 'up', dataDir, port: 0, log: () => {} })
  const after = await listed(running.chain.facilitatorUrl)
  expect(after).toEqual(before)
  expect(after[0]).toMatchObject({ description: 'A quote a day', accepts: [requirements] })
})
