import { expect, test } from 'vitest'
import { createFaultBook } from '../../../chain/faults/book.js'

test('take: the oldest fault of the kind for the API or every API; its strikes counted, gone when used up', async () => {
  const book = createFaultBook()
  let changes = 0
  book.onChange(() => changes++)
  const weather = await book.add({ kind: 'verify', reason: 'invalid_exact_evm_signature', api: 'weather', times: 1 })
  const every = await book.add({ kind: 'verify', reason: 'invalid_exact_evm_insufficient_balance', times: 2 })
  await book.add({ kind: 'upstream', drop: true })

  // The facilitator (no API known) only meets faults of every API.
  expect((await book.take('verify'))?.id).toBe(every.id)
  // The gateway meets the API's own first (it is older), then every API's.
  expect(await book.take('verify', 'weather')).toMatchObject({ id: weather.id, hits: 1, remaining: 0 })
  expect(await book.take('verify', 'weather')).toMatchObject({ id: every.id, hits: 2, remaining: 0 })
  expect(await book.take('verify', 'weather')).toBeUndefined()
  expect(await book.take('settle', 'weather')).toBeUndefined()
  expect((await book.list()).map((fault) => fault.kind)).toEqual(['upstream'])
  expect(await book.take('upstream', 'other')).toMatchObject({ drop: true, remaining: null, hits: 1 })
  expect(await book.list()).toHaveLength(1)
  expect(changes).toBe(3 + 4)
})

test('clear: one by id, or all; an unknown id clears nothing', async () => {
  const book = createFaultBook()
  const first = await book.add({ kind: 'settle', delayMs: 100 })
  await book.add({ kind: 'upstream', status: 503 })
  expect(await book.clear('flt_none')).toBe(0)
  expect(await book.clear(first.id)).toBe(1)
  expect(await book.clear()).toBe(1)
  expect(await book.list()).toEqual([])
})
