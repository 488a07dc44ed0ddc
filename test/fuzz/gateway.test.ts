import fc from 'fast-check'
import { afterAll, beforeAll, test } from 'vitest'
import { localFetch } from '../../sdk/local-fetch.js'
import {
  addEndpoint,
  createApi,
  newSeller,
  sandboxAccept,
  signedPaymentFor,
  startGatewayStack,
  type GatewayStack,
} from '../server/gateway/helpers.js'
import {
  answerOf,
  expectClean,
  fuzz,
  mutationsOf,
  nastyJson,
  nastyString,
  percentEncoded,
  printable,
  type Answer,
} from './fuzz-kit.js'

let stack: GatewayStack | undefined
/** The gateway origin of the fuzzed API, and of a slug no API has. */
let gateway: string
let unknownGateway: string
/** A valid payment for `GET /weather/Lima`, decoded. */
let payment: Record<string, unknown>

beforeAll(async () => {
  stack = await startGatewayStack()
  const { services, t, upstream, buyer } = stack
  const seller = await newSeller(t)
  const api = await createApi(t, seller, upstream.url)
  await addEndpoint(t, seller, api.id, {
    method: 'GET',
    path_pattern: '/weather/{city}',
    accepts: [sandboxAccept(services)],
  })
  await addEndpoint(t, seller, api.id, {
    method: 'POST',
    path_pattern: '/echo',
    accepts: [sandboxAccept(services)],
    ttl: 3600,
  })
  gateway = api.gateway
  unknownGateway = t.gatewayUrl(`nobody-${process.pid}`)
  payment = JSON.parse(
    Buffer.from(await signedPaymentFor(services, buyer, `${gateway}/weather/Lima`), 'base64').toString('utf8'),
  )
})
afterAll(() => stack?.stop())

type Request = {
  origin: 'api' | 'unknown'
  method: string
  path: string
  headers: Record<string, string>
  body?: string
}

const base64 = (text: string) => Buffer.from(text).toString('base64')
const paid = (signature: string, path = '/weather/Lima'): Request => ({
  origin: 'api',
  method: 'GET',
  path,
  headers: { 'payment-signature': signature },
})

/** Header values no well-behaved client sends: garbage base64, broken JSON, the right JSON in the wrong shape. */
const garbageSignature = fc.oneof(
  printable(200),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes).toString('base64')),
  fc.constantFrom(
    '',
    '=',
    '====',
    'e30',
    'e30=',
    'W10=',
    'bnVsbA==',
    base64('{"x402Version":'),
    base64('{"x402Version":2,"accepted":{},"payload":{}}'),
  ),
  fc.constantFrom(2_000, 8_000).map((length) => 'A'.repeat(length)),
)

/** Paths of the gateway host: priced, unpriced, discovery documents, encoded and dot segments, hostile strings. */
const paths = fc.oneof(
  fc.constantFrom(
    '/weather/Lima',
    '/weather/',
    '/weather/%2e%2e/echo',
    '/echo',
    '/',
    '/.well-known/x402',
    '/openapi.json',
    '/weather/Lima/extra',
    '/%',
    '/weather/%ff',
    '//weather//Lima',
  ),
  nastyString.filter((text) => text.length < 2_000).map((text) => `/weather/${percentEncoded(text)}`),
  printable(40).map((text) => `/${encodeURIComponent(text)}?${encodeURIComponent(text)}=${encodeURIComponent(text)}`),
)

/** Headers a buyer may send besides the payment. */
const extraHeaders = fc.dictionary(
  fc.constantFrom(
    'x-payment',
    'content-type',
    'accept',
    'x-forwarded-for',
    'x-svc-via-gateway',
    'x-svc-environment',
    'authorization',
    'cookie',
    'x-anything',
  ),
  printable(100),
  { maxKeys: 3 },
)

const requests = (): fc.Arbitrary<Request> =>
  fc.oneof(
    { weight: 6, arbitrary: mutationsOf(payment).map((mutated) => paid(base64(JSON.stringify(mutated)))) },
    { weight: 1, arbitrary: nastyJson.map((value) => paid(base64(JSON.stringify(value) ?? 'undefined'))) },
    { weight: 2, arbitrary: garbageSignature.map((signature) => paid(signature)) },
    {
      weight: 2,
      arbitrary: fc
        .record({
          method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH'),
          path: paths,
          headers: extraHeaders,
          body: fc.option(printable(200), { nil: undefined }),
        })
        .map(
          ({ method, path, headers, body }): Request => ({
            origin: 'api',
            method,
            path,
            headers,
            body: method === 'GET' || method === 'HEAD' ? undefined : body,
          }),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(paths, garbageSignature)
        .map(([path, signature]): Request => ({ ...paid(signature, path), origin: 'unknown' })),
    },
  )

async function send(request: Request): Promise<Answer> {
  const origin = request.origin === 'api' ? gateway : unknownGateway
  const response = await localFetch(`${origin}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    redirect: 'manual',
  })
  return answerOf(response, request.method)
}

const planned = 3_000

test(`${planned} hostile requests to the gateway: no 5xx, every error JSON {"error"} (402s with the PaymentRequired), bounded`, async () => {
  const report = await fuzz(requests(), send, { runs: planned })
  expectClean('gateway', report, planned)
}, 120_000)
