import { createPublicClient, erc20Abi, http, parseEventLogs, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startSvcProcess, type SvcProcess } from '../helpers/svc-process.js'
import { freePort, fundedBuyer, runClient, startServer, type RunningServer } from './run-x402.js'

// x402's own e2e servers (express, hono: their sources, test/x402-e2e/servers/) on svc's facilitator and network,
// paid by x402's own e2e clients.
const payTo = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc' // Anvil's account 5
/** The EVM routes of x402's e2e servers at the vendored commit, and what an upto route settles. */
const routes: { path: string; settle?: string }[] = [
  { path: '/exact/evm/eip3009' },
  { path: '/exact/evm/permit2' },
  { path: '/exact/evm/permit2-eip2612GasSponsoring' },
  { path: '/exact/evm/permit2-erc20ApprovalGasSponsoring' },
  { path: '/upto/evm/permit2', settle: '1000' },
  { path: '/upto/evm/permit2-eip2612GasSponsoring', settle: '1000' },
  { path: '/upto/evm/permit2-erc20ApprovalGasSponsoring', settle: '1000' },
]

let svc: SvcProcess
beforeAll(async () => {
  svc = await startSvcProcess()
}, 60_000)
afterAll(async () => {
  await svc?.stop()
})

/** The settlement is on the chain and moved `amount` of svc's USDC to the server's payee. */
async function expectPaidOnChain(transaction: Hex, amount: string) {
  const chain = createPublicClient({ transport: http(svc.ready.rpc_url) })
  const receipt = await chain.getTransactionReceipt({ hash: transaction })
  expect(receipt.status).toBe('success')
  const transfers = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs })
  expect(transfers).toContainEqual(
    expect.objectContaining({
      address: svc.ready.usdc.toLowerCase(),
      args: expect.objectContaining({ to: payTo, value: BigInt(amount) }),
    }),
  )
}

describe.each(['express', 'hono'] as const)("x402's %s e2e server on svc's facilitator", (serverName) => {
  let server: RunningServer
  let buyer: { key: Hex; address: string }
  const pay = (client: 'fetch' | 'axios', path: string, key: Hex) =>
    runClient(client, {
      RESOURCE_SERVER_URL: server.url,
      ENDPOINT_PATH: path,
      privateKey: key,
      rpcUrl: svc.ready.rpc_url,
      network: svc.ready.network,
    })

  beforeAll(async () => {
    server = await startServer(serverName, {
      facilitatorUrl: svc.ready.facilitator_url,
      network: svc.ready.network,
      payTo,
      usdc: svc.ready.usdc,
      rpcUrl: svc.ready.rpc_url,
      port: await freePort(),
    })
    // As x402's harness does (e2e/scripts/permit2-approval.ts) before its Permit2 routes: the buyer approved Permit2.
    buyer = await fundedBuyer(svc.ready.chain_manager_url, { approvePermit2: true })
  }, 60_000)
  afterAll(async () => {
    await server?.stop()
  })

  const matrix = (['fetch', 'axios'] as const).flatMap((client) => routes.map((route) => ({ client, ...route })))
  test.each(matrix)('$client × $path', { timeout: 60_000 }, async ({ client, path, settle }) => {
    const result = await pay(client, path, buyer.key)
    expect(result, result.error).toMatchObject({
      success: true,
      status_code: 200,
      data: { message: expect.stringMatching(/endpoint accessed successfully$/) },
      payment_response: { success: true, network: 'eip155:845320402', payer: buyer.address },
    })
    if (settle) expect(result.payment_response!.amount).toBe(settle)
    await expectPaidOnChain(result.payment_response!.transaction as Hex, settle ?? '1000')
  })

  test('a buyer without a Permit2 approval pays the EIP-2612 route with the permit svc sponsors', {
    timeout: 60_000,
  }, async () => {
    const fresh = await fundedBuyer(svc.ready.chain_manager_url)
    const result = await pay('fetch', '/exact/evm/permit2-eip2612GasSponsoring', fresh.key)
    expect(result, result.error).toMatchObject({ success: true, payment_response: { payer: fresh.address } })
    await expectPaidOnChain(result.payment_response!.transaction as Hex, '1000')
  })

  // The buyer has neither a Permit2 approval nor a use for EIP-2612 (the route declares erc20ApprovalGasSponsoring
  // only), signs an approve() and svc's facilitator sends it in the settlement.
  test('erc20ApprovalGasSponsoring: a buyer without an approval pays exact and upto', async () => {
    const fresh = await fundedBuyer(svc.ready.chain_manager_url)
    for (const [path, amount] of [
      ['/exact/evm/permit2-erc20ApprovalGasSponsoring', '1000'],
      ['/upto/evm/permit2-erc20ApprovalGasSponsoring', '1000'],
    ] as const) {
      const result = await pay('fetch', path, fresh.key)
      expect(result, result.error).toMatchObject({ success: true, payment_response: { payer: fresh.address } })
      await expectPaidOnChain(result.payment_response!.transaction as Hex, amount)
    }
  })
})
