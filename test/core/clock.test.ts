import { describe, expect, test } from 'vitest'
import { createClock, machineClock } from '../../core/clock.js'

describe("svc's clock (core/clock.ts)", () => {
  test("is the machine's time plus an offset that can be moved", () => {
    let machine = 1_800_000_000_000
    const clock = createClock({ machineNow: () => machine })
    expect([clock.now(), clock.offsetMs, clock.nowSeconds()]).toEqual([1_800_000_000_000, 0, 1_800_000_000])
    clock.setOffset(3_600_000)
    machine += 1_500
    expect(clock.now()).toBe(1_800_003_601_500)
    expect(clock.nowIso()).toBe(new Date(1_800_003_601_500).toISOString())
    expect(clock.nowSeconds()).toBe(1_800_003_601)
    expect(() => clock.setOffset(Number.NaN)).toThrow('a clock offset must be a finite number of milliseconds, got NaN')
  })

  test("the machine's clock never moves", () => {
    expect(machineClock.offsetMs).toBe(0)
    expect(() => machineClock.setOffset(1)).toThrow('the machine clock cannot be moved')
  })
})
