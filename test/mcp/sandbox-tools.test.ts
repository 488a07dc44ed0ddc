import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { createSvcClient } from '../../sdk/client.js'
import { startSandbox, type TestSandbox } from '../../sdk/testing.js'
import { connectMcpAt, expectRefused, payTo, textOf, type McpSession } from './connect.js'

const sandboxTools = [
  'svc_snapshot',
  'svc_list_snapshots',
  'svc_revert_snapshot',
  'svc_get_time',
  'svc_advance_time',
  'svc_list_faults',
  'svc_add_fault',
  'svc_clear_faults',
]

// A whole sandbox (chain included) for the file; every test starts from the same snapshot, reverted to after it.
let sandbox: TestSandbox
let mcp: McpSession
let initial: string
const sessions: McpSession[] = []
beforeAll(async () => {
  sandbox = await startSandbox()
  mcp = await connectMcpAt(sandbox.sandboxControlUrl, sandbox.seller.apiKey)
  sessions.push(mcp)
  initial = await sandbox.snapshot()
})
afterEach(() => sandbox.revert(initial))
afterAll(async () => {
  for (const session of sessions) await session.close()
  await sandbox?.stop()
})

describe('svc mcp: the Sandbox tools (snapshots, time travel, faults)', () => {
  test('tools/list: the Sandbox tools come after the others, each says it is for the local Sandbox only', async () => {
    const { tools } = await mcp.client.listTools()
    const names = tools.map((tool) => tool.name)
    expect(names.slice(-sandboxTools.length)).toEqual(sandboxTools)
    for (const tool of tools.filter((t) => sandboxTools.includes(t.name))) {
      expect(tool.description, tool.name).toContain('Sandbox (local svc) only.')
      expect(tool.description, tool.name).toMatch(/Needs: an API key with any scopes, for the local Sandbox only/)
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false)
    }
    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    expect(byName.get('svc_revert_snapshot')!.inputSchema.required).toEqual(['snapshot_id'])
    expect(byName.get('svc_advance_time')!.inputSchema.required).toEqual(['seconds'])
    expect(byName.get('svc_add_fault')!.inputSchema.required).toEqual(['kind'])
  })

  test('svc_snapshot, a change, svc_revert_snapshot: the change is undone', async () => {
    const snapshot = await mcp.ok('svc_snapshot')
    expect(snapshot).toMatchObject({ id: expect.any(String), chain_block: expect.any(Number) })
    expect((await mcp.ok('svc_list_snapshots')).snapshots.map((s: { id: string }) => s.id)).toContain(snapshot.id)

    const api = await mcp.ok('svc_create_api', {
      name: 'Later',
      slug: `mcp-snap-${process.pid}`,
      upstream_base_url: 'http://127.0.0.1:9',
      pay_to_address: payTo,
    })
    expect((await mcp.ok('svc_list_apis')).apis.map((a: { id: string }) => a.id)).toContain(api.id)

    const result = await mcp.call('svc_revert_snapshot', { snapshot_id: snapshot.id })
    expect(result.isError, textOf(result)).toBeFalsy()
    expect(result.structuredContent).toMatchObject({
      id: snapshot.id,
      chain_block: snapshot.chain_block,
      discarded: [],
      took_ms: expect.any(Number),
    })
    expect(textOf(result)).toContain(`Reverted to ${snapshot.id}`)
    expect((await mcp.ok('svc_list_apis')).apis.map((a: { id: string }) => a.id)).not.toContain(api.id)
    // The snapshot stays usable.
    expect((await mcp.ok('svc_list_snapshots')).snapshots.map((s: { id: string }) => s.id)).toContain(snapshot.id)
  })

  test('svc_advance_time moves the chain and svc forward; svc_get_time reads it back; a revert takes it back', async () => {
    const before = await mcp.ok('svc_get_time')
    const snapshot = await mcp.ok('svc_snapshot')
    const advanced = await mcp.ok('svc_advance_time', { seconds: 3600 })
    expect(advanced.offset_seconds).toBeGreaterThanOrEqual(before.offset_seconds + 3600)
    expect(advanced.chain_time).toBeGreaterThanOrEqual(before.chain_time + 3600)
    const read = await mcp.ok('svc_get_time')
    expect(read.offset_seconds).toBe(advanced.offset_seconds)
    expect(read.chain_block).toBe(advanced.chain_block)
    expect(Date.parse(read.svc_time)).toBeGreaterThanOrEqual(Date.now() + 3_590_000)

    await mcp.ok('svc_revert_snapshot', { snapshot_id: snapshot.id })
    expect((await mcp.ok('svc_get_time')).offset_seconds).toBe(before.offset_seconds)
  })

  test('svc_add_fault, svc_list_faults, svc_clear_faults: one by id, then all', async () => {
    const reasons = (await mcp.ok('svc_list_faults')).reasons as string[]
    expect(reasons).toContain('invalid_exact_evm_signature')
    const fault = await mcp.ok('svc_add_fault', { kind: 'verify', reason: 'invalid_exact_evm_signature', times: 2 })
    expect(fault).toMatchObject({
      kind: 'verify',
      reason: 'invalid_exact_evm_signature',
      times: 2,
      remaining: 2,
      api: null,
      hits: 0,
    })
    const upstream = await mcp.ok('svc_add_fault', { kind: 'upstream', status: 503 })
    const listed = await mcp.call('svc_list_faults')
    expect((listed.structuredContent as any).faults.map((f: { id: string }) => f.id)).toEqual([fault.id, upstream.id])
    expect(textOf(listed)).toContain(
      `${fault.id}: verify answers invalid_exact_evm_signature; every API; 2 of 2 strikes left`,
    )
    // The SDK sees the same faults.
    expect((await sandbox.faults.list()).map((f) => f.id)).toEqual([fault.id, upstream.id])

    expect(await mcp.ok('svc_clear_faults', { fault_id: fault.id })).toEqual({ cleared: 1 })
    expect((await mcp.ok('svc_list_faults')).faults.map((f: { id: string }) => f.id)).toEqual([upstream.id])
    expect(await mcp.ok('svc_clear_faults')).toEqual({ cleared: 1 })
    expect((await mcp.ok('svc_list_faults')).faults).toEqual([])
  })

  test('a refusal is an error result carrying svc’s message', async () => {
    await expectRefused(mcp, 'svc_revert_snapshot', { snapshot_id: 'snap_unknown' }, 'snapshot not found (HTTP 404)')
    await expectRefused(
      mcp,
      'svc_add_fault',
      { kind: 'verify' },
      'reason: a verify fault needs the x402 reason to answer (HTTP 400)',
    )
    await expectRefused(
      mcp,
      'svc_add_fault',
      { kind: 'verify', reason: 'out_of_luck' },
      'reason: "out_of_luck" is not a reason of the exact scheme',
    )
    await expectRefused(
      mcp,
      'svc_add_fault',
      { kind: 'upstream', status: 503, drop: true },
      'an upstream fault takes exactly one of status, delay_ms and drop (HTTP 400)',
    )
    await expectRefused(
      mcp,
      'svc_add_fault',
      { kind: 'verify', reason: 'invalid_exact_evm_signature', api: 'no-such-api' },
      'no Sandbox API has the slug "no-such-api" (HTTP 404)',
    )
    await expectRefused(
      mcp,
      'svc_clear_faults',
      { fault_id: 'flt_unknown' },
      'no fault flt_unknown is in force (HTTP 404)',
    )
  })

  test('with a svc_live_ key (the production control plane) the Sandbox tools fail with the route’s own message', async () => {
    const session = createSvcClient({ baseUrl: sandbox.controlUrl, jwt: sandbox.seller.jwt })
    const { key } = await session.keys.create({ name: 'live', scopes: ['apis:read'] })
    expect(key).toMatch(/^svc_live_/)
    const live = await connectMcpAt(sandbox.controlUrl, key)
    sessions.push(live)
    const call = `for the Sandbox only (call ${sandbox.sandboxControlUrl})`
    await expectRefused(live, 'svc_snapshot', {}, `snapshots: ${call} (HTTP 403)`)
    await expectRefused(live, 'svc_list_snapshots', {}, `snapshots: ${call}`)
    await expectRefused(live, 'svc_revert_snapshot', { snapshot_id: initial }, `snapshots: ${call}`)
    await expectRefused(live, 'svc_get_time', {}, `time travel: ${call}`)
    await expectRefused(live, 'svc_advance_time', { seconds: 60 }, `time travel: ${call}`)
    await expectRefused(live, 'svc_list_faults', {}, `faults are read: ${call}`)
    await expectRefused(live, 'svc_add_fault', { kind: 'upstream', status: 503 }, `faults are changed: ${call}`)
    await expectRefused(live, 'svc_clear_faults', {}, `faults are changed: ${call}`)
    expect(await sandbox.faults.list()).toEqual([])
  })
})
