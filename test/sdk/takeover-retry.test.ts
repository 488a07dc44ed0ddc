/**
 * connectSandbox()'s buyer.fetch through a takeover of the shared chain (sdk/takeover-retry.ts), answer by answer:
 * what it waits out, what it sends again, and what it hands back as it came. The paying fetch is a scripted one here;
 * test/cli/serve-team.test.ts runs the real takeover.
 */
import { encodePaymentRequiredHeader } from '@x402/core/http'
import { describe, expect, test } from 'vitest'
import { retryTakeover } from '../../sdk/takeover-retry.js'

const dropped = () => new TypeError('fetch failed', { cause: { code: 'UND_ERR_SOCKET' } })
const refused = (error: string) =>
  new Response('{}', {
    status: 402,
    headers: {
      'payment-required': encodePaymentRequiredHeader({
        x402Version: 2,
        error,
        resource: { url: 'http://x.dev.localhost/quote', description: '', mimeType: 'application/json' },
        accepts: [],
      }),
    },
  })

/** A paying fetch that answers `script` in order (a function throws), and counts its calls. */
function scripted(script: (Response | (() => never))[]) {
  const calls: string[] = []
  const pay = (async (input: Parameters<typeof fetch>[0]) => {
    calls.push(String(input))
    const next = script.shift()
    if (!next) throw new Error('nothing left in the script')
    return typeof next === 'function' ? next() : next
  }) as typeof fetch
  return { pay, calls }
}

describe('buyer.fetch through a takeover of the shared chain', () => {
  test('a 503 with Retry-After is asked again after it; a 503 without one, or past the wait, is answered', async () => {
    const waited = scripted([new Response(null, { status: 503, headers: { 'retry-after': '0' } }), new Response('ok')])
    expect((await retryTakeover(waited.pay, { refund: async () => {} })('http://a/')).status).toBe(200)
    expect(waited.calls).toHaveLength(2)
    const plain = scripted([new Response(null, { status: 503 })])
    expect((await retryTakeover(plain.pay, { refund: async () => {} })('http://a/')).status).toBe(503)
    const long = scripted([new Response(null, { status: 503, headers: { 'retry-after': '5' } })])
    expect((await retryTakeover(long.pay, { refund: async () => {}, unavailableMs: 1_000 })('http://a/')).status).toBe(
      503,
    )
  })

  test('a payment refused for the balance is paid again once after a refund; another refusal is answered as it came', async () => {
    let refunds = 0
    const refund = async () => void refunds++
    const poor = scripted([refused('invalid_exact_evm_insufficient_balance'), new Response('ok')])
    expect((await retryTakeover(poor.pay, { refund })('http://a/')).status).toBe(200)
    expect(refunds).toBe(1)
    const still = scripted([
      refused('invalid_exact_evm_insufficient_balance'),
      refused('invalid_exact_evm_insufficient_balance'),
    ])
    expect((await retryTakeover(still.pay, { refund })('http://a/')).status).toBe(402)
    expect(refunds).toBe(2)
    const other = scripted([refused('invalid_exact_evm_payload_signature')])
    expect((await retryTakeover(other.pay, { refund })('http://a/')).status).toBe(402)
    expect(refunds).toBe(2)
  })

  test('a request whose connection dropped is sent again once; a second drop, or any other error, is thrown', async () => {
    const once = scripted([
      () => {
        throw dropped()
      },
      new Response('ok'),
    ])
    expect((await retryTakeover(once.pay, { refund: async () => {} })('http://a/')).status).toBe(200)
    const twice = scripted([
      () => {
        throw dropped()
      },
      () => {
        throw dropped()
      },
    ])
    await expect(retryTakeover(twice.pay, { refund: async () => {} })('http://a/')).rejects.toThrow('fetch failed')
    const other = scripted([
      () => {
        throw new Error('Failed to create payment payload')
      },
    ])
    await expect(retryTakeover(other.pay, { refund: async () => {} })('http://a/')).rejects.toThrow(/payload/)
    expect(other.calls).toHaveLength(1)
  })
})
