import type { Server } from 'node:http'
import type { ServeProcess } from './serve-process.js'

/** A seller of `svc serve` processes, signed up through one of them, and its Sandbox API `weather`. */
export type ServeSeller = {
  jwt: string
  apiId: string
  /** Authorization and environment: a request as this seller in the Sandbox. */
  headers: Record<string, string>
  /** POSTs `body` as JSON to `url` as this seller. */
  post(url: string, body: unknown): Promise<Response>
  /**
   * Adds a GET endpoint at `path` to the API through `svc`'s Sandbox control plane, taking `accept` (300 s to pay),
   * no request schema and an object answer; `extra` adds or replaces fields. The answer (201 when created).
   */
  addEndpoint(
    svc: ServeProcess,
    path: string,
    accept: { scheme: string; network: string; asset: string; amount: string },
    extra?: object,
  ): Promise<Response>
}

/**
 * Signs up `seller@pay.test` through `svc` with `fetchLocal` (a client of the server behind DNS: serve-process.ts's
 * fetchFrom) and creates the Sandbox API `weather` in front of `upstream` (listening on 127.0.0.3, the address the
 * processes allow with `--allow-upstream 127.0.0.3/32`), paying a fixed wallet.
 */
export async function signUpServeSeller(
  fetchLocal: typeof globalThis.fetch,
  svc: ServeProcess,
  upstream: Server,
): Promise<ServeSeller> {
  const signup = await fetchLocal(`${svc.ready.control_url}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'seller@pay.test', password: 'a-long-password' }),
  })
  const { token: jwt } = (await signup.json()) as { token: string }
  const headers = { authorization: `Bearer ${jwt}`, 'x-svc-environment': 'development' }
  const post = (url: string, body: unknown) =>
    fetchLocal(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })
  const api = await post(`${svc.ready.sandbox_control_url}/apis`, {
    name: 'Weather',
    slug: 'weather',
    upstream_base_url: `http://127.0.0.3:${(upstream.address() as { port: number }).port}`,
    pay_to_mode: 'user_wallet',
    pay_to_address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  })
  const { id: apiId } = (await api.json()) as { id: string }
  return {
    jwt,
    apiId,
    headers,
    post,
    addEndpoint: (at, path, accept, extra = {}) =>
      post(`${at.ready.sandbox_control_url}/apis/${apiId}/endpoints`, {
        method: 'GET',
        path_pattern: path,
        accepts: [{ ...accept, max_timeout_seconds: 300 }],
        request_schema: null,
        response_schema: { type: 'object' },
        ...extra,
      }),
  }
}
