/**
 * The seed file's JSON Schema (schemas/seed.schema.json, made from sdk/seed.ts `seedSchema` by
 * test/docs/reference/seed.ts) says what the seed loader says: the shipped seeds and the docs' example pass both, a
 * wrong key or type fails both at the same path, and the loader's "did you mean" keys are the schema's.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Ajv, type ErrorObject } from 'ajv'
import addFormats from 'ajv-formats'
import { parse } from 'yaml'
import { describe, expect, test } from 'vitest'
import { parseSeed, readSeedFile, seedKeys } from '../../sdk/seed.js'
import { UsageError } from '../../core/errors.js'
import { docBlock, root } from './blocks.js'
import { editorLine, type JsonSchema } from './reference/seed.js'

const schemaFile = join(root, 'schemas', 'seed.schema.json')
const schema = JSON.parse(readFileSync(schemaFile, 'utf8')) as JsonSchema
const ajv = new Ajv({ allErrors: true })
addFormats.default(ajv)
const validate = ajv.compile(schema)

/** `apis[0].endpoints[1].price`, as the loader names a path, from ajv's error. */
function ajvPath(error: ErrorObject): string {
  const parts = error.instancePath.split('/').slice(1)
  if (error.keyword === 'additionalProperties') parts.push(String(error.params.additionalProperty))
  if (error.keyword === 'required') parts.push(String(error.params.missingProperty))
  return parts.map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : `${i ? '.' : ''}${part}`)).join('')
}

/** The paths the loader names in its problems (`FILE:LINE path: message`). */
function loaderPaths(file: string): string[] {
  try {
    readSeedFile(file)
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError)
    return ((error as UsageError).details as string[]).map((line) =>
      line.slice(file.length).split(' ')[1]!.replace(/:$/, ''),
    )
  }
  return []
}

const shipped = readdirSync(join(root, 'fixtures')).filter((file) => file.endsWith('.yaml'))

describe('the seed JSON Schema', () => {
  test.each(shipped)('fixtures/%s passes it, and its first line points editors at it', (file) => {
    const text = readFileSync(join(root, 'fixtures', file), 'utf8')
    const modeline = text.split('\n')[0]!
    expect(modeline).toBe('# yaml-language-server: $schema=../schemas/seed.schema.json')
    expect(resolve(join(root, 'fixtures'), modeline.split('$schema=')[1]!)).toBe(schemaFile)
    const valid = validate(parse(text))
    expect(validate.errors ?? [], file).toEqual([])
    expect(valid).toBe(true)
  })

  test("the loader's keys of each level are the schema's properties", () => {
    const api = schema.properties!.apis!.items!
    expect({
      top: Object.keys(schema.properties!),
      account: Object.keys(schema.properties!.account!.properties!),
      key: Object.keys(schema.properties!.keys!.items!.properties!),
      api: Object.keys(api.properties!),
      endpoint: Object.keys(api.properties!.endpoints!.items!.properties!),
    }).toEqual(seedKeys)
  })

  test("the docs' example (my-seed.yaml) passes it and the seed loader", () => {
    const block = docBlock('my-seed.yaml')
    expect(block.page).toBe('docs/reference/seed.md')
    expect(block.code.split('\n')[0]).toBe(editorLine)
    expect(validate(parse(block.code)), JSON.stringify(validate.errors)).toBe(true)
    const file = join(mkdtempSync(join(tmpdir(), 'svc-seed-')), 'my-seed.yaml')
    writeFileSync(file, block.code)
    const seed = parseSeed(readSeedFile(file))
    expect(seed.keys).toEqual([{ name: 'ci', preset: 'apiManager', environment: 'development' }])
    expect(seed.apis[0]!.endpoints.map((e) => `${e.method} ${e.path_pattern} ${e.scheme ?? 'exact'}`)).toEqual([
      'GET /weather/{city} exact',
      'POST /summarize upto',
    ])
  })

  test('a wrong key and a wrong type fail it and the loader, at the same paths', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-seed-')), 'wrong.yaml')
    writeFileSync(
      file,
      `account: { email: a@svc.test, password: long-enough, name: Al }
keys:
  - { name: ci, preset: apiManager, environment: staging }
apis:
  - name: A
    slug: a
    upstream_base_url: http://127.0.0.1:1
    pay_to_address: "0x90F79bf6EB2c4f870365E785982E1f101E93b906"
    endpoints:
      - { method: GET, path_pattern: /a, price: "0.01", prise: "0.01", ttl: ten }
      - { method: GET, path_pattern: /b, price: 0.01 }
`,
    )
    expect(validate(parse(readFileSync(file, 'utf8')))).toBe(false)
    const expected = [
      'account.name',
      'keys[0].environment',
      'apis[0].endpoints[0].prise',
      'apis[0].endpoints[0].ttl',
      'apis[0].endpoints[1].price',
    ]
    expect([...new Set(validate.errors!.map(ajvPath))].sort()).toEqual(expected.toSorted())
    expect(loaderPaths(file).sort()).toEqual(expected.toSorted())
  })
})

test('the schema is where the package exports it', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  expect(pkg.exports['./seed.schema.json']).toBe('./schemas/seed.schema.json')
  expect(pkg.files).toContain('schemas/')
})
