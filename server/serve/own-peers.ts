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
