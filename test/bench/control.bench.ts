import { Pool } from 'undici'
import { startSvcProcess } from '../helpers/svc-process.js'
import { percentile, round } from './pool.js'

type Load = { requests: number; concurrency: number }

/**
 * Requests per second of authenticated control-plane calls, against `svc up` in its own process (as users run it),
 * from a keep-alive client pool in this process. Each request is checked for its expected status.
 */
export async function benchControlPlane({ requests = 4000, concurrency = 32 }: Partial<Load> = {}) {
  const svc = await startSvcProcess()
  const port = svc.ready.gateway_port as number
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: concurrency, pipelining: 1 })
  const host = `api.localhost:${port}`

  async function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
    const response = await pool.request({
      method: method as 'GET',
      path,
      headers: { host, ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await response.body.text()
    return { status: response.statusCode, body: text ? JSON.parse(text) : null }
  }

  async function measure(label: string, expectStatus: number, make: (i: number) => Promise<{ status: number }>) {
    // Warm up (on indexes of their own), then measure.
    for (let i = 0; i < 50; i++) await make(requests + i)
    const latencies: number[] = []
    let errors = 0
    let next = 0
    const started = performance.now()
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < requests) {
          const i = next++
          const t0 = performance.now()
          const { status } = await make(i)
          latencies.push(performance.now() - t0)
          if (status !== expectStatus) errors++
        }
      }),
    )
    const wallMs = performance.now() - started
    return {
      label,
      requests,
      concurrency,
      per_second: round((requests / wallMs) * 1000),
      p50_ms: round(percentile(latencies, 50), 2),
      p95_ms: round(percentile(latencies, 95), 2),
      errors,
    }
  }

  try {
    const signup = await call(
      'POST',
      '/auth/signup',
      {},
      { email: `bench-${Date.now()}@example.test`, password: 'benchmark password' },
    )
    const jwt = { authorization: `Bearer ${signup.body.token}` }
    const key = await call('POST', '/auth/api-keys', jwt, { name: 'bench', preset: 'apiManager' })
    const apiKey = { 'x-api-key': key.body.key }
    const api = await call('POST', '/apis', jwt, {
      name: 'Bench',
      slug: `bench-${Date.now()}`,
      upstream_base_url: 'http://127.0.0.1:9/',
      pay_to_mode: 'user_wallet',
      pay_to_address: '0x000000000000000000000000000000000000bEEF',
    })
    if (api.status !== 201)
      throw new Error(`bench setup: POST /apis answered ${api.status} ${JSON.stringify(api.body)}`)
    const accepts = [
      { scheme: 'exact', network: 'eip155:8453', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', amount: '10000' },
    ]
    const endpoint = (i: number, prefix: string) => ({
      method: 'POST',
      path_pattern: `/${prefix}/${i}`,
      accepts,
      request_schema: { type: 'object' },
      response_schema: { type: 'object' },
    })

    const results = [
      await measure('GET /apis (JWT)', 200, () => call('GET', '/apis', jwt)),
      await measure('GET /apis (API key)', 200, () => call('GET', '/apis', apiKey)),
      await measure('POST /apis/{id}/endpoints (JWT)', 201, (i) =>
        call('POST', `/apis/${api.body.id}/endpoints`, jwt, endpoint(i, 'jwt')),
      ),
      await measure('POST /apis/{id}/endpoints (API key)', 201, (i) =>
        call('POST', `/apis/${api.body.id}/endpoints`, apiKey, endpoint(i, 'key')),
      ),
    ]
    const reads = results.slice(0, 2)
    return { results, target_reads_per_second: 2000, pass: reads.every((r) => r.per_second >= 2000 && r.errors === 0) }
  } finally {
    await pool.close()
    await svc.stop()
  }
}
