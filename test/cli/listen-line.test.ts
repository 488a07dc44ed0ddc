import { expect, test } from 'vitest'
import { usdcAddress } from '../../core/sandbox-usdc.js'
import type { PaymentEvent } from '../../sdk/types.js'
import { eventLine } from '../../cli/commands/listen.js'
import { paymentEvent } from '../helpers/payment-events.js'

const event = (overrides: Partial<PaymentEvent>): PaymentEvent =>
  paymentEvent({
    created_at: '2026-11-22T21:40:01.123Z',
    amount: '10000',
    asset: usdcAddress,
    network: 'eip155:845320402',
    pay_to: '0x000000000000000000000000000000000000bEEF',
    ...overrides,
  })

test('one line an event: time, type, request, price, and what became of it', () => {
  expect(eventLine(event({}))).toBe('21:40:01.123  payment.required  weather GET /weather/paris  0.01 USDC')
  expect(
    eventLine(
      event({
        type: 'payment.settled',
        status: 200,
        payer: '0x1234567890abcdef1234567890abcdef12345678',
        transaction: `0x${'ab'.repeat(32)}`,
        charged: true,
      }),
    ),
  ).toBe('21:40:01.123  payment.settled   weather GET /weather/paris  0.01 USDC  from 0x123456…5678 tx 0xababab…abab')
  expect(eventLine(event({ type: 'payment.failed', reason: 'invalid_exact_evm_signature' }))).toBe(
    '21:40:01.123  payment.failed    weather GET /weather/paris  0.01 USDC  402 invalid_exact_evm_signature',
  )
  expect(
    eventLine(
      event({ type: 'upstream.failed', status: 502, error: 'the upstream answered 503; the payment was not settled' }),
    ),
  ).toBe(
    '21:40:01.123  upstream.failed   weather GET /weather/paris  0.01 USDC  502, not charged: the upstream answered 503; the payment was not settled',
  )
  // Upfront: the settlement came before the upstream failed.
  expect(
    eventLine(
      event({
        type: 'upstream.failed',
        status: 502,
        charged: true,
        transaction: `0x${'ab'.repeat(32)}`,
        error: 'the upstream answered 503',
      }),
    ),
  ).toBe(
    '21:40:01.123  upstream.failed   weather GET /weather/paris  0.01 USDC  502, charged upfront (tx 0xababab…abab), not delivered: the upstream answered 503',
  )
})

test('a whole-Sandbox event is one line: time, type, who did it, what', () => {
  const sandbox = {
    id: 'evt_2',
    created_at: '2026-11-22T21:40:01.123Z',
    environment: 'development',
    actor: 'admin',
    snapshot_id: null,
    seconds: null,
  } as const
  expect(eventLine({ ...sandbox, type: 'sandbox.reverted', snapshot_id: 'snap_1' })).toBe(
    '21:40:01.123  sandbox.reverted  by admin  to snapshot snap_1',
  )
  expect(eventLine({ ...sandbox, type: 'sandbox.time_advanced', seconds: 3600 })).toBe(
    '21:40:01.123  sandbox.time_advanced  by admin  by 3600 s',
  )
  expect(eventLine({ ...sandbox, type: 'sandbox.chain_restarted', actor: 'local' })).toBe(
    '21:40:01.123  sandbox.chain_restarted  by local',
  )
})

test('an escrow event (auth-capture) is one line: what the step moved, what it did, the payment and its state', () => {
  const escrow = (type: PaymentEvent['type'], part: Partial<NonNullable<PaymentEvent['escrow']>>) =>
    eventLine(
      event({
        type,
        status: 200,
        payer: '0x1234567890abcdef1234567890abcdef12345678',
        transaction: `0x${'ab'.repeat(32)}`,
        escrow: {
          id: 'esc_1',
          payment_info_hash: `0x${'cd'.repeat(32)}`,
          state: 'authorized',
          moved: '10000',
          captured: '0',
          refunded: '0',
          ...part,
        },
      }),
    )
  expect(escrow('payment.authorized', {})).toBe(
    '21:40:01.123  payment.authorized  weather GET /weather/paris  0.01 USDC  held from 0x123456…5678 (esc_1, authorized) tx 0xababab…abab',
  )
  expect(escrow('payment.captured', { moved: '6000', captured: '6000' })).toBe(
    '21:40:01.123  payment.captured  weather GET /weather/paris  0.006 USDC  captured 0.006 in all (esc_1, authorized) tx 0xababab…abab',
  )
  expect(escrow('payment.voided', { moved: '4000', captured: '6000', state: 'captured' })).toBe(
    '21:40:01.123  payment.voided    weather GET /weather/paris  0.004 USDC  released to the buyer (esc_1, captured) tx 0xababab…abab',
  )
  expect(escrow('payment.refunded', { moved: '2000', captured: '6000', refunded: '2000', state: 'captured' })).toBe(
    '21:40:01.123  payment.refunded  weather GET /weather/paris  0.002 USDC  refunded 0.002 in all (esc_1, captured) tx 0xababab…abab',
  )
  expect(escrow('payment.reclaimed', { state: 'reclaimed' })).toBe(
    '21:40:01.123  payment.reclaimed  weather GET /weather/paris  0.01 USDC  reclaimed by the buyer (esc_1, reclaimed) tx 0xababab…abab',
  )
})
