import { describe, expect, test } from 'vitest'
import { createSandboxState } from '../../../server/sandbox/payment-gate.js'

describe('the gate of paid requests (server/sandbox/payment-gate.ts)', () => {
  test('a pause waits for the payments under way; payments that start meanwhile wait until it ends', async () => {
    const state = createSandboxState()
    const leave = await state.enterPayment()
    const order: string[] = []
    const paused = state.pausePayments({ waitMs: 5_000 }).then((resume) => (order.push('paused'), resume))
    const later = state.enterPayment().then((leaveLater) => (order.push('later payment'), leaveLater))
    await new Promise((resolve) => setImmediate(resolve))
    expect(order).toEqual([])
    leave()
    const resume = await paused
    await new Promise((resolve) => setImmediate(resolve))
    expect(order).toEqual(['paused'])
    resume()
    ;(await later)()
    expect(order).toEqual(['paused', 'later payment'])
    expect(state.paymentsInFlight).toBe(0)
  })

  test('payments still under way after waitMs refuse the pause (409) and the gate opens again', async () => {
    const state = createSandboxState()
    const leave = await state.enterPayment()
    await expect(state.pausePayments({ waitMs: 20 })).rejects.toMatchObject({
      status: 409,
      message: '1 payment is still in flight after 0.02 s: try again when it is done',
    })
    const other = await state.enterPayment()
    expect(state.paymentsInFlight).toBe(2)
    leave()
    other()
  })

  test('whole-sandbox changes run one at a time; flush and reset reach every participant', async () => {
    const state = createSandboxState()
    const seen: string[] = []
    const unregister = state.register({
      flush: async () => void seen.push('flush'),
      reset: () => void seen.push('reset'),
    })
    let release!: () => void
    const first = state.exclusive(() =>
      new Promise<void>((resolve) => (release = resolve)).then(() => void seen.push('first')),
    )
    const second = state.exclusive(async () => void seen.push('second'))
    await new Promise((resolve) => setImmediate(resolve))
    expect(seen).toEqual([])
    release()
    await Promise.all([first, second])
    await state.flush()
    state.reset()
    unregister()
    state.reset()
    expect(seen).toEqual(['first', 'second', 'flush', 'reset'])
  })
})
