import fc from 'fast-check'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startChainServices, type ChainServices } from '../../chain/services.js'
import { newAccount, sandboxRequirements, signPayment } from '../helpers/payments.js'
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

let services: ChainServices
/** A valid `/verify` body: a signed payment and its requirements. */
let validPayment: { x402Version: number; paymentPayload: unknown; paymentRequirements: unknown }
const logged: string[] = []
const internalErrors = () => logged.filter((line) => line.startsWith('internal error'))

beforeAll(async () => {
  services = await startChainServices({ log: (line) => logged.push(line) })
  const buyer = newAccount()
  await services.manager.fund(buyer.address, 'usdc', '100')
  const requirements = sandboxRequirements(services.sandboxChain, { payTo: newAccount().address })
  validPayment = {
    x402Version: 2,
    paymentPayload: await signPayment(services.sandboxChain, buyer, requirements),
    paymentRequirements: requirements,
  }
})
afterAll(() => services?.stop())

type Request = { method: string; path: string; contentType: string; body: string | undefined }

const post = (path: string, value: unknown): Request => ({
  method: 'POST',
  path,
  contentType: 'application/json',
  body: JSON.stringify(value),
})

/** Bodies that are not JSON, or not declared as JSON, or too large for any service (over 1 MB). */
const brokenBodies = (paths: string[]) =>
  fc
    .tuple(
      fc.constantFrom(...paths),
      fc.oneof(printable(60), fc.constantFrom('{"x402Version":', '{"address":', '[', 'x'.repeat(1_100_000))),
      fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', ''),
    )
    .map(([path, body, contentType]): Request => ({ method: 'POST', path, contentType, body }))

/** Any method on known and unknown paths, with a query. */
const otherRoutes = (known: string[]) =>
  fc
    .tuple(
      fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
      fc.oneof(
        fc.constantFrom(...known),
        printable(30).map((path) => `/${encodeURIComponent(path)}`),
      ),
      printable(30),
    )
    .map(
      ([method, path, query]): Request => ({
        method,
        path: `${path}?q=${encodeURIComponent(query)}`,
        contentType: 'application/json',
        body: method === 'GET' || method === 'OPTIONS' ? undefined : '{}',
      }),
    )

/** Requests to the facilitator: mutated payments on /verify and /settle, any JSON, broken JSON, other routes. */
const facilitatorRequests = (): fc.Arbitrary<Request> => {
  const route = fc.constantFrom('/verify', '/settle')
  return fc.oneof(
    { weight: 8, arbitrary: fc.tuple(route, mutationsOf(validPayment)).map(([path, body]) => post(path, body)) },
    { weight: 2, arbitrary: fc.tuple(route, nastyJson).map(([path, body]) => post(path, body)) },
    { weight: 1, arbitrary: brokenBodies(['/verify', '/settle']) },
    { weight: 1, arbitrary: otherRoutes(['/supported', '/verify', '/settle', '/health', '/']) },
  )
}

/** Requests to the chain manager: mutated faucet and balance bodies, hostile addresses in the path, any JSON. */
const managerRequests = (): fc.Arbitrary<Request> => {
  const address = newAccount().address
  return fc.oneof(
    {
      weight: 4,
      arbitrary: mutationsOf({ address, asset: 'usdc', amount: '1.5' }).map((body) => post('/faucet', body)),
    },
    { weight: 2, arbitrary: mutationsOf({ address }).map((body) => post('/balances', body)) },
    {
      weight: 2,
      arbitrary: fc
        .oneof(
          nastyString.filter((text) => text.length < 2_000),
          fc.constant(address),
        )
        .map(
          (text): Request => ({
            method: 'GET',
            path: `/balances/${percentEncoded(text)}`,
            contentType: '',
            body: undefined,
          }),
        ),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constantFrom('/faucet', '/balances'), nastyJson).map(([path, body]) => post(path, body)),
    },
    { weight: 1, arbitrary: brokenBodies(['/faucet', '/balances']) },
    { weight: 1, arbitrary: otherRoutes(['/', '/chain', '/health', '/faucet', '/balances', `/balances/${address}`]) },
  )
}

const sendTo =
  (origin: () => string) =>
  async (request: Request): Promise<Answer> => {
    const headers: Record<string, string> = request.contentType ? { 'content-type': request.contentType } : {}
    const response = await fetch(`${origin()}${request.path}`, { method: request.method, headers, body: request.body })
    return answerOf(response, request.method)
  }

const facilitatorRuns = 3_000
const managerRuns = 1_500

test(`${facilitatorRuns} hostile requests to the facilitator: no 5xx, every error JSON {"error"}, bounded; nothing logged`, async () => {
  const report = await fuzz(
    facilitatorRequests(),
    sendTo(() => services.facilitatorUrl),
    { runs: facilitatorRuns },
  )
  expectClean('facilitator', report, facilitatorRuns)
  expect(internalErrors()).toEqual([])
}, 120_000)

test(`${managerRuns} hostile requests to the chain manager: no 5xx, every error JSON {"error"}, bounded; nothing logged`, async () => {
  const report = await fuzz(
    managerRequests(),
    sendTo(() => services.chainManagerUrl),
    { runs: managerRuns },
  )
  expectClean('chain manager', report, managerRuns)
  expect(internalErrors()).toEqual([])
}, 120_000)
