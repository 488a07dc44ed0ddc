/**
 * prool in the `svc` bundle (patches/prool-instance.js): `Instance` is prool's own `define` alone, so the bundle holds
 * none of prool's instance definitions nor execa, and an instance defined with it starts and stops as prool's does.
 */
import { expect, test } from 'vitest'
// @ts-expect-error: a JavaScript module of the build, without declarations
import { proolInstancePatch } from '../../patches/prool-instance.js'
import { importPatchedBundle } from '../helpers/patched-bundle.js'

test("the bundle's prool Instance is prool's define, without execa", async () => {
  const { module, text, inputs, warnings } = await importPatchedBundle<{
    Instance: { define: typeof import('prool').Instance.define }
  }>("export { Instance } from 'prool'\n", [proolInstancePatch])
  expect(warnings).toEqual([])
  expect(Object.keys(module.Instance)).toEqual(['define'])
  // What execa brings along (its signal tables, cross-spawn) is not in the bundle.
  expect(text).not.toContain('findSignalByNumber')
  expect(text).not.toContain('resolveCommand')
  expect(inputs.some((input) => /node_modules[\\/]prool[\\/]dist[\\/]Instance\.js$/.test(input))).toBe(true)

  const events: string[] = []
  const instance = module.Instance.define(() => ({
    name: 'probe',
    host: '127.0.0.1',
    port: 1,
    async start() {
      events.push('start')
    },
    async stop() {
      events.push('stop')
    },
  }))()
  await instance.start()
  expect(instance.status).toBe('started')
  await instance.stop()
  expect(instance.status).toBe('stopped')
  expect(events).toEqual(['start', 'stop'])
})
