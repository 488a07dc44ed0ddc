import { isIP } from 'node:net'
import { parseAddressList } from '../../core/address-list.js'
import { UsageError } from '../../core/errors.js'
import { isDomainName } from '../../core/hosts.js'
import { databasePeer, parseDatabaseUrl, sharedByProcessesAt } from '../db/database-url.js'
// Start-up loads only what it reads here (the doors of journal/ and serve/ would load the database's room too).
import { parseRpcUrls } from '../journal/production-chains.js'
import type { ServerTrust } from '../serve/index.js'
import { peersAt, peersOfUrls } from '../serve/own-peers.js'
import { readServeSecrets } from '../serve/serve-secrets.js'
import type { SharedChain } from '../cluster/index.js'
import { type AnyStartOptions, type RunningServer, type SandboxChainMode, sandboxChainModes } from './options.js'
import type { ServerSetup } from './server.js'

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
 * `svc serve`'s flags, checked: everything a flag can get wrong is refused (a {@link UsageError}) before anything
 * starts. Answers what they come to for the server (its trust, address, domains, database, secrets) and the chain.
 */
export async function checkServe(
  options: AnyStartOptions,
): Promise<{ setup: ServerSetup; sandboxChain: SandboxChainMode }> {
  const database = options.databaseUrl === undefined ? undefined : parseDatabaseUrl(options.databaseUrl)
  checkDomain('--platform-domain', options.platformDomain)
  checkDomain('--sandbox-platform-domain', options.sandboxPlatformDomain)
  if (options.sandboxPlatformDomain !== undefined && options.platformDomain === undefined)
    throw new UsageError('--sandbox-platform-domain needs --platform-domain')
  const host = options.listenHost ?? '127.0.0.1'
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
  const setup: ServerSetup = {
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
    installSecrets: secrets.install,
    trust,
  }
  return { setup, sandboxChain }
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

/** The lease of a `serve --sandbox-chain shared` process, decided once (won: its chain is up). */
export async function startShared(
  server: RunningServer,
  options: AnyStartOptions,
  lock: { dataDir: string; anvilPidFile: string },
): Promise<SharedChain> {
  const [{ startSharedChain }, { loadReceiverAuthorizerKey }] = await Promise.all([
    import('../cluster/index.js'),
    import('../data-dir/secrets.js'),
  ])
  const bare = (options.listenHost ?? '127.0.0.1').replace(/^\[|\]$/g, '')
  const reachable = bare === '0.0.0.0' ? '127.0.0.1' : bare === '::' ? '::1' : bare
  const advertiseUrl = (
    options.advertiseUrl ?? `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${server.port}`
  ).replace(/\/$/, '')
  const shared = startSharedChain(server, {
    binary: options.binary,
    relay: options.relay,
    receiverAuthorizerKey: loadReceiverAuthorizerKey(lock.dataDir),
    pidFile: lock.anvilPidFile,
    advertiseUrl,
    everyMs: options.leaseEveryMs,
    log: options.log,
  })
  await shared.first
  return shared
}
