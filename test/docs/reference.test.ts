/**
 * The reference pages are what their generators make from the code now (test/docs/generators.ts): a new option,
 * route, variable, seed key or error code without its line in the reference fails here.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { root } from './blocks.js'
import { generatedPages, referencePages } from './generators.js'

const pages = await generatedPages()

test.each(Object.keys(pages))('%s is as its generator makes it (else: npm run docs:gen)', (path) => {
  let text: string | undefined
  try {
    text = readFileSync(join(root, path), 'utf8')
  } catch {}
  expect(text, `${path} is missing or stale: run npm run docs:gen`).toBe(pages[path])
})

test('docs/reference/ holds only generated pages', () => {
  expect(referencePages().filter((path) => !(path in pages))).toEqual([])
})
