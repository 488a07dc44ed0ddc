/**
 * An idle dashboard draws nothing (issue 9, item 10: 5–11% of a core while idle). Every state change of an Ink app
 * renders the whole tree and writes a frame; the polls and the clock now change state only when what they show moves.
 * ink-testing-library renders in debug mode, one frame per render, so frames count renders. The hooks' timers (and
 * `Date`) are fake: time moves only when the test moves it, so the counts are exact on any machine.
 */
import { Text } from 'ink'
import { cleanup, render } from 'ink-testing-library'
import { act } from 'react'
import { afterEach, beforeEach, expect, test, vi } from 'vitest'
import { useClock } from '../../tui/hooks/use-clock.js'
import { usePoll } from '../../tui/hooks/use-poll.js'

// React flushes the renders a test's act() caused before act() returns (none is left for a later macrotask).
;(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] })
})
afterEach(async () => {
  await act(async () => cleanup())
  vi.useRealTimers()
})

/** Moves the fake clock `ms` forward, running each timer due, the promises it settles and the renders they cause. */
const elapse = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms))

test('a poll that finds the same data again renders nothing; an inactive clock never ticks', async () => {
  let loads = 0
  let value = 1
  function Probe() {
    // A new object on every load, equal to the last: what a JSON answer is.
    const poll = usePoll(async () => (loads++, { value }), { periodMs: 5, describe: String })
    const now = useClock({ periodMs: 5, active: false })
    return <Text>{`${poll.data?.value ?? '-'} ${now > 0}`}</Text>
  }
  const { lastFrame, frames } = await act(async () => render(<Probe />))
  await elapse(0)
  expect([loads, lastFrame()]).toEqual([1, '1 true'])
  const drawn = frames.length
  // Forty loads (and as many clock periods) later: not one frame more.
  await elapse(200)
  expect(loads).toBe(41)
  expect(frames.length).toBe(drawn)
  value = 2
  await elapse(5)
  expect(lastFrame()).toBe('2 true')
  expect(frames.length).toBe(drawn + 1)
})

test('without a change for liveMs a poll slows to idlePeriodMs; a change of `wake` loads at once', async () => {
  const loads = { live: 0, idle: 0 }
  function Probe({ wake }: { wake: number }) {
    usePoll(async () => void loads.live++, { periodMs: 5, describe: String })
    usePoll(async () => (loads.idle++, 'same'), {
      periodMs: 5,
      idlePeriodMs: 60_000,
      liveMs: 40,
      wake,
      describe: String,
    })
    return <Text>probe</Text>
  }
  const { rerender } = await act(async () => render(<Probe wake={1} />))
  await elapse(300)
  // The live poll loads every 5 ms; the other one at 0, 5, … 40 ms, then its period is a minute.
  expect(loads).toEqual({ live: 61, idle: 9 })
  await elapse(59_000)
  expect(loads.idle).toBe(9)
  await act(async () => rerender(<Probe wake={2} />))
  await elapse(0)
  expect(loads.idle).toBe(10)
  // Live again: every 5 ms.
  await elapse(5)
  expect(loads.idle).toBe(11)
})

test('an active clock ticks; switched off, it stops', async () => {
  function Probe({ active }: { active: boolean }) {
    const now = useClock({ periodMs: 5, active })
    return <Text>{String(now)}</Text>
  }
  const { frames, rerender } = await act(async () => render(<Probe active />))
  await elapse(0)
  const start = frames.length
  for (let tick = 1; tick <= 5; tick++) {
    await elapse(5)
    expect(frames.length).toBe(start + tick)
  }
  await act(async () => rerender(<Probe active={false} />))
  await elapse(0)
  const stopped = frames.length
  await elapse(1_000)
  expect(frames.length).toBe(stopped)
})
