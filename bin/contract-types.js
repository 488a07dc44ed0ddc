// `npm run build:contract-types`: writes core/openapi.generated.ts, the TypeScript types of server/openapi.yaml (the
// contract), with openapi-typescript. sdk/types.ts names the SDK's record types after them. A test regenerates the
// text in memory and fails when the committed file differs, so run this after editing the yaml and commit the result.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { root } from './build.js'

export const contractYaml = join(root, 'server/openapi.yaml')
export const contractTypesFile = join(root, 'core/openapi.generated.ts')

/**
 * The text of core/openapi.generated.ts. Objects without properties (JSON Schemas, `extra`) are `Record<string, unknown>`;
 * a property with a `default` stays optional unless the yaml lists it as required (requests may leave it out).
 */
export async function generateContractTypes() {
  const { default: openapiTS, astToString } = await import('openapi-typescript')
  const { version } = JSON.parse(readFileSync(join(root, 'node_modules/openapi-typescript/package.json'), 'utf8'))
  const ast = await openapiTS(pathToFileURL(contractYaml), {
    emptyObjectsUnknown: true,
    defaultNonNullable: false,
    silent: true,
  })
  return (
    `// Generated from server/openapi.yaml by bin/contract-types.js with openapi-typescript ${version}. Do not edit:\n` +
    '// run `npm run build:contract-types` after changing the yaml.\n\n' +
    astToString(ast)
  )
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(contractTypesFile, await generateContractTypes())
  console.log('wrote core/openapi.generated.ts')
}
