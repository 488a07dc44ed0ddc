/**
 * docs/reference/api.md: the control plane's HTTP API, rendered from server/openapi.yaml (the contract every response
 * of the control-plane tests is checked against, test/helpers/contract.ts; test/server/control/contract-routes.test.ts
 * holds its paths equal to the router's). An intro, one `##` per tag in the contract's order with one `###` per
 * operation in path order, then `## Schemas` with one `###` per component schema.
 *
 * Anchors are explicit and stable, so other pages may link them:
 * - an operation: `#<method>-<path>`, the method lower-cased, then the path lower-cased with every run of characters
 *   other than a–z and 0–9 turned into one `-` and the ends trimmed (`POST /apis/{apiId}/endpoints` →
 *   `#post-apis-apiid-endpoints`, `GET /openapi.json` → `#get-openapi-json`, `GET /` → `#get`): operationAnchor();
 * - a tag: `#tag-<name>`; a component schema: `#schema-<name lower-cased>`.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import $RefParser from '@apidevtools/json-schema-ref-parser'
import { parse } from 'yaml'
import { apiKeyPrefixes, defaultHosts, defaultPort } from '../../../core/hosts.js'
import { root } from '../blocks.js'

export const page = 'docs/reference/api.md'
export const contractFile = 'server/openapi.yaml'

type Schema = Record<string, any>
type Parameter = { name: string; in: string; required?: boolean; description?: string; schema?: Schema }
type ParameterOrRef = Parameter | { $ref: string }
export type Operation = {
  method: string
  path: string
  tags?: string[]
  summary?: string
  description?: string
  security?: Record<string, string[]>[]
  parameters?: ParameterOrRef[]
  requestBody?: {
    $ref?: string
    required?: boolean
    description?: string
    content?: Record<string, { schema?: Schema }>
  }
  responses?: Record<string, Schema>
}
export type Contract = {
  info: { title: string; description?: string }
  security?: Record<string, string[]>[]
  tags?: { name: string; description?: string }[]
  paths: Record<string, Record<string, any>>
  components: { schemas: Record<string, Schema>; parameters?: Record<string, Parameter> }
}

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

/** The contract, parsed. */
export function readContract(): Contract {
  return parse(readFileSync(join(root, contractFile), 'utf8')) as Contract
}

/** Every operation of the contract, in path order, its path-level parameters merged in (an operation's own win). */
export function operationsOf(contract: Contract): Operation[] {
  const operations: Operation[] = []
  for (const [path, item] of Object.entries(contract.paths)) {
    for (const method of Object.keys(item).filter((key) => methods.includes(key))) {
      const own: ParameterOrRef[] = item[method].parameters ?? []
      const shared = ((item.parameters ?? []) as ParameterOrRef[]).filter(
        (p) => !own.some((o) => JSON.stringify(o) === JSON.stringify(p)),
      )
      operations.push({ ...item[method], method: method.toUpperCase(), path, parameters: [...shared, ...own] })
    }
  }
  return operations
}

/** The operation's anchor (see the rule at the top of this file). */
export function operationAnchor(method: string, path: string): string {
  return `${method} ${path}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
}

const schemaAnchor = (name: string) => `schema-${name.toLowerCase()}`

/** Markdown text outside code spans: `<` would open a Vue tag, `{` an attribute list or (doubled) an interpolation. */
function plain(text: string, inTable: boolean): string {
  const escaped = text.replace(/</g, '&lt;').replace(/\{/g, '&#123;')
  return inTable ? escaped.replace(/\|/g, '\\|') : escaped
}

/** Escapes text for a page (`inTable`: for a table cell, on one line), leaving code spans as code. */
export function escapeMarkdown(text: string, inTable = false): string {
  const source = inTable ? text.replace(/\s*\n\s*/g, ' ').trim() : text.trim()
  let out = ''
  let last = 0
  for (const match of source.matchAll(/(`+)([\s\S]*?[^`])\1(?!`)/g)) {
    out += plain(source.slice(last, match.index), inTable)
    const code = match[2]!
    // Vue interpolates `{{` even in a code span: such a span becomes a v-pre <code> with its braces as entities.
    if (code.includes('{{'))
      out += `<code v-pre>${code.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/\{/g, '&#123;').replace(/\|/g, '&#124;')}</code>`
    else out += inTable ? match[0].replace(/\|/g, '\\|') : match[0]
    last = match.index + match[0].length
  }
  return out + plain(source.slice(last), inTable)
}

/** After a field's or a parameter's name: it must be given (or, in an answer, is always there). */
const required = ' *required*'
const code = (text: string) => (text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``)
const literal = (value: unknown) => code(typeof value === 'string' ? value : JSON.stringify(value))
const orList = (items: string[]) =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`

/** Renders one contract: the page's text. */
export async function renderContract(contract: Contract): Promise<string> {
  const refs = await $RefParser.resolve(structuredClone(contract) as any)
  const deref = (node: Schema | undefined): Schema => {
    let current = node ?? {}
    for (let hops = 0; current.$ref; hops++) {
      if (hops > 20) throw new Error(`${contractFile}: $ref loop at ${current.$ref}`)
      current = refs.get(current.$ref) as Schema
    }
    return current
  }
  const schemaName = (node: Schema | undefined) => /^#\/components\/schemas\/([^/]+)$/.exec(node?.$ref ?? '')?.[1]
  const schemaLink = (name: string) => `[${name}](#${schemaAnchor(name)})`

  /** A schema's type in a few words; named schemas are links to their section. */
  function typeOf(node: Schema | undefined): string {
    const name = schemaName(node)
    if (name) return schemaLink(name)
    const schema = deref(node)
    if ('const' in schema) return literal(schema.const)
    if (schema.enum) return orList(schema.enum.map(literal))
    if (schema.oneOf || schema.anyOf) return orList((schema.oneOf ?? schema.anyOf).map(typeOf))
    if (schema.allOf)
      return (schema.allOf as Schema[])
        .map((part) =>
          schemaName(part) || !deref(part).properties
            ? typeOf(part)
            : `with ${Object.keys(deref(part).properties).map(code).join(', ')}`,
        )
        .join(' ')
    const types: string[] = [schema.type ?? (schema.properties ? 'object' : [])].flat()
    if (types.length === 0) return 'any JSON'
    return orList(
      types.map((type) => {
        if (type === 'array') return `array of ${typeOf(schema.items)}`
        if (type === 'string' && schema.format) return `string (${schema.format})`
        return type
      }),
    )
  }

  /** What a schema limits beyond its type: bounds, lengths, item counts, pattern, default. */
  function limitsOf(node: Schema | undefined): string[] {
    if (schemaName(node)) return []
    const s = deref(node)
    const range = (min: unknown, max: unknown, unit = '') =>
      min !== undefined && max !== undefined
        ? `${min}–${max}${unit}`
        : min !== undefined
          ? `at least ${min}${unit}`
          : max !== undefined
            ? `at most ${max}${unit}`
            : undefined
    const limits = [
      range(s.minimum, s.maximum),
      range(s.minLength, s.maxLength, ' characters'),
      range(s.minItems, s.maxItems, ' items'),
      s.pattern === undefined ? undefined : `pattern ${code(s.pattern)}`,
      s.default === undefined ? undefined : `default ${literal(s.default)}`,
    ]
    return limits.filter((limit): limit is string => limit !== undefined)
  }

  const describe = (node: Schema | undefined) =>
    [node?.description ?? (schemaName(node) ? undefined : deref(node).description), ...limitsOf(node)]
      .filter(Boolean)
      .join('; ')

  /** The object a field holds, for its sub-fields: through arrays and a nullable oneOf; a named one only if `follow`. */
  function innerObject(node: Schema, follow: boolean): { schema: Schema; suffix: string } | undefined {
    if (schemaName(node) && !follow) return undefined
    const schema = deref(node)
    if (schema.properties || schema.allOf) return { schema, suffix: '' }
    if ([schema.type].flat().includes('array') && schema.items) {
      const inner = innerObject(schema.items, follow)
      return inner && { schema: inner.schema, suffix: `[]${inner.suffix}` }
    }
    const parts = ((schema.oneOf ?? schema.anyOf ?? []) as Schema[]).filter((part) => deref(part).type !== 'null')
    return parts.length === 1 ? innerObject(parts[0]!, follow) : undefined
  }

  type Field = { name: string; type: string; required: boolean; description: string }
  function propertiesOf(schema: Schema): [string, Schema, boolean][] {
    const parts = schema.allOf ? (schema.allOf as Schema[]).map(deref) : [schema]
    return parts.flatMap((part) =>
      Object.entries((part.properties ?? {}) as Record<string, Schema>).map(
        ([name, property]): [string, Schema, boolean] => [name, property, (part.required ?? []).includes(name)],
      ),
    )
  }
  /** An object's fields, nested ones flattened with dotted names (`accepts[].extra.paymentFlow`) down to `depth`. */
  function fieldsOf(schema: Schema, options: { follow: boolean; depth: number; prefix?: string }): Field[] {
    const { follow, depth, prefix = '' } = options
    return propertiesOf(deref(schema)).flatMap(([name, property, required]) => {
      const field = { name: `${prefix}${name}`, type: typeOf(property), required, description: describe(property) }
      const inner = depth > 1 ? innerObject(property, follow) : undefined
      if (!inner) return [field]
      return [field, ...fieldsOf(inner.schema, { follow, depth: depth - 1, prefix: `${field.name}${inner.suffix}.` })]
    })
  }
  // Two columns, the name, its type and whether it is required stacked in the first: the page's column is narrow.
  const fieldTable = (fields: Field[]) => [
    '| Field | Description |',
    '| --- | --- |',
    ...fields.map(
      (f) =>
        `| ${code(f.name)}${f.required ? required : ''}<br>${escapeTypes(f.type)} | ${escapeMarkdown(f.description, true)} |`,
    ),
  ]
  // A rendered type holds code spans and links only: its pipes (none today) would end the cell.
  const escapeTypes = (type: string) => type.replace(/\|/g, '\\|')

  /** Who may call an operation: its security (the contract's default when it has none) and the scope its summary names. */
  function authOf(operation: Operation): string {
    const security = operation.security ?? contract.security ?? []
    const schemes = new Set(security.flatMap((requirement) => Object.keys(requirement)))
    if (schemes.size === 0) return 'none'
    const who =
      schemes.has('bearer') && schemes.has('apiKey')
        ? 'a session JWT or an API key'
        : schemes.has('bearer')
          ? 'a session JWT (not an API key)'
          : 'an API key'
    const named = /\(scopes? ([^)]*)\)/.exec(operation.summary ?? '')?.[1] ?? ''
    const scopes = named.match(/\b[a-z]+:(?:read|write)\b/g) ?? []
    const parts = [
      scopes.length && schemes.has('apiKey') ? `${who} (a key with ${scopes.map(code).join(' and ')})` : who,
    ]
    if (/verified email/.test(named)) parts.push('a verified email')
    return parts.join('; ')
  }

  function parameterRow(given: ParameterOrRef): string {
    const parameter = deref(given) as Parameter
    const shared = /^#\/components\/parameters\/([^/]+)$/.exec((given as { $ref?: string }).$ref ?? '')?.[1]
    // X-Svc-Environment, on every operation, is told once, in the intro: its first sentence, and a link there. Other
    // shared parameters (a path id) are told on their rows.
    const description =
      shared === 'Environment'
        ? `${escapeMarkdown(/^[^.]*\./.exec(parameter.description ?? '')?.[0] ?? '', true)} [More](#parameter-${shared.toLowerCase()})`
        : escapeMarkdown(describe({ ...parameter.schema, description: parameter.description }), true)
    return `| ${code(parameter.name)}${parameter.required ? required : ''} | ${parameter.in} | ${escapeTypes(typeOf(parameter.schema))} | ${description} |`
  }

  /** A response's body in a few words: each media type and its schema (a named one is a link). */
  function bodyOf(response: Schema): string {
    const content = Object.entries((response.content ?? {}) as Record<string, { schema?: Schema }>)
    if (content.length === 0) return 'none'
    return content
      .map(([media, { schema }]) => {
        const inner = deref(schema)
        const type =
          !schemaName(schema) && inner.properties && !inner.allOf
            ? `{ ${Object.keys(inner.properties).map(code).join(', ')} }`
            : typeOf(schema)
        return content.length > 1 || media !== 'application/json' ? `${media}: ${type}` : type
      })
      .join('<br>')
  }

  function renderOperation(operation: Operation): string[] {
    const anchor = operationAnchor(operation.method, operation.path)
    const lines = [`### ${code(`${operation.method} ${operation.path}`)} {#${anchor}}`, '']
    lines.push(escapeMarkdown(operation.summary ?? ''), '')
    if (operation.description) lines.push(escapeMarkdown(operation.description), '')
    lines.push(`**Auth:** ${escapeMarkdown(authOf(operation))}.`, '')
    if (operation.parameters?.length) {
      lines.push('**Parameters**', '', '| Name | In | Type | Description |', '| --- | --- | --- | --- |')
      lines.push(...operation.parameters.map(parameterRow), '')
    }
    const body = operation.requestBody && deref(operation.requestBody)
    if (body) {
      for (const [media, { schema }] of Object.entries((body.content ?? {}) as Record<string, { schema?: Schema }>)) {
        const name = schemaName(schema)
        const intro = `**Request body** (${code(media)}${body.required ? ', required' : ''})`
        const fields = fieldsOf(schema ?? {}, { follow: true, depth: 3 })
        lines.push(`${intro}: ${name ? schemaLink(name) : typeOf(schema)}`, '')
        if (body.description) lines.push(escapeMarkdown(body.description), '')
        if (fields.length) lines.push(...fieldTable(fields), '')
      }
    }
    lines.push('**Responses**', '', '| Status | Description | Body |', '| --- | --- | --- |')
    for (const [status, given] of Object.entries(operation.responses ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
      const response = deref(given)
      const headers = Object.entries((response.headers ?? {}) as Record<string, Schema>).map(
        ([name, header]) => ` (header ${code(name)}: ${deref(header).description ?? ''})`,
      )
      const description = escapeMarkdown(`${response.description ?? ''}${headers.join('')}`, true)
      lines.push(`| ${status} | ${description} | ${escapeTypes(bodyOf(response))} |`)
    }
    lines.push('')
    // The fields of an inline JSON answer of success (a named one has its own section).
    for (const [status, given] of Object.entries(operation.responses ?? {})) {
      const schema = deref(given).content?.['application/json']?.schema as Schema | undefined
      if (!status.startsWith('2') || !schema || schemaName(schema)) continue
      const fields = fieldsOf(schema, { follow: false, depth: 3 })
      if (fields.length) lines.push(`**${status} body**`, '', ...fieldTable(fields), '')
    }
    return lines
  }

  function renderSchema(name: string, schema: Schema): string[] {
    const lines = [`### ${name} {#${schemaAnchor(name)}}`, '']
    if (schema.description) lines.push(escapeMarkdown(schema.description), '')
    const fields = fieldsOf(schema, { follow: false, depth: 3 })
    if (fields.length) lines.push(...fieldTable(fields), '')
    else {
      const limits = limitsOf(schema)
      lines.push(
        `Type: ${escapeMarkdown(typeOf(schema))}${limits.length ? `; ${escapeMarkdown(limits.join('; '))}` : ''}.`,
        '',
      )
    }
    return lines
  }

  const operations = operationsOf(contract)
  // An operation is told under its first tag; the contract's tags keep their order, then any it does not list.
  const tags = [...(contract.tags ?? []).map((tag) => tag.name), ...operations.map((operation) => operation.tags?.[0])]
    .filter((tag, index, all): tag is string => !!tag && all.indexOf(tag) === index)
    .filter((tag) => operations.some((operation) => operation.tags?.[0] === tag))
  const untagged = operations.filter((operation) => !operation.tags?.length)
  if (untagged.length)
    throw new Error(`${contractFile}: ${untagged.map((o) => `${o.method} ${o.path}`).join(', ')} have no tag`)
  const hosts = defaultHosts(defaultPort)
  const environment = contract.components.parameters?.Environment

  const lines = [
    '---',
    'outline: [2, 3]',
    '---',
    '',
    `<!-- Generated by test/docs/reference/api.ts from ${contractFile}: edit those, then run npm run docs:gen. -->`,
    '',
    '# Control plane API',
    '',
    `The control plane is the HTTP API behind \`svc\`'s commands, the SDK and the dashboard: accounts, API keys, APIs and their paid endpoints, domains, analytics, the Sandbox's tools. This page is made from its OpenAPI 3.1 contract, which \`svc\` serves at \`/openapi.yaml\` and \`/openapi.json\`; every response of svc's own tests is checked against it.`,
    '',
    ...[
      `- **Base URLs.** On \`svc up\` (port ${defaultPort} unless \`--port\`), production is \`http://${hosts.controlHost}:${defaultPort}\` (also \`http://localhost:${defaultPort}\`) and the Sandbox is \`http://${hosts.sandboxControlHost}:${defaultPort}\`. The ready line prints them as \`control_url\` and \`sandbox_control_url\` ([ready line](./ready-line#control-url)).`,
      `- **Auth.** A session JWT, from \`svc login --json\` (its \`token\`) or \`POST /auth/login\`, as \`Authorization: Bearer <jwt>\`; it may do everything its account may. Or an API key (\`svc keys create\`), as \`X-API-Key: <key>\` or \`Authorization: Bearer <key>\`: \`${apiKeyPrefixes.production}…\` keys work on the production URL only, \`${apiKeyPrefixes.development}…\` on the Sandbox URL only, and a key does what its scopes allow. Writes need a verified email.`,
      `- **Environment.** ${environment?.description ?? ''}`,
      `- **The Sandbox's owner.** A route whose auth is *none* and whose summary names the Sandbox's owner or loopback callers takes no credential from a caller on this machine on \`svc up\`, and the server's admin token on \`svc serve\` (\`Authorization: Bearer <token>\`): 401 without it or with a wrong one, 403 when the server has none.`,
      `- **Errors.** Every error is JSON \`{"error": "<message>"}\` with its HTTP status; [Errors and reasons](./errors) lists the codes and messages.`,
    ]
      .map((line) => escapeMarkdown(line))
      // The parameter rows of X-Svc-Environment link here.
      .map((line) => line.replace('- **Environment.**', '- <span id="parameter-environment"></span>**Environment.**')),
    '',
    `${operations.length} operations in ${tags.length} groups:`,
    '',
  ]
  for (const tag of tags) {
    const inTag = operations.filter((operation) => operation.tags?.[0] === tag)
    lines.push(
      `- [${tag}](#tag-${tag}): ${inTag.map((o) => `[${code(`${o.method} ${o.path}`)}](#${operationAnchor(o.method, o.path)})`).join(', ')}`,
    )
  }
  lines.push('')
  for (const tag of tags) {
    lines.push(`## ${tag} {#tag-${tag}}`, '')
    const description = contract.tags?.find((t) => t.name === tag)?.description
    if (description) lines.push(escapeMarkdown(description), '')
    for (const operation of operations.filter((o) => o.tags?.[0] === tag)) lines.push(...renderOperation(operation))
  }
  lines.push('## Schemas {#schemas}', '', 'The named schemas the operations above link to.', '')
  for (const [name, schema] of Object.entries(contract.components.schemas)) lines.push(...renderSchema(name, schema))
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`
}

export async function render(): Promise<Record<string, string>> {
  return { [page]: await renderContract(readContract()) }
}
