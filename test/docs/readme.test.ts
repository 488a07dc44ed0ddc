/**
 * The README and the docs' home: the two commands are what CI runs, the README stays short and sends each reader
 * into the docs.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { docBlock, root } from './blocks.js'

test('the two commands are `npm ci && npm start` and `npm test`, as CI installs and tests, and start is svc up', () => {
  const commands = docBlock('get-started/two-commands.sh')
    .code.trim()
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, ''))
  expect(commands).toEqual(['npm ci && npm start', 'npm test'])
  const ci = readFileSync(join(root, '.ci/run'), 'utf8')
  expect(ci).toMatch(/^JOBS=max npm ci /m)
  expect(ci).toMatch(/^npm test\b/m)
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  expect(scripts.start).toBe('node bin/svc.js up')
  expect(scripts.test).toBe('vitest run')
})

/** VitePress's heading slug (its `slugify`, for the headings these links reach). */
const slug = (heading: string) =>
  heading
    .replace(/`/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .trim()
    .replace(/\s+/g, '-')

test("the docs' home answers the issue's six questions, each one click to one page that has the anchor", () => {
  const home = readFileSync(join(root, 'docs/index.md'), 'utf8')
  const questions = home.slice(home.indexOf('## Questions'))
  const links = [...questions.matchAll(/\]\(\.\/([^)#]+)(?:#([^)]+))?\)/g)].map(([, page, anchor]) => ({
    page: page!,
    anchor,
  }))
  expect(links.map(({ page, anchor }) => (anchor ? `${page}#${anchor}` : page))).toEqual([
    'reference/config#svc-port',
    'sell#add-an-endpoint-with-a-price',
    'ci#python',
    'postgres',
    'reference/config#svc-facilitator-url',
    'reference/errors#invalid-exact-evm-payload-authorization-valid-before',
  ])
  for (const { page, anchor } of links) {
    const text = readFileSync(join(root, 'docs', `${page}.md`), 'utf8')
    if (!anchor) continue
    const ids = [
      ...[...text.matchAll(/\bid="([^"]+)"/g)].map((m) => m[1]),
      ...[...text.matchAll(/^#{2,4} (.+?)(?: \{#([\w-]+)\})?$/gm)].map((m) => m[2] ?? slug(m[1]!)),
    ]
    expect(ids, `docs/${page}.md has no anchor #${anchor}`).toContain(anchor)
  }
})
