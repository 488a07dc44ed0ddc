/**
 * The control plane's routes are the contract's paths (server/openapi.yaml), both ways: a route added without its
 * operation in the contract fails here, and so does an operation whose route is gone. The routes are read from the
 * real express routers (createControlRouter, createApp) built on a real SQLite file, never called: express keeps
 * every `router.get(…)` as a layer, which this walks.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Request, Router } from 'express'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createBazaarCatalog } from '../../../chain/facilitator/bazaar-catalog.js'
import { createBazaarRoutes } from '../../../chain/facilitator/index.js'
import { defaultHosts } from '../../../core/hosts.js'
import { createApp } from '../../../server/app.js'
import { createControlRouter } from '../../../server/control/index.js'
import { loadInstallSecrets } from '../../../server/data-dir/secrets.js'
import { type OpenedDatabase, openDatabase } from '../../../server/db/database.js'
import type { ServerDeps } from '../../../server/deps.js'
import { publicBazaarPath } from '../../../server/sandbox/index.js'
import { isHealthRequest } from '../../../server/serve/index.js'
import { operationsOf, readContract } from '../../docs/reference/api.js'

/**
 * Routes the control plane serves that the contract leaves out on purpose, as `METHOD /path` (`{name}` for a
 * parameter), each with why. Empty today: every control-plane route is in the contract. What is not a control-plane
 * route is not walked and needs no line here:
 * - the gateway hosts (`{slug}.localhost`, `{slug}.dev.localhost`, verified custom domains) and the direct URLs
 *   (`/gateway/{host}/…` on a bare IP): the sellers' own paid routes, and their discovery documents;
 * - `/_svc/cluster/*` (server/cluster/cluster-routes.ts): the routes by which a team Sandbox's processes reach the
 *   chain's owner, before the host routing, answered only with the cluster secret;
 * - the Sandbox facilitator, the faucet and Anvil, each on its own loopback listener (their URLs are in the ready line).
 */
const notInContract: Record<string, string> = {}

/**
 * Operations of the contract whose routes are not served yet, each landing with the work that serves it. issue 39
 * WP5: the escrow payments' routes (server/control/payments.ts), in the contract ahead of them so every package of
 * the issue builds on one set of types; WP5 removes these lines as it mounts them.
 */
const notYetRouted: string[] = []

/**
 * The contract's operations answered in server/app.ts before any router (on the control hosts and a bare IP):
 * isHealthRequest says which. HEAD is answered too, as for every GET.
 */
const answeredByApp = ['GET /healthz', 'GET /readyz']

/**
 * Middleware mounted at a path whose routes express cannot see, and the router that holds them: `/dev/bazaar` builds
 * the Sandbox facilitator's bazaar routes (chain/facilitator/bazaar-routes.ts) for whichever catalog the chain has.
 */
const mounted: Record<string, () => Router> = {
  [publicBazaarPath]: () => createBazaarRoutes(createBazaarCatalog()),
}

type Layer = {
  route?: { path: string; methods: Record<string, boolean> }
  handle: { stack?: Layer[] }
  slash?: boolean
  rawPath?: unknown
}

/**
 * Every route of a router and of the routers under it, as `METHOD /path` with `:name` written `{name}`. A route of
 * `router.all` is `ALL /path`. A middleware mounted at a path that is neither a router nor in `mounted` is an error.
 */
function routesOf(router: { stack: Layer[] }, prefix = ''): string[] {
  return router.stack.flatMap((layer): string[] => {
    const at = layer.slash === false ? `${prefix}${String(layer.rawPath)}` : prefix
    if (layer.route) {
      const path = `${prefix}${layer.route.path}`.replace(/:(\w+)/g, '{$1}')
      return Object.keys(layer.route.methods).map(
        (method) => `${method === '_all' ? 'ALL' : method.toUpperCase()} ${path}`,
      )
    }
    if (layer.handle.stack) return routesOf(layer.handle as { stack: Layer[] }, at)
    if (at === prefix) return [] // middleware for every path: parsers, authentication
    const inner = mounted[at.slice(prefix.length)]
    if (!inner) throw new Error(`a middleware mounted at ${at} hides its routes: add its router to \`mounted\``)
    return routesOf(inner() as unknown as { stack: Layer[] }, at)
  })
}

let dataDir: string
let database: OpenedDatabase
let routes: string[]

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'svc-routes-'))
  database = await openDatabase(join(dataDir, 'svc.db'))
  // What the routers read while they are made; the rest (the chain, the clock, …) only when a request comes.
  const deps = { db: database.db, secrets: loadInstallSecrets(dataDir), hosts: defaultHosts(0) } as ServerDeps
  const control = createControlRouter(deps)
  const app = await createApp(deps)
  routes = [...routesOf(control as unknown as { stack: Layer[] }), ...routesOf(app.router as { stack: Layer[] })]
})
afterAll(async () => {
  await database?.close()
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
})

const contract = operationsOf(readContract()).map((operation) => `${operation.method} ${operation.path}`)

test("every route of the control plane is an operation of the contract, and every operation a route's", () => {
  // `router.all` (the Sandbox chain's JSON-RPC at /dev/rpc) stands for the methods the contract gives its path.
  const all = routes.filter((route) => route.startsWith('ALL ')).map((route) => route.slice('ALL '.length))
  const served = new Set([...routes.filter((route) => !route.startsWith('ALL ')), ...answeredByApp, ...notYetRouted])
  for (const path of all) for (const operation of contract) if (operation.endsWith(` ${path}`)) served.add(operation)
  const documented = new Set([...contract, ...Object.keys(notInContract)])
  expect({
    'routes without their operation in server/openapi.yaml': [...served].filter((r) => !documented.has(r)).sort(),
    'operations of server/openapi.yaml (or notInContract lines) with no route': [...documented]
      .filter((operation) => !served.has(operation))
      .sort(),
  }).toEqual({
    'routes without their operation in server/openapi.yaml': [],
    'operations of server/openapi.yaml (or notInContract lines) with no route': [],
  })
  expect(
    all.filter((path) => !contract.some((operation) => operation.endsWith(` ${path}`))),
    'router.all paths with no operation in the contract',
  ).toEqual([])
})

test('the operations not routed yet are operations of the contract, and not routes yet', () => {
  for (const operation of notYetRouted) {
    expect(contract).toContain(operation)
    expect(routes).not.toContain(operation)
  }
})

test('the operations answered before the routers are the health routes, and no route of the contract', () => {
  for (const operation of answeredByApp) {
    const [method, path] = operation.split(' ')
    expect(isHealthRequest({ method, path } as Request), operation).toBe(true)
    expect(contract).toContain(operation)
    expect(routes).not.toContain(operation)
  }
})
