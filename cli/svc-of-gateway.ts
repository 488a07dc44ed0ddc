import { isLocalhostName } from '../core/hosts.js'
import { createSvcClient } from '../sdk/client.js'
import { controlUrlFor } from './settings.js'

/** What a buyer learns from the svc that serves a gateway URL. */
export type GatewaySvc = {
  /** The Sandbox control plane asked. */
  controlUrl: string
  /** How far svc's clock is ahead of this machine's, in seconds (0 when svc could not be asked). */
  aheadSeconds: number
  /** The Sandbox chain's RPC, when svc said. */
  rpcUrl: string | undefined
}

const isLocalHost = (hostname: string) => hostname === '127.0.0.1' || isLocalhostName(hostname.toLowerCase())

/**
 * The Sandbox control plane of the svc serving `url` (one port serves the gateway and the control planes: a
 * `*.localhost` URL's port names it; any other host is asked through the CLI's settings), and what it says: its clock
 * (a buyer signs by it after `svc time advance`) and its chain's RPC. A gateway that is not svc, or an svc that does
 * not answer, gives the machine's clock and no RPC: the payment is tried as the URL asks.
 */
export async function askGatewaySvc(url: string, savedBaseUrl: string | undefined): Promise<GatewaySvc> {
  const target = new URL(url)
  const controlUrl = isLocalHost(target.hostname)
    ? controlUrlFor('development', `${target.protocol}//localhost:${target.port || 80}`)
    : controlUrlFor('development', savedBaseUrl)
  const client = createSvcClient({ baseUrl: controlUrl })
  const [time, config] = await Promise.all([
    client.time.get().catch(() => undefined),
    client.config.localDev().catch(() => undefined),
  ])
  const aheadSeconds = time ? Math.max(0, Math.round((Date.parse(time.svc_time) - Date.now()) / 1000)) : 0
  return { controlUrl, aheadSeconds, rpcUrl: config?.rpc_url ?? undefined }
}
