/**
 * Every code block of the docs is run, read or checked by a test: each fence of docs/**.md carries a marker
 * (test/docs/blocks.ts) whose name some test file quotes, names are unique, and no page holds Vue's `{{` outside a
 * fence (VitePress would interpolate it and the text would vanish).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { docPages, root, scanDocs } from './blocks.js'

const { blocks, unmarked } = scanDocs()

test('every fence of the README and docs/ carries a readme-test, readme-config or readme-output marker', () => {
  expect(unmarked.map((b) => `${b.page}:${b.line} ${b.first}`)).toEqual([])
})

/** The text of every test file but this one's own folder's block machinery. */
function testSources(): string {
  const folder = join(root, 'test')
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(ts|tsx|mts|sh|py)$/.test(file) && !file.includes('node_modules'))
    .filter((file) => !/^docs[\\/](blocks|blocks\.test)\.ts$/.test(file))
    .map((file) => readFileSync(join(folder, file), 'utf8'))
    .join('\n')
}

test('every marked block is named by a test that reads it', () => {
  const sources = testSources()
  const quoted = (name: string) => ["'", '"', '`'].some((q) => sources.includes(`${q}${name}${q}`))
  expect(blocks.filter((block) => !quoted(block.name)).map((b) => `${b.page}:${b.line} ${b.kind} ${b.name}`)).toEqual(
    [],
  )
})

test("no page has Vue's {{ outside a fence", () => {
  const found: string[] = []
  for (const page of docPages().filter((p) => p.startsWith('docs/'))) {
    const text = readFileSync(join(root, page), 'utf8')
    const outside = text.replace(/^( *)(```+|~~~+)[^\n]*\n[\s\S]*?^\1\2[ \t]*$/gm, '')
    for (const line of outside.split('\n')) if (line.includes('{{')) found.push(`${page}: ${line}`)
  }
  expect(found).toEqual([])
})

test('the docs have pages and blocks to test', () => {
  // The counts the closing note of issue 38 quotes come from here.
  const pages = docPages()
  console.log(`docs: ${pages.length} pages (README.md included), ${blocks.length} marked blocks`)
  expect(pages.length).toBeGreaterThan(1)
})
