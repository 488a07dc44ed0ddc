import { readFileSync } from 'node:fs'
import { describe, expect, expectTypeOf, test } from 'vitest'
// @ts-expect-error bin/contract-types.js is plain JavaScript without type declarations.
import { contractTypesFile, generateContractTypes } from '../../bin/contract-types.js'
import type { components, paths } from '../../core/openapi.generated.js'
import type { apiKeyPrefixes, Environment } from '../../core/hosts.js'
import type { Preset, Scope } from '../../core/scopes.js'
import { firstDifference } from '../helpers/first-difference.js'

const regenerateHint = 'run `npm run build:contract-types` and commit core/openapi.generated.ts'

describe('core/openapi.generated.ts', () => {
  test('is exactly what openapi-typescript generates from server/openapi.yaml', async () => {
    const generated: string = await generateContractTypes()
    const committed = readFileSync(contractTypesFile, 'utf8')
    expect(
      committed === generated,
      `core/openapi.generated.ts is stale (${firstDifference(generated, committed, 'generated')}): ${regenerateHint}`,
    ).toBe(true)
  })

  test('agrees with the environments, key prefixes, scopes and presets of core/ (checked by the type checker)', () => {
    type Schemas = components['schemas']
    type KeyRequest = paths['/auth/api-keys']['post']['requestBody']['content']['application/json']
    type Platform = paths['/config/platform']['get']['responses'][200]['content']['application/json']
    expectTypeOf<Environment>().toEqualTypeOf<Schemas['Environment']>()
    expectTypeOf<Scope>().toEqualTypeOf<Schemas['Scope']>()
    expectTypeOf<Preset>().toEqualTypeOf<NonNullable<KeyRequest['preset']>>()
    expectTypeOf<{ -readonly [K in Environment]: (typeof apiKeyPrefixes)[K] }>().toEqualTypeOf<
      Platform['api_key_prefixes']
    >()
  })
})
