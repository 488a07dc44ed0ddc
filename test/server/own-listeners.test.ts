import { describe, expect, test } from 'vitest'
import { isLoopbackAddress } from '../../core/address-list.js'
import { ownListenerTargetedBy } from '../../server/upstream/own-listeners.js'

const ports = new Map([[4020, "svc's control plane and gateway"]])

describe('ownListenerTargetedBy', () => {
  test('a name is resolved, and any of its addresses on loopback counts', async () => {
    const resolve = async (name: string) =>
      name === 'rebind.example.test' ? ['203.0.113.5', '127.0.0.1'] : ['203.0.113.5']
    expect(await ownListenerTargetedBy('http://rebind.example.test:4020', ports, { resolve })).toBe(
      "svc's control plane and gateway",
    )
    expect(await ownListenerTargetedBy('http://elsewhere.example.test:4020', ports, { resolve })).toBeUndefined()
    expect(await ownListenerTargetedBy('http://127.0.0.1:4021', ports, { resolve })).toBeUndefined()
    expect(await ownListenerTargetedBy('http://127.0.0.1', new Map([[80, 'x']]), { resolve })).toBe('x')
    const failing = async () => Promise.reject(new Error('ENOTFOUND'))
    expect(await ownListenerTargetedBy('http://nowhere.example.test:4020', ports, { resolve: failing })).toBeUndefined()
  })

  test('loopback addresses', () => {
    for (const address of ['127.0.0.1', '127.255.0.1', '0.0.0.0', '::1', '::', '::ffff:127.0.0.1', '::ffff:7f00:1'])
      expect([address, isLoopbackAddress(address)]).toEqual([address, true])
    for (const address of ['10.0.0.1', '203.0.113.5', '::2', 'fe80::1', 'localhost'])
      expect([address, isLoopbackAddress(address)]).toEqual([address, false])
  })
})
