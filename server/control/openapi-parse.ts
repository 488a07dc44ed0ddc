import { dereference } from '@apidevtools/json-schema-ref-parser'
import { parse as parseYaml } from 'yaml'
import { BadRequestError } from '../../core/errors.js'
import type { JsonSchema } from '../upstream/index.js'

export type ParsedOperation = {
  method: string
  path_pattern: string
  summary: string | null
  description: string | null
  operation_id: string | null
  request_schema: JsonSchema | null
  response_schema: JsonSchema | null
}

export type ParsedOpenApi = { openapi_version: string; title: string | null; operations: ParsedOperation[] }

const operationMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const

/** Most JSON nodes the schemas of one document may expand to once `$ref`s are inlined (shared refs are copied). */
const nodeBudget = 200_000

type Obj = Record<string, unknown>
const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value)
const firstLine = (message: string) => message.split('\n')[0]!.trim()
const text = (value: unknown) => (typeof value === 'string' ? value : null)

/**
 * Parses OpenAPI 3.0/3.1 text (YAML or JSON) into operations with their JSON request and 200 (else first 2xx)
 * response schemas. Local `$ref`s are inlined; external ones are never fetched (they stay as a `$comment`), and a
 * circular reference is cut where it repeats. OpenAPI 3.0's `nullable` and boolean `exclusiveMinimum`/`Maximum`
 * become their JSON Schema 2020-12 forms.
 */
export async function parseOpenApi(source: string): Promise<ParsedOpenApi> {
  let doc: unknown
  try {
    doc = parseYaml(source, { maxAliasCount: 100 })
  } catch (error) {
    throw new BadRequestError(`spec: not valid YAML or JSON: ${firstLine((error as Error).message)}`)
  }
  if (!isObject(doc)) throw new BadRequestError('spec: not an OpenAPI document (expected a YAML or JSON object)')
  if (doc.swagger !== undefined)
    throw new BadRequestError('spec: Swagger 2.0 is not supported; convert it to OpenAPI 3.0 or 3.1')
  const version = doc.openapi
  if (typeof version !== 'string' || !/^3\.[01]\.\d+/.test(version))
    throw new BadRequestError('spec: not an OpenAPI 3.0 or 3.1 document (its "openapi" field must be 3.0.x or 3.1.x)')
  if (doc.paths !== undefined && !isObject(doc.paths)) throw new BadRequestError('spec: "paths" must be an object')

  let resolved: Obj
  try {
    resolved = (await dereference(doc, {
      resolve: { external: false, file: false, http: false },
      dereference: { circular: true },
      timeoutMs: 5000,
    })) as Obj
  } catch (error) {
    throw new BadRequestError(`spec: cannot resolve $ref: ${firstLine((error as Error).message)}`)
  }

  const budget = { left: nodeBudget }
  const openapi30 = version.startsWith('3.0')
  const schemaOf = (content: unknown): JsonSchema | null => {
    if (!isObject(content)) return null
    const media =
      content['application/json'] !== undefined
        ? 'application/json'
        : Object.keys(content).find((type) => /json/i.test(type))
    const schema = media === undefined ? undefined : (content[media] as Obj | undefined)?.schema
    return isObject(schema) ? (toJsonSchema(schema, openapi30, budget, new Set()) as JsonSchema) : null
  }

  const operations: ParsedOperation[] = []
  for (const [path, item] of Object.entries((resolved.paths as Obj | undefined) ?? {})) {
    if (!isObject(item)) continue
    for (const method of operationMethods) {
      const operation = item[method]
      if (!isObject(operation)) continue
      const requestBody = operation.requestBody
      const responses = isObject(operation.responses) ? operation.responses : {}
      const success =
        responses['200'] !== undefined
          ? '200'
          : Object.keys(responses)
              .sort()
              .find((status) => /^2(\d\d|XX)$/i.test(status))
      const response = success === undefined ? undefined : responses[success]
      operations.push({
        method: method.toUpperCase(),
        path_pattern: path,
        summary: text(operation.summary),
        description: text(operation.description),
        operation_id: text(operation.operationId),
        request_schema: isObject(requestBody) ? schemaOf(requestBody.content) : null,
        response_schema: isObject(response) ? schemaOf(response.content) : null,
      })
    }
  }
  const info = isObject(resolved.info) ? resolved.info : {}
  return { openapi_version: version, title: text(info.title), operations }
}

/** A plain, acyclic, self-contained copy of a dereferenced schema (see {@link parseOpenApi}). */
function toJsonSchema(value: unknown, openapi30: boolean, budget: { left: number }, ancestors: Set<object>): unknown {
  if (--budget.left < 0)
    throw new BadRequestError(`spec: schemas too large once $refs are expanded (more than ${nodeBudget} nodes)`)
  if (typeof value !== 'object' || value === null) return value
  if (ancestors.has(value)) return { $comment: 'circular $ref, not expanded' }
  ancestors.add(value)
  try {
    if (Array.isArray(value)) return value.map((element) => toJsonSchema(element, openapi30, budget, ancestors))
    const entries: [string, unknown][] = []
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string')
        entries.push(['$comment', `unresolved $ref ${JSON.stringify(child)}`])
      else entries.push([key, toJsonSchema(child, openapi30, budget, ancestors)])
    }
    const copy = Object.fromEntries(entries) as Obj
    return openapi30 ? fromOpenApi30(copy) : copy
  } finally {
    ancestors.delete(value)
  }
}

/** OpenAPI 3.0 schema keywords in their JSON Schema 2020-12 forms. */
function fromOpenApi30(schema: Obj): Obj {
  if (typeof schema.nullable === 'boolean') {
    if (schema.nullable && typeof schema.type === 'string') schema.type = [schema.type, 'null']
    delete schema.nullable
  }
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof schema[exclusive] !== 'boolean') continue
    if (schema[exclusive] && typeof schema[bound] === 'number') {
      schema[exclusive] = schema[bound]
      delete schema[bound]
    } else delete schema[exclusive]
  }
  return schema
}
