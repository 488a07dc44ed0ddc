/**
 * Test helpers for discovery documents and custom domains: a real DNS server on loopback (dns2) answering TXT
 * records from a map the test controls, a fetch that reaches `*.localhost` and chosen custom hostnames on
 * 127.0.0.1, and the origin audit of `@agentcash/discovery` (what its CLI `discover` reports) run through that fetch.
 */
import type { AddressInfo } from 'node:net'
import dns2 from 'dns2'
import { Agent, fetch as undiciFetch } from 'undici'
import {
  checkEndpointSchema,
  checkL2ForOpenAPI,
  checkL4ForOpenAPI,
  getOpenAPI,
  getWarningsForFavicon,
  getWarningsForL2,
  getWarningsForL3,
  getWarningsForL4,
  getWarningsForOpenAPI,
  isOpenApiParseFailure,
  type AuditWarning,
} from '@agentcash/discovery'
import { localhostLookup } from '../../sdk/local-fetch.js'

const { Packet } = dns2

export type TestDns = {
  /** `127.0.0.1:PORT`, for startTestServer({ dnsServers: [...] }). */
  server: string
  /** TXT values by record name; a value that is an array is sent as several character-strings of one record. */
  txt: Map<string, (string | string[])[]>
  /** Names queried, in order. */
  queries: string[]
  close(): Promise<void>
}

/** A UDP DNS server on 127.0.0.1 (a free port): TXT answers from `txt`, an empty NOERROR answer otherwise. */
export async function startTestDns(): Promise<TestDns> {
  const txt = new Map<string, (string | string[])[]>()
  const queries: string[] = []
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request)
      for (const question of request.questions) {
        const name = question.name.toLowerCase().replace(/\.$/, '')
        queries.push(name)
        if (question.type !== Packet.TYPE.TXT) continue
        for (const data of txt.get(name) ?? [])
          response.answers.push({
            name: question.name,
            type: Packet.TYPE.TXT,
            class: Packet.CLASS.IN,
            ttl: 0,
            data,
          } as never)
      }
      void send(response)
    },
  })
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } })
  const port = (addresses.udp as AddressInfo).port
  return { server: `127.0.0.1:${port}`, txt, queries, close: () => server.close() }
}

/** fetch that resolves `*.localhost` and the given hostnames to 127.0.0.1 (custom domains of a test). */
export function hostFetch(hostnames: Iterable<string>): typeof globalThis.fetch {
  const mapped = new Set([...hostnames].map((name) => name.toLowerCase()))
  const lookup = (hostname: string, options: { all?: boolean }, callback: (...args: any[]) => void) => {
    if (!mapped.has(hostname.toLowerCase())) return localhostLookup(hostname, options as never, callback)
    if (options?.all) callback(null, [{ address: '127.0.0.1', family: 4 }])
    else callback(null, '127.0.0.1', 4)
  }
  const dispatcher = new Agent({ connect: { lookup: lookup as never } })
  return ((input: any, init?: any) => undiciFetch(input, { ...init, dispatcher })) as unknown as typeof globalThis.fetch
}

/**
 * The checks `@agentcash/discovery`'s CLI runs on an origin (`discovery <origin>`): the OpenAPI source, the route
 * list (L2), the guidance (L4), each route's detail (L3) and the favicon. It fetches with the global fetch, so the
 * global is swapped for `fetchImpl` meanwhile. The CLI's live 402 probe of each paid route is left out: it checks
 * the paid routes' 402 bodies, not the discovery documents.
 */
export async function auditOrigin(origin: string, fetchImpl: typeof globalThis.fetch) {
  const realFetch = globalThis.fetch
  globalThis.fetch = fetchImpl
  try {
    const source = await getOpenAPI(origin)
    const openApi = source.isOk() ? source.value : null
    const warnings: AuditWarning[] = [...getWarningsForOpenAPI(openApi)]
    const favicon = await getWarningsForFavicon(origin)
    if (favicon.isOk()) warnings.push(...favicon.value)
    if (!openApi || isOpenApiParseFailure(openApi)) return { found: false, warnings }
    const l2 = checkL2ForOpenAPI(openApi)
    warnings.push(...getWarningsForL2(l2), ...getWarningsForL4(checkL4ForOpenAPI(openApi)))
    for (const route of l2.routes) {
      const detail = await checkEndpointSchema({ url: `${origin}${route.path}` })
      warnings.push(
        ...(detail.found
          ? detail.advisories.flatMap((advisory) => getWarningsForL3(advisory))
          : getWarningsForL3(null)),
      )
    }
    return { found: true, warnings, routes: l2.routes }
  } finally {
    globalThis.fetch = realFetch
  }
}
