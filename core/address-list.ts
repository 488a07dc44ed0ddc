import { BlockList, isIP } from 'node:net'
import { UsageError } from './errors.js'

/**
 * A list of IP addresses and CIDR ranges (`10.0.0.0/8`, `203.0.113.7`, `fd00::/8`), as `svc serve --trust-proxy` and
 * `--allow-upstream` take them. node:net's BlockList does the matching; an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`,
 * how a dual-stack socket reports an IPv4 peer) is matched as the IPv4 address it is.
 */
export type AddressList = {
  /** The entries as given (normalised), for messages. */
  readonly entries: readonly string[]
  has(address: string): boolean
}

/** `::ffff:10.0.0.1` → `10.0.0.1`; other addresses as they are (no brackets, no zone). */
export function plainAddress(address: string): string {
  const bare = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '')
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)
  return mapped ? mapped[1]! : bare.toLowerCase()
}

/** Adds `entry` (an address or a CIDR range) to `list`; false when it is neither. */
function addEntry(list: BlockList, entry: string): boolean {
  const [address = '', prefix, extra] = entry.split('/')
  const plain = plainAddress(address)
  const family = isIP(plain)
  if (family === 0 || extra !== undefined) return false
  const type = family === 4 ? 'ipv4' : 'ipv6'
  if (prefix === undefined) {
    list.addAddress(plain, type)
    return true
  }
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > (family === 4 ? 32 : 128)) return false
  list.addSubnet(plain, Number(prefix), type)
  return true
}

/** An {@link AddressList} of `entries`; `flag` names the option in the usage error an entry that is no address gets. */
export function parseAddressList(entries: readonly string[], flag: string): AddressList {
  const list = new BlockList()
  const kept: string[] = []
  for (const raw of entries.flatMap((value) => value.split(',')).map((value) => value.trim())) {
    if (raw === '') continue
    if (!addEntry(list, raw))
      throw new UsageError(`${flag}: "${raw}" is not an IP address or CIDR range (e.g. 10.0.0.0/8, 2001:db8::/32)`)
    kept.push(raw)
  }
  // Asked per request (express's `trust proxy` reads the peer on every req.protocol) by a few peers: their answers
  // are remembered, since BlockList.check builds a SocketAddress each time (~7 µs of a 402's ~150).
  const answers = new Map<string, boolean>()
  return {
    entries: kept,
    has(address) {
      let answer = answers.get(address)
      if (answer !== undefined) return answer
      const plain = plainAddress(address)
      const family = isIP(plain)
      answer = family !== 0 && list.check(plain, family === 4 ? 'ipv4' : 'ipv6')
      if (answers.size >= 1_024) answers.clear()
      answers.set(address, answer)
      return answer
    },
  }
}

/**
 * Addresses no upstream of a server reaches unless allowed: loopback, private and shared ranges (RFC 1918, 6598,
 * unique-local), link-local (169.254/16, where cloud metadata services answer, and fe80::/10), "this network",
 * benchmarking, multicast and reserved ranges.
 */
export const nonPublicRanges: AddressList = parseAddressList(
  [
    '0.0.0.0/8',
    '10.0.0.0/8',
    '100.64.0.0/10',
    '127.0.0.0/8',
    '169.254.0.0/16',
    '172.16.0.0/12',
    '192.0.0.0/24',
    '192.168.0.0/16',
    '198.18.0.0/15',
    '224.0.0.0/3',
    '::/128',
    '::1/128',
    'fc00::/7',
    'fe80::/10',
    'ff00::/8',
    '64:ff9b::/96',
  ],
  'non-public ranges',
)

/** Addresses that reach this machine's loopback listeners: 127/8, 0.0.0.0, ::1, :: and their IPv4-mapped forms. */
const loopback = new BlockList()
loopback.addSubnet('127.0.0.0', 8, 'ipv4')
loopback.addAddress('0.0.0.0', 'ipv4')
loopback.addAddress('::1', 'ipv6')
loopback.addAddress('::', 'ipv6')
loopback.addSubnet('::ffff:127.0.0.0', 104, 'ipv6')
loopback.addAddress('::ffff:0.0.0.0', 'ipv6')

/** Whether an IP address (v4 or v6, no brackets) reaches this machine's loopback listeners. */
export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 0) return false
  return loopback.check(address, family === 4 ? 'ipv4' : 'ipv6')
}
