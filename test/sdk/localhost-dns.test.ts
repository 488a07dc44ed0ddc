import dns from 'node:dns'
import { lookup as importedLookup } from 'node:dns'
import { once } from 'node:events'
import { createServer, get } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isLocalhostSubdomain, resolveLocalhostSubdomains } from '../../sdk/localhost-dns.js'

const server = createServer((req, res) => res.end(`host ${req.headers.host}`))
let port: number

beforeAll(async () => {
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  port = (server.address() as AddressInfo).port
  resolveLocalhostSubdomains()
})
afterAll(() => void server.close())

describe('resolveLocalhostSubdomains (svc/register)', () => {
  it('tells *.localhost names from the rest', () => {
    expect(['weather.dev.localhost', 'API.localhost', 'a.localhost.'].map(isLocalhostSubdomain)).toEqual([
      true,
      true,
      true,
    ])
    expect(['localhost', 'localhost.example.com', 'example.com', 'xlocalhost'].map(isLocalhostSubdomain)).toEqual([
      false,
      false,
      false,
      false,
    ])
  })

  it("Node's global fetch reaches http://weather.dev.localhost:PORT, with that Host", async () => {
    expect(await (await fetch(`http://weather.dev.localhost:${port}/`)).text()).toBe(
      `host weather.dev.localhost:${port}`,
    )
  })

  it('node:http (what axios uses) reaches it too', async () => {
    const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) =>
      get(`http://api.localhost:${port}/`, resolve).on('error', reject),
    )
    let body = ''
    for await (const chunk of response) body += chunk
    expect(body).toBe(`host api.localhost:${port}`)
  })

  it('dns.lookup in every form, dns.promises.lookup and the ESM named export answer 127.0.0.1', async () => {
    const lookup = (options: dns.LookupAllOptions | dns.LookupOneOptions | number) =>
      new Promise((resolve, reject) =>
        dns.lookup('x.dev.localhost', options as never, (error, address, family) =>
          error ? reject(error) : resolve([address, family]),
        ),
      )
    expect(await lookup({})).toEqual(['127.0.0.1', 4])
    expect(await lookup(4)).toEqual(['127.0.0.1', 4])
    expect(await lookup({ all: true })).toEqual([[{ address: '127.0.0.1', family: 4 }], undefined])
    expect(await dns.promises.lookup('x.localhost')).toEqual({ address: '127.0.0.1', family: 4 })
    expect(await dns.promises.lookup('x.localhost', { all: true })).toEqual([{ address: '127.0.0.1', family: 4 }])
    expect(importedLookup).toBe(dns.lookup)
  })

  it('leaves other names to the system resolver', async () => {
    const { address } = await dns.promises.lookup('127.0.0.1')
    expect(address).toBe('127.0.0.1')
    await expect(dns.promises.lookup('no-such-name.invalid')).rejects.toHaveProperty('hostname', 'no-such-name.invalid')
  })
})
