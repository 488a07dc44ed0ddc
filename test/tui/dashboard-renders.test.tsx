/**
 * An idle dashboard draws nothing (issue 9, item 10: 5–11% of a core while idle). Every state change of an Ink app
 * renders the whole tree and writes a frame; the polls and the clock now change state only when what they show moves.
 * ink-testing-library renders in debug mode, one frame per render, so frames count renders.
 */
import { Text } from 'ink'
import { cleanup, render } from 'ink-testing-library'
import { afterEach, expect, test } from 'vitest'
import { useClock } from '../../tui/hooks/use-clock.js'
import { usePoll } from '../../tui/hooks/use-poll.js'

afterEach(() => cleanup())

test('a poll that finds the same data again renders nothing; an inactive clock never ticks', async () => {
  let loads = 0
  let value = 1
  function Probe() {
    // A new object on every load, equal to the last: what a JSON answer is.
    const poll = usePoll(async () => (loads++, { value }), { periodMs: 5, describe: String })
    const now = useClock({ periodMs: 5, active: false })
    return <Text>{`${poll.data?.value ?? '-'} ${now > 0}`}</Text>
  }
  const { lastFrame, frames } = render(<Probe />)
  await expect.poll(lastFrame).toBe('1 true')
  const drawn = frames.length
  // Forty loads (and as many clock periods) later: not one frame more.
  await expect.poll(() => loads).toBeGreaterThanOrEqual(40)
  expect(frames.length).toBe(drawn)
  value = 2
  await expect.poll(lastFrame).toBe('2 true')
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
  const { rerender } = render(<Probe wake={1} />)
  // The live poll's 60 loads take 300 ms or more; the other one stopped asking after its 40 ms.
  await expect.poll(() => loads.live).toBeGreaterThanOrEqual(60)
  const idleLoads = loads.idle
  expect(idleLoads).toBeGreaterThanOrEqual(1)
  expect(idleLoads).toBeLessThanOrEqual(12)
  rerender(<Probe wake={2} />)
  await expect.poll(() => loads.idle).toBeGreaterThan(idleLoads)
})

test('an active clock ticks; switched off, it stops', async () => {
  let polls = 0
  function Probe({ active }: { active: boolean }) {
    const now = useClock({ periodMs: 5, active })
    // A poll that never changes: it only measures time in periods.
    usePoll(async () => void polls++, { periodMs: 5, idlePeriodMs: 5, describe: String })
    return <Text>{String(now)}</Text>
  }
  const { frames, rerender } = render(<Probe active />)
  await expect.poll(() => frames.length).toBeGreaterThanOrEqual(5)
  rerender(<Probe active={false} />)
  const from = polls
  await expect.poll(() => polls).toBeGreaterThanOrEqual(from + 5)
  const stopped = frames.length
  await expect.poll(() => polls).toBeGreaterThanOrEqual(from + 25)
  expect(frames.length).toBe(stopped)
})
