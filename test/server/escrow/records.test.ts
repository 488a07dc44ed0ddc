/**
 * server/escrow/records.ts's state machine without a database (the escrow's own arithmetic: authorize holds, capture
 * moves capturable to refundable, void and reclaim release the hold, refund takes from refundable; the state derived
 * from the amounts) and action-recovery.ts's decision: which undelivered hold recovery voids. The same steps through
 * the database, once each, are test/server/db/escrow.test.ts's.
 */
import { describe, expect, test } from 'vitest'
import { advanceEscrow, escrowStateOf, voidsUndeliveredHold } from '../../../server/escrow/index.js'

const zero = {
  authorized: '0',
  captured: '0',
  fees: '0',
  voided: '0',
  refunded: '0',
  reclaimed: '0',
  capturable: '0',
  refundable: '0',
}
type Amounts = typeof zero & { flow: 'escrow' | 'authorization' }

/** Runs steps from nothing, answering the amounts and state after each. */
function run(flow: Amounts['flow'], steps: [kind: string, amount: string, fee?: string][]) {
  let current: Amounts & { state?: string } = { ...zero, flow }
  return steps.map(([kind, amount, feeAmount]) => {
    current = { ...current, ...advanceEscrow(current, { kind: kind as never, amount, feeAmount }) }
    return current
  })
}

describe('the escrow state machine', () => {
  test('authorize → partial capture → void → refund → refund the rest', () => {
    const [held, captured, voided, refunded, all] = run('escrow', [
      ['authorize', '10000'],
      ['capture', '6000', '60'],
      ['void', '4000'],
      ['refund', '2000'],
      ['refund', '4000'],
    ])
    expect(held).toMatchObject({ authorized: '10000', capturable: '10000', state: 'authorized' })
    expect(captured).toMatchObject({ captured: '6000', fees: '60', capturable: '4000', refundable: '6000' })
    expect(captured?.state).toBe('authorized')
    expect(voided).toMatchObject({ voided: '4000', capturable: '0', state: 'captured' })
    expect(refunded).toMatchObject({ refunded: '2000', refundable: '4000', state: 'captured' })
    expect(all).toMatchObject({ refunded: '6000', refundable: '0', state: 'refunded' })
  })

  test('a full capture, a void of a whole hold, a reclaim, a charge', () => {
    expect(
      run('escrow', [
        ['authorize', '5'],
        ['capture', '5'],
      ]).at(-1),
    ).toMatchObject({
      capturable: '0',
      state: 'captured',
    })
    expect(
      run('escrow', [
        ['authorize', '5'],
        ['void', '5'],
      ]).at(-1),
    ).toMatchObject({ voided: '5', state: 'voided' })
    expect(
      run('escrow', [
        ['authorize', '5'],
        ['reclaim', '5'],
      ]).at(-1),
    ).toMatchObject({
      reclaimed: '5',
      capturable: '0',
      state: 'reclaimed',
    })
    // A partial capture, then the buyer reclaims the rest after the capture deadline: what was captured stays.
    expect(
      run('escrow', [
        ['authorize', '5'],
        ['capture', '2'],
        ['reclaim', '3'],
      ]).at(-1),
    ).toMatchObject({
      captured: '2',
      reclaimed: '3',
      state: 'captured',
    })
    const [charged, refunded] = run('authorization', [
      ['charge', '7', '1'],
      ['refund', '7'],
    ])
    expect(charged).toMatchObject({ authorized: '7', captured: '7', fees: '1', refundable: '7', state: 'charged' })
    expect(refunded).toMatchObject({ refunded: '7', state: 'refunded' })
  })

  test('the state comes from the amounts alone (so records rebuilt from the chain agree)', () => {
    expect(escrowStateOf({ ...zero, flow: 'escrow' })).toBe('authorized')
    expect(escrowStateOf({ ...zero, flow: 'escrow', capturable: '1', captured: '1' })).toBe('authorized')
    expect(escrowStateOf({ ...zero, flow: 'escrow', captured: '3', refunded: '1' })).toBe('captured')
    expect(escrowStateOf({ ...zero, flow: 'authorization', captured: '3', refunded: '1' })).toBe('charged')
  })
})

describe("recovery's decision on a hold whose answer was never given", () => {
  const sync = { flow: 'escrow', capture_mode: 'sync', delivered: 0 } as const
  test('a sync hold still holding is voided', () => {
    expect(voidsUndeliveredHold(sync, { capturableAmount: 10n })).toBe(true)
  })
  test('a deferred hold stays authorized (the seller decides); so does an answered one; nothing held, nothing to void', () => {
    expect(voidsUndeliveredHold({ ...sync, capture_mode: 'deferred' }, { capturableAmount: 10n })).toBe(false)
    expect(voidsUndeliveredHold({ ...sync, delivered: 1 }, { capturableAmount: 10n })).toBe(false)
    expect(voidsUndeliveredHold(sync, { capturableAmount: 0n })).toBe(false)
    expect(
      voidsUndeliveredHold({ flow: 'authorization', capture_mode: null, delivered: 0 }, { capturableAmount: 0n }),
    ).toBe(false)
  })
})
