/**
 * The sandbox seller's API that CLI, SDK and gateway tests pay: one call instead of the same `apis.create` (pay-to
 * 0x…bEEF from the seller's own wallet setting) and `endpoints.create` lines in every file.
 */
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import type { Api, Endpoint, EndpointInput } from '../../sdk/types.js'
import type { TestSandbox } from '../../sdk/testing.js'

/** Where the tests' APIs pay: nobody's key, so its balance is only what the tests paid it. */
export const testPayTo = '0x000000000000000000000000000000000000bEEF'

/** An exact accept of the sandbox USDC: `amount` atomic units (0.01 USDC unless told). */
export const sandboxExact = (sandbox: Pick<TestSandbox, 'network' | 'usdc'>, amount = '10000') => ({
  scheme: 'exact' as const,
  network: sandbox.network,
  asset: sandbox.usdc.address,
  amount,
})

/** An endpoint to create: GET and one `sandboxExact` accept unless told. */
export type SellerEndpoint = Omit<EndpointInput, 'method' | 'accepts'> &
  Partial<Pick<EndpointInput, 'method' | 'accepts'>>

/** `http://127.0.0.1:PORT` of a listening node server. */
export const serverUrl = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`

/**
 * Creates the sandbox seller's API `slug` (named `name`, else the slug) in front of `upstreamUrl`, and its
 * `endpoints` in order: the API, the endpoint records, and the API's gateway URL.
 */
export async function createSellerApi(
  sandbox: TestSandbox,
  options: { slug: string; name?: string; upstreamUrl: string; endpoints: SellerEndpoint[] },
): Promise<{ api: Api; endpoints: Endpoint[]; gatewayUrl: string }> {
  const { client } = sandbox.seller
  const api = await client.apis.create({
    name: options.name ?? options.slug,
    slug: options.slug,
    upstream_base_url: options.upstreamUrl,
    pay_to_mode: 'user_wallet',
    pay_to_address: testPayTo,
  })
  const endpoints: Endpoint[] = []
  for (const endpoint of options.endpoints)
    endpoints.push(
      await client.endpoints.create(api.id, { method: 'GET', accepts: [sandboxExact(sandbox)], ...endpoint }),
    )
  return { api, endpoints, gatewayUrl: sandbox.gatewayUrl(options.slug) }
}
