/**
 * The seed file's JSON Schema, schemas/seed.schema.json (shipped as `svc/seed.schema.json`, for editors), and its page,
 * docs/reference/seed.md: both from the validator itself, sdk/seed.ts `seedSchema`, whose fields carry their
 * descriptions (`.meta`). The page's example (`my-seed.yaml`) is validated by the schema and read by the real seed
 * loader in test/docs/seed-schema.test.ts.
 */
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { z } from 'zod'
import { seedSchema } from '../../../sdk/seed.js'
import { root } from '../blocks.js'
import type { Pages } from '../generators.js'
import { anchor, cell, generatedNote, vueSafe } from '../reference-table.js'

export type JsonSchema = {
  type?: string | string[]
  enum?: unknown[]
  anyOf?: JsonSchema[]
  items?: JsonSchema
  properties?: Record<string, JsonSchema>
  required?: string[]
  default?: unknown
  description?: string
  [keyword: string]: unknown
}

/** The seed file's JSON Schema (draft-07, which every editor's YAML support reads), as the seed loader checks it. */
export function seedJsonSchema(): JsonSchema {
  const { $schema, title, description, ...rest } = z.toJSONSchema(seedSchema, {
    io: 'input',
    target: 'draft-7',
  }) as JsonSchema
  return { $schema, title, description, ...rest }
}

/** The line that makes an editor's YAML support check a seed file in a project's root against the shipped schema. */
export const editorLine = '# yaml-language-server: $schema=./node_modules/svc/schemas/seed.schema.json'

/** The page's example: every level of a seed, short. */
const example = `${editorLine}
account:
  email: seller@example.com
  password: a-long-password
keys:
  - name: ci
    preset: apiManager
apis:
  - name: Weather
    slug: weather
    upstream_base_url: http://127.0.0.1:8080
    pay_to_address: "0x90F79bf6EB2c4f870365E785982E1f101E93b906"
    discovery_guidance: Pay 0.01 USDC per forecast.
    endpoints:
      - method: GET
        path_pattern: /weather/{city}
        price: "0.01"
        description: Today's forecast for a city
      - method: POST
        path_pattern: /summarize
        price: "0.05"
        scheme: upto
        transfer_method: permit2
`

/** `string`, `` `a` | `b` ``, `string or null`, `array of objects`, … */
function typeOf(schema: JsonSchema): string {
  if (schema.enum) return schema.enum.map((value) => `\`${String(value)}\``).join(' | ')
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' or ')
  if (schema.type === 'array') return `array of ${schema.items ? `${typeOf(schema.items)}s` : 'values'}`
  return String(schema.type ?? 'any')
}

/** One row per key, nested keys by their path (`apis[].endpoints[].price`), in the schema's order. */
function rows(schema: JsonSchema, prefix = ''): string[] {
  return Object.entries(schema.properties ?? {}).flatMap(([key, field]) => {
    const path = `${prefix}${key}`
    const required = schema.required?.includes(key) ? 'yes' : ''
    const fallback = field.default === undefined ? '' : `\`${JSON.stringify(field.default)}\``
    const row = `| ${anchor(path)}\`${path}\` | ${cell(typeOf(field))} | ${required} | ${fallback} | ${cell(field.description ?? '')} |`
    const inner = field.type === 'array' ? field.items : field
    return [row, ...(inner?.properties ? rows(inner, `${path}${field.type === 'array' ? '[]' : ''}.`) : [])]
  })
}

/** Biome's formatting of a JSON file (the repo's `biome check` reads schemas/ too). */
function formatJson(path: string, text: string): string {
  const biome = join(root, 'node_modules', '@biomejs', 'biome', 'bin', 'biome')
  return execFileSync(process.execPath, [biome, 'format', `--stdin-file-path=${path}`], {
    input: text,
    encoding: 'utf8',
  })
}

export function render(): Pages {
  const schema = seedJsonSchema()
  const page = [
    '# The seed file',
    '',
    generatedNote('test/docs/reference/seed.ts', "sdk/seed.ts's seedSchema"),
    '',
    'A seed file makes a seller account, its API keys and its paid APIs as svc starts, through the control plane, as a',
    'seller would by hand. Give it to `svc up --seed FILE` (YAML or JSON). `svc up --detach` and `svc exec` take the',
    "same option (`svc exec` uses the demo seed unless you give one), as does the GitHub Action's `seed` input.",
    '',
    'Instead of a file you can name a seed svc ships: `demo` (a seller, a Sandbox API key, and a paid weather API in',
    "front of svc's own demo upstream: `svc up --seed demo`) or `x402-e2e` (x402's end-to-end catalog).",
    '',
    'A seed is applied idempotently: run it again on the same data and nothing is duplicated. An existing account is',
    'logged into; keys (by name), APIs (by slug) and endpoints (by method and path) that exist are kept, and an',
    "existing API gets the seed's upstream. A seed that names",
    vueSafe('`{{demo_upstream}}` makes svc serve its demo upstream and puts its URL there.'),
    '',
    "svc checks the whole file before anything starts, with the control plane's own rules: every problem is listed",
    'with the file, its line and its path, an unknown key with the key it probably meant, and `svc up` exits with',
    'code 2.',
    '',
    '## In your editor',
    '',
    "The package ships the seed file's JSON Schema, `schemas/seed.schema.json` (`svc/seed.schema.json` in its exports).",
    "Put this line first in a seed file in your project's root and an editor with YAML support (the",
    "yaml-language-server: VS Code's YAML extension, Neovim, Zed, …) completes its keys and flags wrong ones:",
    '',
    `\`${editorLine}\``,
    '',
    "The path is relative to the seed file. svc's own seeds carry the same line, pointing into the repository.",
    '',
    '## Example',
    '',
    '<!-- readme-test: my-seed.yaml -->',
    '```yaml',
    example.trimEnd(),
    '```',
    '',
    '`svc up --seed my-seed.yaml` makes the account, the `ci` key and the `weather` API with two paid endpoints: its',
    "ready line's [`seed`](./ready-line#seed) says what it made.",
    '',
    '## Every key',
    '',
    'A key in `a[].b` is a key of each item of the list `a`. Required keys of an item are required in each item.',
    '',
    '| Key | Type | Required | Default | Description |',
    '| --- | --- | --- | --- | --- |',
    ...rows(schema),
    '',
  ]
  return {
    'docs/reference/seed.md': page.join('\n'),
    'schemas/seed.schema.json': formatJson('schemas/seed.schema.json', `${JSON.stringify(schema, null, 2)}\n`),
  }
}
