import { isIP } from 'node:net'
import type { ChainServices } from '../../chain/services.js'
import { parseAddressList } from '../../core/address-list.js'
import { UsageError } from '../../core/errors.js'
import { isDomainName } from '../../core/hosts.js'
import { databasePeer, parseDatabaseUrl, sharedByProcessesAt } from '../db/database-url.js'
import { loadSqlite } from '../db/database.js'
import { parseRpcUrls } from '../journal/index.js'
import { peersAt, peersOfUrls, readServeSecrets, type ServerTrust, type ServeSecretSources } from '../serve/index.js'
import { type RunningServer, startServer } from './server.js'
import { claimDataDir, type StartSvcOptions, startSvc } from './start-svc.js'
import type { SharedChain } from '../cluster/index.js'

/**
 * Whether `svc serve` runs the Sandbox chain: `local` (Anvil on loopback, as `svc up`), `none` (production only), or
 * `shared` (a team Sandbox on PostgreSQL: one process of all those sharing the database owns the chain, the others
 * pay and forward through it: server/cluster/).
 */
export const sandboxChainModes = ['local', 'none', 'shared'] as const
export type SandboxChainMode = (typeof sandboxChainModes)[number]

export type StartServeOptions = Pick<
  StartSvcOptions,
  | 'autoVerify'
  | 'productionFacilitatorUrl'
  | 'rpc'
  | 'rpcLogBlocks'
  | 'reapEveryMs'
  | 'dnsServers'
  | 'binary'
  | 'relay'
  | 'log'
  | 'onProgress'
> & {
  /** The data dir: the lock, the chain's state and snapshots, and the secrets not given from outside. */
  dataDir: string
  /** `--database-url`: a SQLite path or `file:` URL. @defaultValue the data dir's svc.sqlite */
  databaseUrl?: string | undefined
  /** The address the listener binds. @defaultValue 127.0.0.1 */
  host?: string | undefined
  /** @defaultValue 4020 is the CLI's; here 0 picks a free port */
  port?: number | undefined
  /** Production gateways at `{slug}.{platformDomain}`. @defaultValue `localhost` (svc up's hosts) */
  platformDomain?: string | undefined
  /** Sandbox gateways at `{slug}.{sandboxPlatformDomain}`. @defaultValue `dev.{platformDomain}` */
  sandboxPlatformDomain?: string | undefined
  /** The scheme of the URLs svc hands out (https behind a TLS proxy). @defaultValue http */
  publicScheme?: string | undefined
  /** Their port. @defaultValue 443 for https, else the port svc listens on */
  publicPort?: number | undefined
  /** Proxies whose X-Forwarded-For / -Proto are believed (addresses, CIDR ranges). @defaultValue none */
  trustProxy?: readonly string[] | undefined
  /** Non-public ranges upstreams may reach (an internal API's network). @defaultValue none */
  allowUpstream?: readonly string[] | undefined
  /** The JWT, wallet, offer-receipt keys and the admin token, each from a file or an environment variable. */
  secrets?: ServeSecretSources | undefined
  /** @defaultValue local */
  sandboxChain?: SandboxChainMode | undefined
  /**
   * `shared`: how the other processes reach this one (a URL of its listener). @defaultValue `http://<host>:<port>`,
   * 127.0.0.1 for a listener on every address
   */
  advertiseUrl?: string | undefined
  /** `shared`: how often a standby tries to take the chain over. @defaultValue 1_000 */
  leaseEveryMs?: number | undefined
  /** SQLite: how long opening waits for a file another process holds (tests shorten it). @defaultValue 5000 */
  busyTimeoutMs?: number | undefined
}

export type RunningServe = {
  server: RunningServer
  /** The chain's services when this process runs them (`shared`: while it owns the chain, at the time of the call). */
  chain: ChainServices | undefined
  /** `shared`: the lease and whether this process owns the chain. */
  sharedChain?: SharedChain | undefined
  stop(): Promise<void>
}

/** The database, the RPCs and the facilitator: svc's peers, which no upstream may target. */
async function ownPeersOf(
  database: { host: string; port: number } | undefined,
  rpcUrls: ReadonlyMap<string, string>,
  facilitatorUrl: string | undefined,
) {
  const urls = [...rpcUrls].map(([network, url]) => ({ url, name: `svc's RPC of ${network}` }))
  if (facilitatorUrl !== undefined) urls.push({ url: facilitatorUrl, name: "svc's facilitator" })
  return [
    ...(database ? await peersAt(database.host, database.port, "svc's database") : []),
    ...(await peersOfUrls(urls)),
  ]
}

function checkDomain(flag: string, domain: string | undefined): void {
  if (domain !== undefined && !isDomainName(domain))
    throw new UsageError(`${flag}: "${domain}" is not a domain name (e.g. pay.example.com)`)
}

/**
 * `svc serve`: svc as a server. Everything a flag can get wrong is refused (a {@link UsageError}) before anything
 * starts; then the same server as `svc up` starts with the server's trust (server/serve/server-trust.ts), on the
 * given address and domains, with or without the Sandbox chain.
 */
export async function startServe(options: StartServeOptions): Promise<RunningServe> {
  const database = options.databaseUrl === undefined ? undefined : parseDatabaseUrl(options.databaseUrl)
  checkDomain('--platform-domain', options.platformDomain)
  checkDomain('--sandbox-platform-domain', options.sandboxPlatformDomain)
  if (options.sandboxPlatformDomain !== undefined && options.platformDomain === undefined)
    throw new UsageError('--sandbox-platform-domain needs --platform-domain')
  const host = options.host ?? '127.0.0.1'
  if (isIP(host.replace(/^\[|\]$/g, '')) === 0) throw new UsageError(`--host: "${host}" is not an IP address`)
  const sandboxChain = options.sandboxChain ?? 'local'
  if (!sandboxChainModes.includes(sandboxChain))
    throw new UsageError(`--sandbox-chain must be one of ${sandboxChainModes.join(', ')}, not "${sandboxChain}"`)
  if (sandboxChain === 'shared' && !sharedByProcessesAt(database))
    throw new UsageError('--sandbox-chain shared needs a PostgreSQL --database-url')
  if (options.advertiseUrl !== undefined) checkAdvertiseUrl(options.advertiseUrl)
  const publicScheme = options.publicScheme ?? (options.publicPort === undefined ? undefined : 'http')
  if (publicScheme !== undefined && publicScheme !== 'http' && publicScheme !== 'https')
    throw new UsageError(`--public-scheme must be http or https, not "${publicScheme}"`)
  const trustProxy = options.trustProxy?.length ? parseAddressList(options.trustProxy, '--trust-proxy') : undefined
  const allowUpstream = options.allowUpstream?.length
    ? parseAddressList(options.allowUpstream, '--allow-upstream')
    : undefined
  const rpcUrls = parseRpcUrls(options.rpc)
  if (options.rpcLogBlocks !== undefined && !(Number.isInteger(options.rpcLogBlocks) && options.rpcLogBlocks > 0))
    throw new UsageError(`--rpc-log-blocks must be a whole number of blocks above 0, not "${options.rpcLogBlocks}"`)
  const secrets = readServeSecrets(options.secrets ?? {})
  const trust: ServerTrust = {
    adminToken: secrets.adminToken,
    trustProxy,
    allowUpstream,
    peers: await ownPeersOf(database && databasePeer(database), rpcUrls, options.productionFacilitatorUrl),
  }
  const server = {
    dataDir: options.dataDir,
    port: options.port,
    autoVerify: options.autoVerify,
    productionFacilitatorUrl: options.productionFacilitatorUrl,
    rpc: options.rpc,
    rpcLogBlocks: options.rpcLogBlocks,
    reapEveryMs: options.reapEveryMs,
    dnsServers: options.dnsServers,
    log: options.log,
    listenHost: host.replace(/^\[|\]$/g, ''),
    domains:
      options.platformDomain === undefined
        ? undefined
        : { platformDomain: options.platformDomain, sandboxPlatformDomain: options.sandboxPlatformDomain },
    publicOrigin:
      publicScheme === undefined
        ? undefined
        : {
            scheme: publicScheme as 'http' | 'https',
            port: options.publicPort ?? (publicScheme === 'https' ? 443 : undefined),
          },
    database,
    busyTimeoutMs: options.busyTimeoutMs,
    secrets: secrets.install,
    trust,
  }
  if (sandboxChain === 'local') {
    const running = await startSvc({
      ...server,
      binary: options.binary,
      relay: options.relay,
      onProgress: options.onProgress,
    })
    return { server: running.server, chain: running.chain, stop: () => running.stop() }
  }
  // Production only: no Anvil, no chain services; Sandbox APIs answer 503 until a chain is run somewhere. Shared: the
  // chain is started here only while this process owns it (server/cluster/shared-chain.ts).
  loadSqlite()
  const lock = await claimDataDir(options.dataDir, options.log ?? (() => {}))
  options.onProgress?.(
    sandboxChain === 'shared'
      ? 'opening the database and starting the control plane (the Sandbox chain is shared: taking it if nobody owns it)…'
      : 'opening the database and starting the control plane (no Sandbox chain)…',
  )
  let running: RunningServer | undefined
  try {
    running = await startServer({ ...server, sharedChain: sandboxChain === 'shared' ? {} : undefined })
    const shared =
      sandboxChain === 'shared'
        ? await startShared(running, { ...options, host, dataDir: lock.dataDir, pidFile: lock.anvilPidFile })
        : undefined
    const started = running
    return {
      server: started,
      chain: shared?.chain,
      sharedChain: shared,
      async stop() {
        await shared?.stop()
        await started.stop()
        lock.release()
      },
    }
  } catch (error) {
    await running?.stop()
    lock.release()
    throw error
  }
}

/** `--advertise-url`: an http(s) URL of an origin (no path), or a {@link UsageError}. */
function checkAdvertiseUrl(url: string): void {
  let parsed: URL | undefined
  try {
    parsed = new URL(url)
  } catch {}
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.pathname.replace(/\/$/, '') !== '')
    throw new UsageError(`--advertise-url: "${url}" is not an http(s) URL of this process (e.g. http://10.0.0.5:4020)`)
}

/** The lease of a `shared` process, decided once (won: its chain is up). */
async function startShared(
  server: RunningServer,
  options: StartServeOptions & { host: string; pidFile: string },
): Promise<SharedChain> {
  const [{ startSharedChain }, { loadReceiverAuthorizerKey }] = await Promise.all([
    import('../cluster/index.js'),
    import('../data-dir/secrets.js'),
  ])
  const bare = options.host.replace(/^\[|\]$/g, '')
  const reachable = bare === '0.0.0.0' ? '127.0.0.1' : bare === '::' ? '::1' : bare
  const advertiseUrl = (
    options.advertiseUrl ?? `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${server.port}`
  ).replace(/\/$/, '')
  const shared = startSharedChain(server, {
    binary: options.binary,
    relay: options.relay,
    receiverAuthorizerKey: loadReceiverAuthorizerKey(options.dataDir),
    pidFile: options.pidFile,
    advertiseUrl,
    everyMs: options.leaseEveryMs,
    log: options.log,
  })
  await shared.first
  return shared
}
