/**
 * The generated OpenAPI types agree with core/'s own: checked by the type checker (vitest's typecheck runs this file
 * with tsc, so `npm test` fails when they drift).
 */
import { describe, expectTypeOf, test } from 'vitest'
import type { components, paths } from '../../core/openapi.generated.js'
import type { apiKeyPrefixes, Environment } from '../../core/hosts.js'
import type { Preset, Scope } from '../../core/scopes.js'

type Schemas = components['schemas']
type KeyRequest = paths['/auth/api-keys']['post']['requestBody']['content']['application/json']
type Platform = paths['/config/platform']['get']['responses'][200]['content']['application/json']

describe('core/openapi.generated.ts agrees with the environments, key prefixes, scopes and presets of core/', () => {
  test('environments', () => expectTypeOf<Environment>().toEqualTypeOf<Schemas['Environment']>())
  test('scopes', () => expectTypeOf<Scope>().toEqualTypeOf<Schemas['Scope']>())
  test('presets', () => expectTypeOf<Preset>().toEqualTypeOf<NonNullable<KeyRequest['preset']>>())
  test('API key prefixes', () =>
    expectTypeOf<{ -readonly [K in Environment]: (typeof apiKeyPrefixes)[K] }>().toEqualTypeOf<
      Platform['api_key_prefixes']
    >())
})
