import { createHash } from 'node:crypto'
import { validateDiscoveryExtensionSpec } from '@x402/extensions/bazaar'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import { LRUCache } from 'lru-cache'
import { cutText } from '../../core/http.js'

/**
 * `@x402/extensions`' `validateDiscoveryExtension`, with each schema compiled once. The package builds an Ajv and
 * compiles the schema on every call (50–90 ms on a busy machine), and svc's gateway declares one schema per endpoint
 * but a new `info` per request (a dynamic route's `pathParams`): on the payment's event loop that cost would reach
 * the buyer. Same rules as the package (test/chain/facilitator/bazaar-catalog.test.ts compares the two): a schema
 * with a `$ref` or `$id` that is not a same-document fragment is refused, then `info` is validated against it with
 * Ajv's 2020-12 dialect, `strict: false`, `allErrors: true`; errors read `{instancePath or (root)}: {message}`.
 */
let ajv: Ajv2020 | undefined
const compiled = new LRUCache<string, { schema: object; validate: ValidateFunction | string }>({
  max: 500,
  // One Ajv for all of them: an evicted schema leaves it too, so it does not grow without bound.
  dispose: ({ schema }) => void ajv?.removeSchema(schema),
})

const fingerprintOf = (json: string) => createHash('sha256').update(json).digest('base64')

/** The package's rule: a `$ref` or `$id` anywhere that is not a string starting with `#`. */
function hasExternalReference(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasExternalReference)
  if (node === null || typeof node !== 'object') return false
  return Object.entries(node).some(
    ([key, value]) =>
      ((key === '$ref' || key === '$id') && (typeof value !== 'string' || !value.startsWith('#'))) ||
      hasExternalReference(value),
  )
}

function validatorOf(schema: unknown): ValidateFunction | string {
  if (hasExternalReference(schema)) return 'schema must not contain external $ref/$id references'
  const json = JSON.stringify(schema ?? null)
  const key = fingerprintOf(json)
  const known = compiled.get(key)
  if (known) return known.validate
  // A copy: Ajv keys its cache by the object, and the payload's may be mutated by its owner.
  const own = JSON.parse(json) as object
  let validate: ValidateFunction | string
  try {
    ajv ??= new Ajv2020({ strict: false, allErrors: true })
    validate = ajv.compile(own)
  } catch (error) {
    validate = `Schema validation failed: ${error instanceof Error ? error.message : String(error)}`
  }
  compiled.set(key, { schema: own, validate })
  return validate
}

/**
 * Why the extension fails the bazaar spec's invariants (`validateDiscoveryExtensionSpec`, the package's) or its own
 * schema (the package's `validateDiscoveryExtension` rules, above), or undefined when it passes.
 */
export function discoveryExtensionProblem(extension: Record<string, unknown>): string | undefined {
  const spec = problems(validateDiscoveryExtensionSpec(extension).errors)
  if (spec) return spec
  const validate = validatorOf(extension.schema)
  if (typeof validate === 'string') return cutText(validate, 300)
  if (validate(extension.info)) return undefined
  return (
    problems(validate.errors?.map((error) => `${error.instancePath || '(root)'}: ${error.message}`)) ??
    'Unknown validation error'
  )
}

/** The first few validation errors as one bounded line, or undefined when there are none. */
function problems(errors: string[] | undefined): string | undefined {
  if (!errors?.length) return undefined
  return cutText(errors.slice(0, 3).join('; '), 300)
}
