/**
 * The rules of svc serve's trust, on real sockets where they act on connections: the address lists (IPv4-mapped
 * IPv6 included), which upstream addresses a server refuses, and the connector refusing a connection that lands on
 * one (the name resolved to a public address when the API was saved: DNS rebinding).
 */
import { createServer, type Server } from 'node:http'
import { Agent, request } from 'undici'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { parseAddressList } from '../../../core/address-list.js'
import { peersOfUrls } from '../../../server/serve/own-peers.js'
import { type ServerTrust, upstreamRefusal } from '../../../server/serve/server-trust.js'
import { createUpstreamConnector, ownListenerOf } from '../../../server/upstream/own-listeners.js'

const trust = (overrides: Partial<ServerTrust> = {}): ServerTrust => ({
  adminToken: undefined,
  trustProxy: undefined,
  allowUpstream: undefined,
  peers: [],
  ...overrides,
})

describe('address lists', () => {
  test('match addresses and ranges of both families, an IPv4-mapped IPv6 peer as its IPv4 address', () => {
    const list = parseAddressList(['10.0.0.0/8, 192.0.2.7', '2001:db8::/32'], '--trust-proxy')
    expect(list.entries).toEqual(['10.0.0.0/8', '192.0.2.7', '2001:db8::/32'])
    expect(['10.200.1.1', '::ffff:10.0.0.1', '192.0.2.7', '2001:db8::1', '[2001:db8::2]'].map(list.has)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ])
    expect(['11.0.0.1', '192.0.2.8', '2001:db9::1', 'not-an-ip'].map(list.has)).toEqual([false, false, false, false])
  })
})

describe('upstream refusal on a server', () => {
  test('refuses non-public ranges unless allowed, and svc’s own peers even then', () => {
    const plain = trust()
    for (const address of [
      '10.1.2.3',
      '172.20.0.1',
      '192.168.0.1',
      '169.254.169.254',
      '127.0.0.1',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '100.64.0.1',
      '0.0.0.0',
    ])
      expect(upstreamRefusal(plain, address, 80), address).toMatch(/^a non-public address/)
    for (const address of ['203.0.113.10', '8.8.8.8', '2606:4700::1111'])
      expect(upstreamRefusal(plain, address, 443)).toBeUndefined()
    const allowing = trust({
      allowUpstream: parseAddressList(['10.0.0.0/8'], '--allow-upstream'),
      peers: [
        { address: '10.0.0.5', port: 5432, name: "svc's database" },
        { address: '203.0.113.10', port: 4020, name: "svc's control plane and gateway" },
      ],
    })
    expect(upstreamRefusal(allowing, '10.1.2.3', 80)).toBeUndefined()
    expect(upstreamRefusal(allowing, '10.0.0.5', 80)).toBeUndefined()
    expect(upstreamRefusal(allowing, '10.0.0.5', 5432)).toBe("svc's database")
    expect(upstreamRefusal(allowing, '203.0.113.10', 4020)).toBe("svc's control plane and gateway")
    expect(upstreamRefusal(allowing, '192.168.0.1', 80)).toMatch(/^a non-public address/)
  })

  test("svc's RPCs and facilitator are peers on their URL's port (the scheme's default when none is given)", async () => {
    expect(
      await peersOfUrls([
        { url: 'https://10.0.0.7/rpc', name: "svc's RPC of eip155:8453" },
        { url: 'http://[fd00::5]:8080/', name: "svc's facilitator" },
        { url: 'http://localhost:8545', name: 'by name' },
      ]),
    ).toEqual(
      expect.arrayContaining([
        { address: '10.0.0.7', port: 443, name: "svc's RPC of eip155:8453" },
        { address: 'fd00::5', port: 8080, name: "svc's facilitator" },
        { address: '127.0.0.1', port: 8545, name: 'by name' },
      ]),
    )
  })

  describe('the connector, on the address a connection reached', () => {
    let server: Server
    let port: number
    beforeAll(async () => {
      server = createServer((_req, res) => res.end('reached'))
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.5', resolve))
      port = (server.address() as { port: number }).port
    })
    afterAll(() => new Promise((resolve) => server.close(resolve)))

    const get = async (refuse: Parameters<typeof createUpstreamConnector>[1]) => {
      const dispatcher = new Agent({ connect: createUpstreamConnector(undefined, refuse) })
      try {
        const response = await request(`http://127.0.0.5:${port}/`, { dispatcher })
        return await response.body.text()
      } catch (error) {
        return `refused: ${ownListenerOf(error)}`
      } finally {
        await dispatcher.close()
      }
    }

    test('closes a connection that landed on a refused address before a byte is sent; lets an allowed one through', async () => {
      const refuse = (address: string, at: number) => upstreamRefusal(trust(), address, at)
      expect(await get({ refuse })).toBe(
        'refused: a non-public address (127.0.0.5; svc serve --allow-upstream admits a range)',
      )
      const allowed = trust({ allowUpstream: parseAddressList(['127.0.0.5'], '--allow-upstream') })
      expect(await get({ refuse: (address, at) => upstreamRefusal(allowed, address, at) })).toBe('reached')
      // svc up: no such rule.
      expect(await get({})).toBe('reached')
    })
  })
})
