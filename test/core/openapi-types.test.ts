import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
// @ts-expect-error bin/contract-types.js is plain JavaScript without type declarations.
import { contractTypesFile, generateContractTypes } from '../../bin/contract-types.js'
import { firstDifference } from '../helpers/first-difference.js'

const regenerateHint = 'run `npm run build:contract-types` and commit core/openapi.generated.ts'

// Its agreement with core/'s types is checked by the type checker: openapi-types.test-d.ts.
describe('core/openapi.generated.ts', () => {
  test('is exactly what openapi-typescript generates from server/openapi.yaml', async () => {
    const generated: string = await generateContractTypes()
    const committed = readFileSync(contractTypesFile, 'utf8')
    expect(
      committed === generated,
      `core/openapi.generated.ts is stale (${firstDifference(generated, committed, 'generated')}): ${regenerateHint}`,
    ).toBe(true)
  })
})
