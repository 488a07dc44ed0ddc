import { directGatewayBase } from '../core/hosts.js'

/**
 * The ready line: the one JSON line `svc up --json` prints on stdout once svc is ready (and `svc up --detach` and
 * `svc status --json` print with more keys). Each key with what it holds, in the line's order: the reference page
 * docs/reference/ready-line.md is made from these lists, and test/cli/up.test.ts checks a real line has these keys.
 */
export const readyLineFields = [
  ['control_url', 'the production control plane (`svc_live_` keys): `http://api.localhost:PORT`'],
  ['sandbox_control_url', 'the Sandbox control plane (`svc_sandbox_` keys): `http://sandbox.localhost:PORT`'],
  ['platform_domain', "the production APIs' domain: an API's gateway is `http://{slug}.localhost:PORT`"],
  ['sandbox_platform_domain', "the Sandbox APIs' domain: an API's gateway is `http://{slug}.dev.localhost:PORT`"],
  ['gateway_port', "the gateway's port, also the control planes' (`--port`; 4020 unless given)"],
  [
    'direct_gateway_base',
    '`http://127.0.0.1:PORT/gateway`: any gateway host is also at `{direct_gateway_base}/{gateway host}`, a URL with no name to resolve (Python, Go, curl without `*.localhost`)',
  ],
  ['rpc_url', "the Sandbox chain's JSON-RPC (Anvil)"],
  [
    'facilitator_url',
    "the Sandbox chain's x402 facilitator: `/supported`, `/verify`, `/settle`, `/discovery/resources`",
  ],
  ['chain_manager_url', 'the chain manager: `POST /faucet {"address": "0x…"}` funds an address with ETH and USDC'],
  ['chain_id', "the Sandbox chain's id: `845320402`"],
  ['network', 'the Sandbox network (CAIP-2), as x402 names it: `eip155:845320402`'],
  ['usdc', 'the Sandbox USDC\'s address (EIP-3009, 6 decimals, EIP-712 name "USDC", version "2")'],
  [
    'twins',
    'one object per `--twin` (`name`, `network`, `chain_id`, `rpc_url`, `usdc`): a local twin of a public chain; `[]` without `--twin`',
  ],
  [
    'data_dir',
    "svc's data directory (database, per-install secrets, the chain's state); with `--ephemeral` a temporary one, removed on exit",
  ],
] as const satisfies readonly (readonly [string, string])[]

/**
 * The keys a ready line has in some modes only, after or around {@link readyLineFields}: `[key, where, what]`.
 * `svc up --detach` prints the ready line, `seed`, then `name`, `pid`, `log`, `buyer`; `svc status --json` prints
 * `name`, `status`, `pid`, `log`, the ready line, `seed`, `buyer`, `env`.
 */
export const readyLineModeFields = [
  ['seed', 'with `--seed`', "what the seed made: the seller's account and session, its new keys, its APIs (below)"],
  [
    'name',
    '`svc up --detach`, `svc status --json`',
    'the name `svc status` and `svc down` know the sandbox by (`--name`)',
  ],
  ['status', '`svc status --json`', '`running`'],
  ['pid', '`svc up --detach`, `svc status --json`', "the detached svc's process id"],
  ['log', '`svc up --detach`, `svc status --json`', "the detached svc's log file (its stderr)"],
  [
    'buyer',
    '`svc up --detach`, `svc status --json`',
    "a new buyer funded with 10 ETH and 1000 USDC: `address` and `private_key` (never the seeded seller's pay-to)",
  ],
  ['env', '`svc status --json`', 'the environment `svc status --env` exports and `svc exec` sets, name → value'],
] as const satisfies readonly (readonly [string, string, string])[]

/** The keys of the ready line's `seed` (sdk/seed.ts `SeedResult`), each with what it holds. */
export const readyLineSeedFields = [
  ['seed.email', "the seed's seller account's email"],
  ['seed.password', 'its password (`svc login`)'],
  ['seed.jwt', "the seller's session JWT (the CLI reads it as `SVC_JWT`)"],
  ['seed.keys', "one object per key of the seed's `keys`: `name`, `environment`, and `key`"],
  ['seed.keys[].key', 'the secret of a key this run made (shown once); a key that existed already has none'],
  [
    'seed.apis',
    "one object per API of the seed's `apis`: `slug`, `environment`, `gateway_url`, `direct_url`, `created`, `endpoints_created`",
  ],
  ['seed.apis[].gateway_url', "the API's gateway: `http://{slug}.dev.localhost:PORT` for a Sandbox API"],
  [
    'seed.apis[].direct_url',
    'the same gateway at `http://127.0.0.1:PORT/gateway/{gateway host}`, with no name to resolve',
  ],
  ['seed.apis[].created', 'whether this run made the API (`false`: it existed, from an earlier run on the same data)'],
  ['seed.apis[].endpoints_created', 'how many of its endpoints this run added'],
] as const satisfies readonly (readonly [string, string])[]

/** A twin in the ready line (chain/twin.ts `TwinInfo`'s public part). */
export type ReadyTwin = { name: string; network: string; chain_id: number; rpc_url: string; usdc: string }

/** `svc up --json`'s ready line: {@link readyLineFields}' keys. */
export type ReadyLine = {
  control_url: string
  sandbox_control_url: string
  platform_domain: string
  sandbox_platform_domain: string
  gateway_port: number
  direct_gateway_base: string
  rpc_url: string
  facilitator_url: string
  chain_manager_url: string
  chain_id: number
  network: string
  usdc: string
  twins: ReadyTwin[]
  data_dir: string
}

/** What {@link readyLine} reads of a running svc (`startSvc({ mode: 'up' })`'s answer). */
export type ReadySvc = {
  server: {
    controlUrl: string
    sandboxControlUrl: string
    hosts: { platformDomain: string; sandboxPlatformDomain: string }
    port: number
    dataDir: string
  }
  chain: {
    rpcUrl: string
    facilitatorUrl: string
    chainManagerUrl: string
    sandboxChain: { chainId: number; network: string; usdc: { address: string } }
    twins: { describe(): ReadyTwin }[]
  }
}

/** The ready line of a running svc. */
export function readyLine({ chain, server }: ReadySvc): ReadyLine {
  return {
    control_url: server.controlUrl,
    sandbox_control_url: server.sandboxControlUrl,
    platform_domain: server.hosts.platformDomain,
    sandbox_platform_domain: server.hosts.sandboxPlatformDomain,
    gateway_port: server.port,
    // A gateway host's URL with no name to resolve is `${direct_gateway_base}/{host}` (server/app.ts).
    direct_gateway_base: directGatewayBase(server.port),
    rpc_url: chain.rpcUrl,
    facilitator_url: chain.facilitatorUrl,
    chain_manager_url: chain.chainManagerUrl,
    chain_id: chain.sandboxChain.chainId,
    network: chain.sandboxChain.network,
    usdc: chain.sandboxChain.usdc.address,
    twins: chain.twins.map((twin) => {
      const { name, network, chain_id, rpc_url, usdc } = twin.describe()
      return { name, network, chain_id, rpc_url, usdc }
    }),
    data_dir: server.dataDir,
  }
}
