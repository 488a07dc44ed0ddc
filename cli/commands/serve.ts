import { homedir } from 'node:os'
import { join } from 'node:path'
import { type Command, InvalidArgumentError, Option } from 'commander'
import { defaultPort } from '../../core/hosts.js'
import { sandboxNetwork, usdcAddress } from '../../core/sandbox-usdc.js'
import type { StartSvcOptions } from '../../server/start/index.js'
import { portFromEnv, portNumber } from '../inputs.js'
import { firstSignal, stopWithin } from '../signals.js'

type ServeOptions = {
  json?: boolean
  host: string
  /** A number from the command line; SVC_PORT's text otherwise (commander does not parse a default). */
  port: number | string
  dataDir: string
  databaseUrl?: string
  platformDomain?: string
  sandboxPlatformDomain?: string
  facilitatorUrl?: string
  rpc: string[]
  rpcLogBlocks: number
  publicScheme?: string
  publicPort?: number
  trustProxy: string[]
  allowUpstream: string[]
  jwtSecretFile?: string
  walletKeyFile?: string
  offerReceiptKeyFile?: string
  adminTokenFile?: string
  sandboxChain: string
  advertiseUrl?: string
  drainTimeout: number
  autoVerify?: boolean
  dnsServers?: string
  relay: string
}

const seconds = (value: string): number => {
  if (!/^\d+(\.\d+)?$/.test(value)) throw new InvalidArgumentError('It must be a number of seconds.')
  return Number(value)
}
const blockCount = (value: string): number => {
  if (!/^[1-9][0-9]*$/.test(value)) throw new InvalidArgumentError('It must be a whole number of blocks above 0.')
  return Number(value)
}
const list = (env: string | undefined) => (env ?? '').split(',').filter((entry) => entry.trim() !== '')
const collect = (value: string, previous: string[]) => [...previous, value]

/**
 * `svc serve`: svc on a server, behind a load balancer: a bind address, platform domains, trusted proxies, secrets from
 * files or the environment, an admin token for the whole-sandbox routes, /healthz and /readyz, and a drain on
 * SIGTERM (stop accepting, finish what is in flight within --drain-timeout, exit 0; a second signal exits at once).
 */
export function registerServe(program: Command, env: NodeJS.ProcessEnv) {
  program
    .command('serve')
    .description('run svc as a server, behind a load balancer, on SQLite or PostgreSQL (--database-url)')
    .option('--json', 'print exactly one JSON line when ready')
    .option('--host <address>', 'address to listen on, e.g. 0.0.0.0 (SVC_HOST)', env.SVC_HOST ?? '127.0.0.1')
    .addOption(
      new Option('--port <port>', 'port to listen on (SVC_PORT)')
        .argParser(portNumber)
        .default(env.SVC_PORT ?? defaultPort),
    )
    .option(
      '--data-dir <dir>',
      'the lock, the chain state, secrets not given (SVC_DATA_DIR)',
      env.SVC_DATA_DIR ?? join(homedir(), '.svc'),
    )
    .option(
      '--database-url <url>',
      "the database: a SQLite file (a path or file: URL) or postgres://user@host:port/name (SVC_DATABASE_URL; default the data dir's svc.sqlite)",
      env.SVC_DATABASE_URL,
    )
    .option(
      '--platform-domain <domain>',
      'production gateways at {slug}.<domain>, control at api.<domain> (SVC_PLATFORM_DOMAIN; default localhost)',
      env.SVC_PLATFORM_DOMAIN,
    )
    .option(
      '--sandbox-platform-domain <domain>',
      'Sandbox gateways at {slug}.<domain> (default dev.<platform domain>) (SVC_SANDBOX_PLATFORM_DOMAIN)',
      env.SVC_SANDBOX_PLATFORM_DOMAIN,
    )
    .option(
      '--public-scheme <scheme>',
      'the scheme of the URLs svc hands out: https behind a TLS proxy (SVC_PUBLIC_SCHEME)',
      env.SVC_PUBLIC_SCHEME,
    )
    .option('--public-port <port>', 'their port (default 443 for https, else --port)', portNumber)
    .option('--facilitator-url <url>', 'facilitator of production APIs (SVC_FACILITATOR_URL)', env.SVC_FACILITATOR_URL)
    .option(
      '--rpc <network=url>',
      "a production network's RPC (eip155:8453=https://…): unfinished payments are checked on its chain; repeatable (SVC_RPC, comma-separated)",
      collect,
      list(env.SVC_RPC),
    )
    .addOption(
      new Option(
        '--rpc-log-blocks <blocks>',
        'the most blocks one eth_getLogs of that check spans (SVC_RPC_LOG_BLOCKS)',
      )
        .argParser(blockCount)
        .default(env.SVC_RPC_LOG_BLOCKS === undefined ? 2_000 : Number(env.SVC_RPC_LOG_BLOCKS)),
    )
    .option(
      '--trust-proxy <cidr>',
      'believe X-Forwarded-For/-Proto from these peers; repeatable (SVC_TRUST_PROXY, comma-separated)',
      collect,
      list(env.SVC_TRUST_PROXY),
    )
    .option(
      '--allow-upstream <cidr>',
      'let upstreams reach this non-public range; repeatable (SVC_ALLOW_UPSTREAM)',
      collect,
      list(env.SVC_ALLOW_UPSTREAM),
    )
    .option('--jwt-secret-file <file>', 'the JWT signing key, 32 bytes hex or base64 (or SVC_JWT_SECRET)')
    .option('--wallet-key-file <file>', 'the key encrypting Sandbox wallets (or SVC_WALLET_KEY)')
    .option('--offer-receipt-key-file <file>', 'the offer/receipt signing seed (or SVC_OFFER_RECEIPT_KEY)')
    .option(
      '--admin-token-file <file>',
      'the admin token of snapshots, time, faults, chain restart, outbox (or SVC_ADMIN_TOKEN)',
    )
    .option(
      '--sandbox-chain <mode>',
      'local: run the Sandbox chain here; none: production only; shared: one process on the PostgreSQL database owns it (SVC_SANDBOX_CHAIN)',
      env.SVC_SANDBOX_CHAIN ?? 'local',
    )
    .option(
      '--advertise-url <url>',
      'shared: how the other processes reach this one (SVC_ADVERTISE_URL; default http://<host>:<port>)',
      env.SVC_ADVERTISE_URL,
    )
    .option('--drain-timeout <seconds>', 'on SIGTERM, how long in-flight requests may take', seconds, 30)
    .option(
      '--auto-verify',
      'mark new accounts verified at once (SVC_AUTO_VERIFY=1)',
      ['1', 'true'].includes(env.SVC_AUTO_VERIFY ?? ''),
    )
    .option('--dns-servers <list>', 'DNS servers for custom-domain checks (SVC_DNS_SERVERS)', env.SVC_DNS_SERVERS)
    .option('--relay <path>', 'the settlement path: tuned or viem (SVC_RELAY)', env.SVC_RELAY ?? 'tuned')
    .action(async (options: ServeOptions) => {
      const say = (line: string) => void process.stderr.write(`${line}\n`)
      for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {})
      const secret = (name: string, file: string | undefined, variable: string) => ({
        name: file === undefined ? variable : name,
        file,
        value: env[variable],
      })
      const port = typeof options.port === 'number' ? options.port : portFromEnv(options.port)
      // Listening for the signal from the start: one that comes while svc starts, or the moment it is ready, drains
      // it (a SIGTERM just after the ready line killed svc before its handler was there, on a loaded machine).
      const signalled = firstSignal(say)
      const { startSvc } = await import('../../server/start/index.js')
      const { resolveAnvilBinary } = await import('../../chain/anvil/anvil.js')
      const serving = await startSvc({
        mode: 'serve',
        dataDir: options.dataDir,
        databaseUrl: options.databaseUrl,
        listenHost: options.host,
        port,
        platformDomain: options.platformDomain,
        sandboxPlatformDomain: options.sandboxPlatformDomain,
        productionFacilitatorUrl: options.facilitatorUrl,
        rpc: options.rpc,
        rpcLogBlocks: options.rpcLogBlocks,
        publicScheme: options.publicScheme,
        publicPort: options.publicPort,
        trustProxy: options.trustProxy,
        allowUpstream: options.allowUpstream,
        secrets: {
          jwtSecret: secret('--jwt-secret-file', options.jwtSecretFile, 'SVC_JWT_SECRET'),
          walletKey: secret('--wallet-key-file', options.walletKeyFile, 'SVC_WALLET_KEY'),
          offerReceiptKey: secret('--offer-receipt-key-file', options.offerReceiptKeyFile, 'SVC_OFFER_RECEIPT_KEY'),
          adminToken: secret('--admin-token-file', options.adminTokenFile, 'SVC_ADMIN_TOKEN'),
        },
        sandboxChain: options.sandboxChain as StartSvcOptions<'serve'>['sandboxChain'],
        advertiseUrl: options.advertiseUrl,
        autoVerify: options.autoVerify,
        dnsServers: options.dnsServers
          ?.split(',')
          .map((s) => s.trim())
          .filter(Boolean),
        binary: options.sandboxChain === 'none' ? undefined : resolveAnvilBinary({ explicit: env.SVC_ANVIL_BIN, env }),
        relay: options.relay as StartSvcOptions<'serve'>['relay'],
        log: say,
        onProgress: (line) => !options.json && say(`svc: ${line}`),
      })
      const { server, chain, sharedChain } = serving
      const ready = {
        listen: `${server.listenHost.includes(':') ? `[${server.listenHost}]` : server.listenHost}:${server.port}`,
        port: server.port,
        control_url: server.controlUrl,
        sandbox_control_url: server.sandboxControlUrl,
        platform_domain: server.hosts.platformDomain,
        sandbox_platform_domain: server.hosts.sandboxPlatformDomain,
        sandbox_chain: sharedChain ? 'shared' : chain ? 'local' : 'none',
        // Whether this process runs the Sandbox chain (shared: owns it now; the others pay through it).
        chain_owner: chain !== undefined,
        rpc_url: chain?.rpcUrl ?? null,
        chain_manager_url: chain?.chainManagerUrl ?? null,
        facilitator_url: chain?.facilitatorUrl ?? null,
        // A team Sandbox's other processes take payments on the owner's chain: its network and token are svc's own.
        network: chain?.sandboxChain.network ?? (sharedChain ? sandboxNetwork : null),
        usdc: chain?.sandboxChain.usdc.address ?? (sharedChain ? usdcAddress : null),
        data_dir: server.dataDir,
      }
      if (options.json) process.stdout.write(`${JSON.stringify(ready)}\n`)
      else
        say(
          `svc: serving on ${ready.listen}: gateways {slug}.${ready.platform_domain} and {slug}.${ready.sandbox_platform_domain}, control api.… and sandbox.…, /healthz /readyz`,
        )
      await drainOnSignal(serving, signalled, options.drainTimeout * 1000, say)
    })
}

/**
 * Waits for SIGTERM or SIGINT (`signalled`), then drains (readiness fails, no new connections, in-flight requests finish within
 * `timeoutMs`) and stops. A second signal while draining exits at once with code 1.
 */
async function drainOnSignal(
  serving: {
    server: { drain(timeoutMs: number): Promise<boolean>; lifecycle: { inFlight: number } }
    stop(): Promise<void>
  },
  signalled: Promise<string>,
  timeoutMs: number,
  say: (line: string) => void,
): Promise<void> {
  const signal = await signalled
  say(`svc: ${signal}: draining (up to ${timeoutMs / 1000} s)…`)
  const drained = await serving.server.drain(timeoutMs)
  if (!drained) say(`svc: drain timed out: closing ${serving.server.lifecycle.inFlight} request(s) still in flight`)
  await stopWithin(serving.stop(), say)
  say('svc: stopped')
}
