/**
 * The schema probe (server/upstream/schema-inference.ts) connects through the gateway's connector (server/upstream/own-listeners.ts):
 * a name that resolves to a public address when it is checked and to one of svc's own listeners when the probe
 * connects (DNS rebinding) gets nothing from that listener. Without the connector's check the same probe reads it,
 * which shows the rebinding below is real.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { ownListenerTargetedBy } from '../../server/upstream/own-listeners.js'
import { probeJson } from '../../server/upstream/schema-inference.js'
import { rebindName } from '../helpers/rebinding-dns.js'

const own = { calls: 0 }
const listener = createServer((_req, res) => {
  own.calls++
  res.setHeader('content-type', 'application/json').end('{"secret":true}')
})
let port: number
let restoreDns = () => {}

beforeAll(async () => {
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  port = (listener.address() as AddressInfo).port
  restoreDns = rebindName('rebound.test', { checked: '192.0.2.7', connected: '127.0.0.1' })
})

afterAll(async () => {
  restoreDns()
  listener.closeAllConnections()
  await new Promise((resolve) => listener.close(resolve))
})

const ownListeners = () => new Map([[port, "svc's facilitator"]])
const allowed = async (url: string) => (await ownListenerTargetedBy(url, ownListeners())) === undefined

test('the check passes the name (it resolves to a public address then)', async () => {
  expect(await allowed(`http://rebound.test:${port}/x`)).toBe(true)
})

test('a probe whose name rebinds to one of svc’s own listeners gets nothing from it', async () => {
  own.calls = 0
  expect(await probeJson(`http://rebound.test:${port}/x`, { allowed, ownListeners })).toBeUndefined()
  expect(own.calls).toBe(0)
})

test('the same probe without the connector’s check reads the listener (the rebinding is real)', async () => {
  own.calls = 0
  expect(await probeJson(`http://rebound.test:${port}/x`, { allowed })).toEqual({ secret: true })
  expect(own.calls).toBe(1)
})
