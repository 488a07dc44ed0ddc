/**
 * Faucet calls in flight while Anvil is killed (issue 35.1): svc starts the chain again, and nothing it sent to the
 * old chain is left in the new one's pool (mints queued with the old chain's nonces would never mine, or mine much
 * later as surprise mints); every sender's nonce is read again from the chain. A faucet call answers 200 only when its
 * money is on the chain that is there now, else a retryable 503.
 */
import type { Address } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { ChainRestartInfo } from '../../chain/sandbox-chain.js'
import { startChainServices, type ChainServices } from '../../chain/services.js'
import { newAccount, postJson, sandboxRequirements, signPayment } from '../helpers/payments.js'

let services: ChainServices
beforeAll(async () => {
  services = await startChainServices({ healthIntervalMs: 100 })
})
afterAll(() => services?.stop())

type Answer = { address: Address; status: number; retryAfter: string | null; body: string; seenAt: number }

const amountBase = 3_000_000n
const faucet = async (address: Address): Promise<Answer> => {
  const response = await fetch(`${services.chainManagerUrl}/faucet`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ address, asset: 'usdc', amount: '3' }),
  })
  const body = await response.text()
  return { address, status: response.status, retryAfter: response.headers.get('retry-after'), body, seenAt: Date.now() }
}

const usdcOf = async (address: Address) => BigInt((await services.manager.balances(address)).usdc_base)

/** svc's own senders: the minter and the relayers. */
const senders = () =>
  new Set(
    [services.sandboxChain.accounts.minter, ...services.sandboxChain.accounts.relayers].map((account) =>
      account.address.toLowerCase(),
    ),
  )

/** The transactions of svc's senders in the pool of the chain there now, by sender, as `pending:nonce` / `queued:nonce`. */
async function svcPool(): Promise<string[]> {
  const content = (await services.sandboxChain.client.request({ method: 'txpool_content' as never })) as Record<
    'pending' | 'queued',
    Record<string, Record<string, unknown>>
  >
  const ours = senders()
  const found: string[] = []
  for (const kind of ['pending', 'queued'] as const)
    for (const [sender, byNonce] of Object.entries(content[kind]))
      if (ours.has(sender.toLowerCase()))
        for (const nonce of Object.keys(byNonce)) found.push(`${kind}:${sender}:${nonce}`)
  return found
}

describe('faucet calls while Anvil is killed', () => {
  test('32 calls in flight across two kills: nothing of the old chain left in the pool, every 200 funded on the chain there now, the rest 503 with Retry-After', {
    timeout: 120_000,
  }, async () => {
    const answers: Answer[] = []
    let stop = false
    // 32 callers, each with one call in flight at a time, a new address each call.
    const callers = Array.from({ length: 32 }, async () => {
      while (!stop) {
        const answer = await faucet(newAccount().address)
        answers.push(answer)
        if (answer.status !== 200) await new Promise((resolve) => setTimeout(resolve, 20))
      }
    })
    const answeredSince = (count: number) => {
      const before = answers.length
      return expect.poll(() => answers.length - before, { timeout: 60_000, interval: 20 }).toBeGreaterThanOrEqual(count)
    }

    let lastRestartAt = 0
    let lastKillAt = 0
    // Each chain's nonces well ahead of what the next one's reach before the test ends: a mint or a gap filler with
    // the old chain's nonce left in the new one's pool would stay there.
    await answeredSince(160)
    for (const after of [160, 16]) {
      const restarted = new Promise<ChainRestartInfo>((resolve) => services.sandboxChain.once('restart', resolve))
      lastKillAt = Date.now()
      process.kill(services.sandboxChain.pid!, 'SIGKILL')
      await restarted
      lastRestartAt = Date.now()
      // The calls keep going on the new chain.
      await answeredSince(after)
    }
    stop = true
    await Promise.all(callers)

    // Once things settle, no transaction of svc's senders waits in the pool (a stale nonce's would wait for ever).
    await expect.poll(svcPool, { timeout: 15_000, interval: 200 }).toEqual([])

    // Every answer is a 200, or a 503 with Retry-After. One answered after the last kill: 200 when its money is on
    // the chain there now, 503 when it is not. Calls answered before the kill funded the old chain (gone with it):
    // none of that money reaches the new one later.
    const wrong: string[] = []
    for (const answer of answers) {
      const balance = await usdcOf(answer.address)
      const when = `${answer.seenAt - lastKillAt} ms after the last kill`
      const settledAfterKill = answer.seenAt > lastRestartAt || (answer.seenAt > lastKillAt && answer.status === 503)
      if (answer.status !== 200 && (answer.status !== 503 || !/^\d+$/.test(answer.retryAfter ?? '')))
        wrong.push(`${answer.status} ${when}, Retry-After ${answer.retryAfter}: ${answer.body}`)
      else if (balance !== 0n && (balance !== amountBase || answer.status !== 200))
        wrong.push(`${answer.status} ${when}, ${balance} on chain`)
      else if (settledAfterKill && answer.status === 200 && balance !== amountBase)
        wrong.push(`200 ${when}, nothing on chain`)
    }
    expect(wrong).toEqual([])
    expect(answers.filter((a) => a.seenAt > lastRestartAt && a.status === 200).length).toBeGreaterThan(0)

    // Every sender's next transaction mines: the minter's (a faucet call) and a relayer's (a settlement).
    const after = newAccount()
    expect((await faucet(after.address)).status).toBe(200)
    expect(await usdcOf(after.address)).toBe(amountBase)
    const requirements = sandboxRequirements(services.sandboxChain, { payTo: newAccount().address })
    const payload = await signPayment(services.sandboxChain, after, requirements)
    const settled = await postJson(`${services.facilitatorUrl}/settle`, {
      x402Version: 2,
      paymentPayload: payload,
      paymentRequirements: requirements,
    })
    expect(settled.body).toMatchObject({ success: true })
    expect(await svcPool()).toEqual([])
  })
})
