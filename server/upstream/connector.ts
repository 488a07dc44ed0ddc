import type { Socket } from 'node:net'
import { buildConnector } from 'undici'
import { isLoopbackAddress } from '../../core/address-list.js'
import type { AddressRefusal } from './own-listeners.js'

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
