import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { networkInterfaces } from 'node:os'
import { plainAddress } from '../../core/address-list.js'

/** A peer of svc that no upstream may reach: an address, on one port or (undefined) on all. */
export type OwnPeer = { address: string; port: number | undefined; name: string }

/**
 * svc's own listener as upstream targets would reach it: the address it binds, or every address of the machine when
 * it binds all of them (`0.0.0.0`, `::`).
 */
export function ownPeers(listenHost: string, port: number): OwnPeer[] {
  const name = "svc's control plane and gateway"
  const bound = plainAddress(listenHost)
  const addresses =
    bound === '0.0.0.0' || bound === '::'
      ? Object.values(networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry.address))
      : [bound]
  return addresses.map((address) => ({ address: plainAddress(address), port, name }))
}

/**
 * The addresses of one of svc's peers reached by host name or address (the database, an RPC, the facilitator), on its
 * port only: no upstream may target it. A name that does not resolve now adds nothing (the connector still checks the
 * address each connection lands on against the others).
 */
export async function peersAt(host: string, port: number, name: string): Promise<OwnPeer[]> {
  const bare = host.replace(/^\[|\]$/g, '')
  const addresses = isIP(bare)
    ? [bare]
    : await lookup(bare, { all: true }).then(
        (found) => found.map((entry) => entry.address),
        () => [],
      )
  return addresses.map((address) => ({ address: plainAddress(address), port, name }))
}

/** The peers behind http(s) URLs svc calls itself (`--rpc`, `--facilitator-url`), each named by what it is. */
export async function peersOfUrls(urls: ReadonlyArray<{ url: string; name: string }>): Promise<OwnPeer[]> {
  const peers = await Promise.all(
    urls.map(({ url, name }) => {
      const parsed = new URL(url)
      const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port)
      return peersAt(parsed.hostname, port, name)
    }),
  )
  return peers.flat()
}
