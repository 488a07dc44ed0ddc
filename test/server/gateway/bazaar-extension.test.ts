import { describe, expect, test } from 'vitest'
import { exampleOf } from '../../../server/payments/offer.js'

describe('exampleOf', () => {
  test('an example shaped like the schema, preferring the schema’s own examples', () => {
    expect(
      exampleOf({
        type: 'object',
        properties: {
          city: { type: 'string' },
          temp: { type: 'number' },
          ok: { type: 'boolean' },
          tags: { type: 'array', items: { type: 'string' } },
          unit: { enum: ['C', 'F'] },
          station: { type: 'object', properties: { id: { type: 'string', example: 'PAR' } } },
          note: { type: ['string', 'null'] },
        },
      }),
    ).toEqual({
      city: 'string',
      temp: 1,
      ok: true,
      tags: ['string'],
      unit: 'C',
      station: { id: 'PAR' },
      note: 'string',
    })
    expect(exampleOf({})).toEqual({})
    expect(exampleOf({ examples: [{ a: 1 }] })).toEqual({ a: 1 })
  })
})
