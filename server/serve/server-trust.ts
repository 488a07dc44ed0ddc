import type { Request } from 'express'
import { type AddressList, nonPublicRanges, plainAddress } from '../../core/address-list.js'
import { ForbiddenError, UnauthorizedError } from '../../core/errors.js'
import type { AdminToken } from './serve-secrets.js'
import type { OwnPeer } from './own-peers.js'
import type { ClusterPeers } from './cluster-peers.js'

/**
 * What changes when svc runs as a server (`svc serve`) instead of on a laptop (`svc up`). Behind a proxy every caller
 * is a loopback peer, so "on this machine" no longer means "the owner": the whole-sandbox routes and the outbox take an
 * admin credential instead, the client address comes from the trusted proxy, and upstreams may not reach the
 * server's own network.
 */
export type ServerTrust = {
  /** The admin credential (`Authorization: Bearer …`); none = the admin routes are off. */
  adminToken: AdminToken | undefined
  /** Peers whose X-Forwarded-For / X-Forwarded-Proto are believed (express's `trust proxy`). */
  trustProxy: AddressList | undefined
  /** Non-public addresses an upstream may still reach (`--allow-upstream`): an internal API's network. */
  allowUpstream: AddressList | undefined
  /** svc's own peers no upstream may reach, allowed or not: its listen address and port, the database. */
  peers: OwnPeer[]
  /**
   * On PostgreSQL, the other `svc serve` processes of the database (their rows name their listeners): no upstream
   * may reach them either. Set once the process listens.
   */
  cluster?: ClusterPeers | undefined
}

/**
 * Refuses a request to an admin route without the admin token: 401 `unauthorized` without credentials, 401
 * `invalid token` with a wrong one, 403 when the server has no admin token (the routes are off).
 */
export function assertAdmin(req: Request, trust: ServerTrust, what: string): void {
  if (!trust.adminToken)
    throw new ForbiddenError(`${what}: off on this server (start svc serve with --admin-token-file)`)
  const header = req.headers.authorization
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header)
  if (!match) throw new UnauthorizedError()
  if (!trust.adminToken.matches(match[1]!)) throw new UnauthorizedError('invalid token')
}

/**
 * Why an upstream connection to `address:port` is refused on a server, or undefined: svc's own peers (and the other
 * processes of its database) always, non-public ranges unless `--allow-upstream` names them.
 */
export function upstreamRefusal(trust: ServerTrust, address: string, port: number): string | undefined {
  const plain = plainAddress(address)
  const peer = trust.peers.find((peer) => peer.address === plain && (peer.port === undefined || peer.port === port))
  if (peer) return peer.name
  const sibling = trust.cluster?.refusal(plain, port)
  if (sibling) return sibling
  if (nonPublicRanges.has(plain) && !trust.allowUpstream?.has(plain))
    return `a non-public address (${plain}; svc serve --allow-upstream admits a range)`
  return undefined
}
