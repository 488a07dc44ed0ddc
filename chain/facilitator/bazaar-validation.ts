import { createHash } from 'node:crypto'
import {
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
  type DiscoveryExtension,
} from '@x402/extensions/bazaar'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import { LRUCache } from 'lru-cache'
import { cutText } from '../../core/http.js'

/**
 * Schemas `@x402/extensions` found valid, each with its compiled validator. `validateDiscoveryExtension` builds an
 * Ajv and compiles the schema on every call (milliseconds, tens of them on a busy machine), and svc's gateway
 * declares one schema per endpoint but a new `info` per request (a dynamic route's `pathParams`): compiled once here
 * (with the package's Ajv: 2020-12, `strict: false`, `allErrors: true`), an info is checked in microseconds.
 */
const trusted = new LRUCache<string, ValidateFunction>({ max: 500 })

/** Verdicts on extensions the package refused, by content, so a refused extension paid again costs nothing. */
const refused = new LRUCache<string, string>({ max: 1000 })

const fingerprintOf = (json: string) => createHash('sha256').update(json).digest('base64')

/**
 * Why the extension fails the bazaar spec's invariants (`validateDiscoveryExtensionSpec`) or its own schema
 * (`validateDiscoveryExtension`: no external `$ref`/`$id`, `info` valid against `schema`), or undefined when it
 * passes. A schema the package has not accepted yet is always judged by the package itself.
 */
export function discoveryExtensionProblem(extension: Record<string, unknown>, json: string): string | undefined {
  const spec = problems(validateDiscoveryExtensionSpec(extension).errors)
  if (spec) return spec
  const schemaKey = fingerprintOf(JSON.stringify(extension.schema))
  const compiled = trusted.get(schemaKey)
  if (compiled) {
    if (compiled(extension.info)) return undefined
    return problems(compiled.errors?.map((error) => `${error.instancePath || '(root)'}: ${error.message}`))
  }
  const key = fingerprintOf(json)
  const known = refused.get(key)
  if (known !== undefined) return known
  const checked = safely(() => validateDiscoveryExtension(extension as unknown as DiscoveryExtension))
  if (checked?.valid) {
    const validate = safely(() =>
      new Ajv2020({ strict: false, allErrors: true }).compile(extension.schema as Record<string, unknown>),
    )
    if (validate) trusted.set(schemaKey, validate)
    return undefined
  }
  const problem = problems(checked?.errors) ?? 'its schema cannot be read'
  refused.set(key, problem)
  return problem
}

function safely<T>(read: () => T): T | undefined {
  try {
    return read()
  } catch {
    return undefined
  }
}

/** The first few validation errors as one bounded line, or undefined when there are none. */
function problems(errors: string[] | undefined): string | undefined {
  if (!errors?.length) return undefined
  return cutText(errors.slice(0, 3).join('; '), 300)
}
