import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { localFetch } from '../../sdk/local-fetch.js'
import { isProcessRunning } from '../../core/os-process.js'
import { readSandboxPids } from '../helpers/processes.js'
import { startSvcProcess } from '../helpers/svc-process.js'
import { readyLineFields } from '../../cli/ready-line.js'
import { docBlock } from '../docs/blocks.js'
import { jsonShape } from '../docs/reference-table.js'

const svcBin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url))

describe('svc up', () => {
  test('--json prints one ready line with every URL; SIGTERM stops everything, Anvil included', async () => {
    const svc = await startSvcProcess()
    const { ready } = svc
    // The keys docs/reference/ready-line.md lists, in the line's order, and its sample has the same keys.
    expect(Object.keys(ready)).toEqual(readyLineFields.map(([key]) => key))
    expect(jsonShape(JSON.parse(docBlock('ready line').code))).toEqual(jsonShape(ready))
    expect(ready).toMatchObject({
      chain_id: 845320402,
      network: 'eip155:845320402',
      platform_domain: 'localhost',
      sandbox_platform_domain: 'dev.localhost',
    })
    expect(ready.sandbox_control_url).toBe(`http://sandbox.localhost:${ready.gateway_port}`)
    expect(ready.direct_gateway_base).toBe(`http://127.0.0.1:${ready.gateway_port}/gateway`)
    // No twin unless asked for (svc up --twin).
    expect(ready.twins).toEqual([])

    const platform = await (await localFetch(`${ready.sandbox_control_url}/config/platform`)).json()
    expect(platform).toMatchObject({ gateway_port: ready.gateway_port })
    const local = await (await localFetch(`${ready.control_url}/config/local-dev`)).json()
    expect(local).toMatchObject({ enabled: true, rpc_url: ready.rpc_url })
    const chain = await (await fetch(`${ready.chain_manager_url}/chain`)).json()
    expect(chain).toMatchObject({ chain_id: 845320402 })

    expect(await svc.stop()).toBe(0)
    // The chain is gone with it.
    await expect(fetch(ready.rpc_url, { method: 'POST', body: '{}' })).rejects.toThrow()
  })

  test('SIGTERM the moment the ready line is out: a clean stop, exit 0, its Anvil gone', async () => {
    const svc = await startSvcProcess()
    const { anvil } = readSandboxPids(svc.ready.data_dir)
    // No await between the ready line and the signal (cli/signals.ts: the listener is there from before the start).
    expect(await svc.stop()).toBe(0)
    expect(svc.child.signalCode).toBe(null)
    await expect.poll(() => isProcessRunning(anvil)).toBe(false)
  })

  test.each([
    [
      ['--port', 'eighty'],
      {},
      `svc: option '--port <port>' argument 'eighty' is invalid. It must be a port number (0-65535).`,
    ],
    [
      ['--rpc-port', '65536'],
      {},
      `svc: option '--rpc-port <port>' argument '65536' is invalid. It must be a port number (0-65535).`,
    ],
    [
      ['--facilitator-port', '-1'],
      {},
      `svc: option '--facilitator-port <port>' argument '-1' is invalid. It must be a port number (0-65535).`,
    ],
    [[], { SVC_PORT: '80a' }, 'svc: SVC_PORT "80a" is invalid. It must be a port number (0-65535).'],
  ])('a bad port (%j, %j) is a usage error before anything starts: one line, exit code 2', (args, env, line) => {
    const result = spawnSync(process.execPath, [svcBin, 'up', '--ephemeral', ...args], {
      encoding: 'utf8',
      env: { ...process.env, ...env },
    })
    expect(result.stderr.trim()).toBe(line)
    expect(result.status).toBe(2)
  })

  test('an unknown --relay (or SVC_RELAY) is a usage error', () => {
    const flag = spawnSync(process.execPath, [svcBin, 'up', '--ephemeral', '--relay', 'fast'], {
      encoding: 'utf8',
    })
    expect(flag.status).toBe(2)
    expect(flag.stderr.trim()).toBe('svc: --relay must be one of tuned, viem, not "fast"')
    const env = spawnSync(process.execPath, [svcBin, 'up', '--ephemeral'], {
      encoding: 'utf8',
      env: { ...process.env, SVC_RELAY: 'plain' },
    })
    expect(env.status).toBe(2)
    expect(env.stderr.trim()).toBe('svc: --relay must be one of tuned, viem, not "plain"')
  })

  test('an unknown command is a usage error', () => {
    const result = spawnSync(process.execPath, [svcBin, 'frobnicate'], { encoding: 'utf8' })
    expect(result.status).toBe(2)
    expect(result.stderr).toMatch(/unknown command 'frobnicate'/)
  })
})
