import { describe, expect, test, vi } from 'vitest'
import { createPaymentEvents } from '../../server/payment-events.js'

describe('payment events: who wants them', () => {
  test('nobody listened: not wanted; a listener: wanted; after it leaves, wanted for the grace only', async () => {
    const events = createPaymentEvents({ graceMs: 300 })
    expect(events.wanted('usr_a')).toBe(false)
    const stop = events.subscribe('usr_a', () => {})
    expect(events.wanted('usr_a')).toBe(true)
    expect(events.wanted('usr_b')).toBe(false)
    stop()
    // A client that reconnects within the grace gets what it missed: events are still built.
    expect(events.wanted('usr_a')).toBe(true)
    await vi.waitFor(() => expect(events.wanted('usr_a')).toBe(false), { timeout: 5_000, interval: 50 })
  })
})
