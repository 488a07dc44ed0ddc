/**
 * The API page's pure parts: which requests are a person's browser, and how accept options read in words.
 */
import { describe, expect, test } from 'vitest'
import type { ApiRow, EndpointRow } from '../../../server/db/tables.js'
import { buildApiPageModel } from '../../../server/gateway/api-page/api-page-model.js'
import { isBrowserRequest } from '../../../server/gateway/paywall/browser-request.js'
import { escapeHtml } from '../../../server/gateway/api-page/render-api-page.js'

describe('isBrowserRequest', () => {
  test.each([
    [{ accept: 'text/html,*/*;q=0.8', 'user-agent': 'Mozilla/5.0 (X11) Firefox/133.0' }, true],
    [{ accept: 'text/html', 'user-agent': 'curl/8.5.0' }, false],
    [{ accept: 'application/json', 'user-agent': 'Mozilla/5.0' }, false],
    [{ accept: '*/*', 'user-agent': 'Mozilla/5.0' }, false],
    [{ 'user-agent': 'Mozilla/5.0' }, false],
    [{}, false],
  ])('%j → %s', (headers, expected) => expect(isBrowserRequest(headers)).toBe(expected))
})

const api = { name: 'A', environment: 'development', discovery_guidance: null } as ApiRow
const endpoint = (accepts: unknown[], fields: Partial<EndpointRow> = {}): EndpointRow =>
  ({
    method: 'GET',
    path_pattern: '/a/{id}/*',
    accepts: JSON.stringify(accepts),
    request_schema: null,
    response_schema: null,
    schema_source: 'manual',
    description: null,
    ...fields,
  }) as EndpointRow
const isUsdc = (network: string, asset: string) => asset === 'usdc' && network !== 'eip155:1'

describe('buildApiPageModel', () => {
  test('prices in words: USDC in dollars, upto as a maximum, other tokens in atomic units, twins and upfront named', () => {
    const model = buildApiPageModel({
      api,
      isUsdc,
      endpoints: [
        endpoint([
          { scheme: 'exact', network: 'eip155:845320402', asset: 'usdc', amount: '1500000' },
          { scheme: 'upto', network: 'eip155:84532', asset: 'usdc', amount: '1', extra: { paymentFlow: 'upfront' } },
          {
            scheme: 'exact',
            network: 'eip155:1',
            asset: '0xToken',
            amount: '42',
            extra: { assetTransferMethod: 'permit2' },
          },
        ]),
      ],
    })
    expect(model.endpoints[0]!.prices).toEqual([
      {
        scheme: 'exact',
        amount: '$1.50',
        asset: 'USDC',
        network: 'eip155:845320402',
        networkName: 'svc Sandbox',
        transferMethod: 'EIP-3009',
        upfront: false,
      },
      {
        scheme: 'upto',
        amount: 'up to $0.000001',
        asset: 'USDC',
        network: 'eip155:84532',
        networkName: 'base-sepolia twin',
        transferMethod: 'Permit2',
        upfront: true,
      },
      {
        scheme: 'exact',
        amount: '42 atomic units',
        asset: '0xToken',
        network: 'eip155:1',
        networkName: 'eip155:1',
        transferMethod: 'Permit2',
        upfront: false,
      },
    ])
  })

  test('the try-it template and parameters: a catch-all named as OpenAPI names it; schemas pretty, absent ones null', () => {
    const [page] = buildApiPageModel({
      api,
      isUsdc,
      endpoints: [endpoint([], { method: 'POST', response_schema: '{"type":"object"}' })],
    }).endpoints
    expect(page).toMatchObject({
      template: '/a/{id}/{path}',
      parameters: [
        { name: 'id', catchAll: false },
        { name: 'path', catchAll: true },
      ],
      takesBody: true,
      requestSchema: null,
      responseSchema: '{\n  "type": "object"\n}',
    })
  })

  test('escapeHtml leaves no markup', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    )
  })
})
