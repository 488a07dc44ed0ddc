/**
 * What docs/reference/api.md needs of server/openapi.yaml and of its generator (test/docs/reference/api.ts); that the
 * page is current is test/docs/reference.test.ts's, that the contract's paths are the routes
 * test/server/control/contract-routes.test.ts's.
 */
import { expect, test } from 'vitest'
import { escapeMarkdown, operationAnchor, operationsOf, readContract, renderContract } from './api.js'

const contract = readContract()
const operations = operationsOf(contract)
const text = await renderContract(contract)

test('every operation of the contract has a summary (the line under its heading) and a tag (its section)', () => {
  const missing = operations.filter((operation) => !operation.summary?.trim() || !operation.tags?.length)
  expect(missing.map((operation) => `${operation.method} ${operation.path}`)).toEqual([])
})

test('each operation has its own anchor, written after its heading', () => {
  const anchors = operations.map((operation) => operationAnchor(operation.method, operation.path))
  expect(anchors.filter((anchor, index) => anchors.indexOf(anchor) !== index)).toEqual([])
  expect(operationAnchor('POST', '/apis/{apiId}/endpoints')).toBe('post-apis-apiid-endpoints')
  expect(operationAnchor('GET', '/')).toBe('get')
  for (const operation of operations)
    expect(text).toContain(
      `### \`${operation.method} ${operation.path}\` {#${operationAnchor(operation.method, operation.path)}}`,
    )
  // Tags and schemas have anchors of their own kind: none may take an operation's.
  const all = [...text.matchAll(/\{#([a-z0-9-]+)\}$/gm)].map((match) => match[1])
  expect(all.filter((anchor, index) => all.indexOf(anchor) !== index)).toEqual([])
})

test('table cells escape pipes, tags and Vue interpolation, and keep code as code', () => {
  expect(escapeMarkdown('a | b <token> {slug}', true)).toBe('a \\| b &lt;token> &#123;slug}')
  expect(escapeMarkdown('pattern `^(a|b)$` and `<x>`', true)).toBe('pattern `^(a\\|b)$` and `<x>`')
  expect(escapeMarkdown('`{{ upstream }}` said', true)).toBe('<code v-pre>&#123;&#123; upstream }}</code> said')
  expect(escapeMarkdown('two\n  lines', true)).toBe('two lines')
  // Outside a table, pipes stay and lines stay.
  expect(escapeMarkdown('a | b\nc <d>')).toBe('a | b\nc &lt;d>')
})

test("a contract's page has no `{{` and no raw tag outside code (VitePress compiles pages as Vue templates)", () => {
  const outsideCode = text.replace(/(`+)[\s\S]*?[^`]\1(?!`)/g, '').replace(/<!--[\s\S]*?-->/g, '')
  expect(outsideCode).not.toContain('{{')
  expect(outsideCode.match(/<(?!br>|span id="[a-z-]+"><\/span>|\/span>|code v-pre>|\/code>)[^>]*>/g) ?? []).toEqual([])
})
