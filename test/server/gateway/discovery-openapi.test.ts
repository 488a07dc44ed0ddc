/** The pure builders of the gateway discovery documents (server/gateway/discovery-openapi.ts). */
import { Validator } from '@seriousme/openapi-schema-validator'
import { expect, test, describe } from 'vitest'
import type { ApiRow, EndpointRow } from '../../../server/db/tables.js'
import {
  buildOpenApiDocument,
  buildWellKnown,
  paymentInfo,
  usdcDollars,
} from '../../../server/gateway/discovery-openapi.js'

describe('document builders', () => {
  test('usdcDollars: 6 decimals, at least 2 shown', () => {
    expect(['1', '10000', '100000', '1000000', '1500000', '123456789', '100000000000'].map(usdcDollars)).toEqual([
      '0.000001',
      '0.01',
      '0.10',
      '1.00',
      '1.50',
      '123.456789',
      '100000.00',
    ])
  })

  test('paymentInfo: only USDC accepts give a price; none → protocols only', () => {
    const isUsdc = (network: string, asset: string) => network === 'eip155:8453' && asset === 'usdc'
    expect(
      paymentInfo(
        [
          { network: 'eip155:8453', asset: 'usdc', amount: '50000' },
          { network: 'eip155:1', asset: 'weth', amount: '7' },
        ],
        isUsdc,
      ),
    ).toEqual({
      price: { mode: 'fixed', currency: 'USD', amount: '0.05' },
      protocols: [{ x402: {} }],
    })
    expect(paymentInfo([{ network: 'eip155:1', asset: 'weth', amount: '7' }], isUsdc)).toEqual({
      protocols: [{ x402: {} }],
    })
  })

  test('endpoints whose paths differ only in parameter names: the first one is listed', async () => {
    const api = { name: 'X', openapi_version: '1.0.0', discovery_guidance: null } as ApiRow
    const row = (method: string, path_pattern: string) =>
      ({
        method,
        path_pattern,
        accepts: JSON.stringify([{ network: 'n', asset: 'a', amount: '1' }]),
        request_schema: null,
        response_schema: null,
        description: null,
      }) as EndpointRow
    const input = {
      api,
      origin: 'http://h.example:1',
      contactEmail: null,
      isUsdc: () => false,
      endpoints: [row('GET', '/a/{x}'), row('GET', '/a/{y}'), row('POST', '/a/{x}'), row('HEAD', '/a/*')],
    }
    const document = buildOpenApiDocument(input)
    expect(Object.keys(document.paths)).toEqual(['/a/{x}'])
    expect(Object.keys(document.paths['/a/{x}']!)).toEqual(['get', 'post'])
    expect(buildWellKnown(input)).toEqual({ version: 1, resources: ['http://h.example:1/a/{x}'] })
    const validator = new Validator()
    expect(await validator.validate(document)).toEqual({ valid: true })
    expect(validator.version).toBe('3.1')
  })
})
