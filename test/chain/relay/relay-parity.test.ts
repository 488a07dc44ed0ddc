/**
 * The two settlement paths (chain/relay/mode.ts) pay the same way: the same paid requests, made with the official
 * @x402/fetch client through svc's gateway, leave the same ledger and the same chain on the tuned relay and on the
 * plain viem one.
 */
import { decodePaymentResponseHeader } from '@x402/core/http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { parseAbiItem, parseEventLogs, type Hash } from 'viem'
import type { Relay } from '../../../chain/relay/mode.js'
import { newAccount } from '../../helpers/payments.js'
import {
  addEndpoint,
  createApi,
  newSeller,
  payingFetch,
  sandboxAccept,
  startGatewayStack,
  usdcBalance,
  type GatewayStack,
} from '../../server/gateway/helpers.js'

const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')

/** Two payments one after the other, then 3 buyers × 4 at once, then one from a buyer without USDC. */
async function payTheSameWay(stack: GatewayStack) {
  const { services, t, upstream, buyer } = stack
  const chain = services.sandboxChain
  const seller = await newSeller(t)
  const api = await createApi(t, seller, upstream.url)
  await addEndpoint(t, seller, api.id, {
    method: 'GET',
    path_pattern: '/weather/{city}',
    accepts: [sandboxAccept(services, '25000')],
  })
  const buyers = [newAccount(), newAccount(), newAccount()]
  for (const each of buyers) await services.manager.fund(each.address, 'usdc', '1')
  const broke = newAccount()

  const pay = async (who: typeof buyer, city: string) => {
    const response = await payingFetch(services, who)(`${api.gateway}/weather/${city}`)
    const header = response.headers.get('payment-response')
    return {
      status: response.status,
      body: await response.text(),
      settled: header ? decodePaymentResponseHeader(header) : undefined,
    }
  }
  const answers = [await pay(buyer, 'Paris'), await pay(buyer, 'Lyon')]
  answers.push(...(await Promise.all(buyers.flatMap((each, b) => [0, 1, 2, 3].map((i) => pay(each, `c${b}-${i}`))))))
  const refused = await pay(broke, 'Nice').catch((error: Error) => ({
    status: 0,
    body: error.message,
    settled: undefined,
  }))

  const hashes = answers.map((answer) => answer.settled?.transaction as Hash)
  const receipts = await Promise.all(hashes.map((hash) => chain.client.getTransactionReceipt({ hash })))
  const transactions = await Promise.all(hashes.map((hash) => chain.client.getTransaction({ hash })))
  const settlements = await t.server.database.db
    .selectFrom('settlements')
    .select(['amount', 'payer', 'pay_to', 'transaction', 'path'])
    .where('api_id', '=', api.id)
    .execute()
  return {
    chain,
    transactions,
    outcome: {
      statuses: answers.map((answer) => answer.status),
      settledOk: answers.map((answer) => answer.settled?.success),
      refused: refused.status,
      distinctTransactions: new Set(hashes).size,
      receipts: receipts.map((receipt) => receipt.status),
      // One USDC Transfer per settlement transaction, of the price, to the seller.
      transfers: receipts.map((receipt) =>
        parseEventLogs({ abi: [transferEvent], logs: receipt.logs }).map((log) => [
          log.args.to === seller.payTo,
          log.args.value,
        ]),
      ),
      ledger: {
        rows: settlements.length,
        amounts: [...new Set(settlements.map((row) => row.amount))],
        payTo: settlements.every((row) => row.pay_to === seller.payTo),
        transactionsMatchAnswers:
          new Set(settlements.map((row) => row.transaction)).size === hashes.length &&
          settlements.every((row) => hashes.includes(row.transaction as Hash)),
      },
      sellerBalance: await usdcBalance(services, seller.payTo),
      buyerBalances: await Promise.all(buyers.map((each) => usdcBalance(services, each.address))),
      brokeBalance: await usdcBalance(services, broke.address),
    },
  }
}

const runs = new Map<Relay, Awaited<ReturnType<typeof payTheSameWay>>>()
const stacks: GatewayStack[] = []
beforeAll(async () => {
  // One stack at a time: the machine's cores go to the one being measured.
  for (const relay of ['tuned', 'viem'] as const) {
    const stack = await startGatewayStack({ chain: { relay } })
    stacks.push(stack)
    runs.set(relay, await payTheSameWay(stack))
    await stacks.pop()!.stop()
  }
}, 120_000)
afterAll(async () => {
  await Promise.all(stacks.map((stack) => stack.stop()))
})

describe('relay: tuned and relay: viem', () => {
  test('the same payments leave the same ledger and chain', () => {
    const tuned = runs.get('tuned')!.outcome
    expect(tuned).toEqual(runs.get('viem')!.outcome)
    expect(tuned).toMatchObject({
      statuses: Array(14).fill(200),
      settledOk: Array(14).fill(true),
      distinctTransactions: 14,
      receipts: Array(14).fill('success'),
      transfers: Array(14).fill([[true, 25_000n]]),
      ledger: { rows: 14, amounts: ['25000'], payTo: true, transactionsMatchAnswers: true },
      sellerBalance: 14n * 25_000n,
      buyerBalances: Array(3).fill(1_000_000n - 4n * 25_000n),
      brokeBalance: 0n,
    })
    expect(tuned.refused).not.toBe(200)
  })

  test('each path sends from its own relayers: the tuned pool, the one viem account', () => {
    const tuned = runs.get('tuned')!
    const pool = tuned.chain.accounts.relayers.map((account) => account.address.toLowerCase())
    expect(tuned.transactions.every((tx) => pool.includes(tx.from.toLowerCase()))).toBe(true)
    const viem = runs.get('viem')!
    expect(new Set(viem.transactions.map((tx) => tx.from.toLowerCase()))).toEqual(
      new Set([viem.chain.accounts.relayer.address.toLowerCase()]),
    )
    expect(viem.chain.relay).toBe('viem')
  })
})
