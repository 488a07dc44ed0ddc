import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { loadContract } from '../../server/control/openapi-document.js'

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void

type Operation = { responses?: Record<string, { $ref?: string; content?: Record<string, { schema?: unknown }> }> }
type Contract = { paths: Record<string, Record<string, Operation>>; components: { responses?: Record<string, any> } }

const contract = loadContract().json as Contract
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true })
addFormats(ajv)
ajv.addSchema({ ...(contract as object), $id: 'contract' })

const templates = Object.keys(contract.paths)
  .map((template) => ({
    template,
    params: (template.match(/\{/g) ?? []).length,
    regex: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
  }))
  .sort((a, b) => a.params - b.params)

const compiled = new Map<string, ValidateFunction>()
const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')

/**
 * Checks a real response against server/openapi.yaml: the route, method and status must be in the contract and
 * the body must match its schema. Throws with the reason otherwise.
 */
export function assertMatchesContract(
  method: string,
  path: string,
  status: number,
  body: unknown,
  contentType = 'application/json',
) {
  const pathname = path.split('?')[0]!
  const match = templates.find((t) => t.regex.test(pathname) && contract.paths[t.template]![method.toLowerCase()])
  if (!match) throw new Error(`contract: ${method} ${pathname} is not in server/openapi.yaml`)
  const operation = contract.paths[match.template]![method.toLowerCase()]!
  let response = operation.responses?.[String(status)]
  let responsePointer = pointer('paths', match.template, method.toLowerCase(), 'responses', String(status))
  if (!response)
    throw new Error(
      `contract: ${method} ${match.template} has no ${status} response in server/openapi.yaml (body: ${JSON.stringify(body)})`,
    )
  if (response.$ref) {
    const name = response.$ref.split('/').pop()!
    response = contract.components.responses![name]
    responsePointer = pointer('components', 'responses', name)
  }
  const media = contentType.split(';')[0]!.trim()
  const schema = response?.content?.[media]?.schema
  if (!schema) throw new Error(`contract: ${method} ${match.template} ${status} declares no ${media} body`)
  const ref = `contract#/${responsePointer}/${pointer('content', media, 'schema')}`
  let validate = compiled.get(ref)
  if (!validate) {
    validate = ajv.compile({ $ref: ref })
    compiled.set(ref, validate)
  }
  if (!validate(body))
    throw new Error(
      `contract: ${method} ${pathname} ${status} does not match server/openapi.yaml: ${ajv.errorsText(validate.errors)}\nbody: ${JSON.stringify(body).slice(0, 2000)}`,
    )
}
