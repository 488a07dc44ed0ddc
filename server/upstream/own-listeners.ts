/*
 * svc's own listeners, which no upstream request may reach: which they are (`ownListenerPorts`), a URL that targets
 * one before a request (`ownListenerTargetedBy`), and the connector that checks each connection made
 * (`createUpstreamConnector`: a name may resolve elsewhere by then).
 */
import { lookup } from 'node:dns/promises'
import { isIP, type Socket } from 'node:net'
import { isLoopbackAddress } from '../../core/address-list.js'
import { isLocalhostName } from '../../core/hosts.js'
import type { UpstreamDeps } from './deps.js'
import { upstreamRefusal } from '../serve/index.js'
import { buildConnector } from 'undici'

/**
 * The header the gateway puts on every upstream request (any value a buyer sent is dropped first). svc's control
 * plane treats a request that bears it as one that came through the gateway: never a direct local caller.
 */
export const gatewayHopHeader = 'x-svc-via-gateway'

/** svc's own listeners by port: the control planes and gateway, and the sandbox chain's RPC, manager, facilitator. */
export function ownListenerPorts(deps: Pick<UpstreamDeps, 'hosts' | 'chain'>): Map<number, string> {
  const ports = new Map<number, string>()
  if (deps.hosts.port) ports.set(deps.hosts.port, "svc's control plane and gateway")
  const chain = deps.chain
  if (chain) {
    ports.set(portOf(new URL(chain.rpcUrl)), "svc's chain RPC")
    ports.set(portOf(new URL(chain.chainManagerUrl)), "svc's chain manager")
    ports.set(portOf(new URL(chain.facilitatorUrl)), "svc's facilitator")
  }
  return ports
}

/** A further rule of which upstream addresses are refused (svc serve's): what `address:port` reaches, or undefined. */
export type AddressRefusal = (address: string, port: number) => string | undefined

/** The server's rule (server/serve/server-trust.ts) when svc runs as one; none for `svc up`. */
export const addressRefusalOf = (deps: Pick<UpstreamDeps, 'trust'>): AddressRefusal | undefined => {
  const trust = deps.trust
  return trust && ((address, port) => upstreamRefusal(trust, address, port))
}

export type OwnListenerCheckOptions = {
  /** Resolves a host name to all its addresses. @defaultValue `dns.lookup(name, { all: true })` */
  resolve?: ((hostname: string) => Promise<string[]>) | undefined
  /** Refuses more addresses than svc's own loopback listeners (svc serve). @defaultValue none */
  refuse?: AddressRefusal | undefined
}

const resolveAll = async (hostname: string) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address)

/**
 * Which of svc's own listeners `url` targets (its name, e.g. "svc's facilitator"), or undefined. Any spelling of
 * loopback counts (the URL parser normalises `127.1`, `2130706433`, `[::ffff:127.0.0.1]`; `localhost` and
 * `*.localhost` are loopback by definition); other names are resolved, and any of their addresses counts. A name
 * that does not resolve targets nothing (yet): the gateway checks again when it connects.
 */
export async function ownListenerTargetedBy(
  url: string,
  ports: ReadonlyMap<number, string>,
  options: OwnListenerCheckOptions = {},
): Promise<string | undefined> {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return undefined
  }
  const port = portOf(parsed)
  const listener = ports.get(port)
  const { refuse } = options
  if (!listener && !refuse) return undefined
  const hostname = parsed.hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase()
  let addresses: string[]
  if (isLocalhostName(hostname)) addresses = ['127.0.0.1']
  else if (isIP(hostname)) addresses = [hostname]
  else
    try {
      addresses = await (options.resolve ?? resolveAll)(hostname)
    } catch {
      return undefined
    }
  for (const address of addresses) {
    if (listener && isLoopbackAddress(address)) return listener
    const refused = refuse?.(address, port)
    if (refused) return refused
  }
  return undefined
}

function portOf(url: URL): number {
  if (url.port) return Number(url.port)
  return url.protocol === 'https:' ? 443 : 80
}

/**
 * The one connector of the requests svc makes on a seller's behalf: the gateway's upstream calls
 * (gateway/upstream-proxy.ts) and the schema probe (schema-inference.ts). A name is checked before a request, but it
 * may resolve elsewhere when the connection is made (DNS rebinding), so the connector checks the address each new
 * connection actually reached as well.
 */

/** A connection the connector closed because it reached one of svc's own listeners. */
export class OwnListenerReached extends Error {
  override name = 'OwnListenerReached'
  constructor(readonly listener: string) {
    super(`the upstream connection reached ${listener}`)
  }
}

/** The listener an upstream failure reached, when the connector refused it (anywhere in the cause chain). */
export function ownListenerOf(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++)
    if (current instanceof OwnListenerReached) return current.listener
  return undefined
}

/**
 * undici's connector, checking the address each new connection actually reached: a loopback address on one of svc's
 * own ports is closed before a byte of the request is written (the name may have resolved elsewhere when the request
 * was checked: DNS rebinding).
 */
export function refusingOwnListeners(
  connect: buildConnector.connector,
  ownListeners: (() => ReadonlyMap<number, string>) | undefined,
  refuse?: AddressRefusal | undefined,
): buildConnector.connector {
  if (!ownListeners && !refuse) return connect
  return (options, callback) =>
    connect(options, (error, socket) => {
      if (error || !socket) return callback(error ?? new Error('no socket'), null)
      const { remoteAddress, remotePort } = socket as Socket
      const listener =
        remoteAddress && remotePort !== undefined
          ? ((isLoopbackAddress(remoteAddress) ? ownListeners?.().get(remotePort) : undefined) ??
            refuse?.(remoteAddress, remotePort))
          : undefined
      if (!listener) return callback(null, socket)
      socket.destroy()
      callback(new OwnListenerReached(listener), null)
    })
}

/** undici's connector with its connect timeout, refusing svc's own listeners when `ownListeners` is given. */
export function createUpstreamConnector(
  ownListeners: (() => ReadonlyMap<number, string>) | undefined,
  options: { timeoutMs?: number; refuse?: AddressRefusal | undefined } = {},
): buildConnector.connector {
  return refusingOwnListeners(buildConnector({ timeout: options.timeoutMs ?? 10_000 }), ownListeners, options.refuse)
}
