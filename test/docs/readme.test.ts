/**
 * The README and the docs' home: the two commands are what CI runs, the README stays short and sends each reader
 * into the docs.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { docBlock, pageBlocks, root, scanDocs } from './blocks.js'

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

test('the README fits on two screens: at most 200 lines, every fence marked, its blocks those of Get started and escrow', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  expect(readme.split('\n').length).toBeLessThanOrEqual(200)
  const { unmarked } = scanDocs()
  expect(unmarked.filter((block) => block.page === 'README.md')).toEqual([])
  // The README's tour is get-started's, which test/e2e/demo-twice.test.ts runs line by line.
  expect(docBlock('two-commands.sh').code).toBe(docBlock('get-started/two-commands.sh').code)
  expect(docBlock('tour-1.sh').code).toBe(docBlock('get-started/terminal-1.sh').code)
  expect(docBlock('tour-2.sh').code).toBe(docBlock('get-started/terminal-2.sh').code)
  // Its escrow taste is docs/escrow.md's first block, which test/docs/escrow.test.ts runs.
  expect(docBlock('escrow-tour.sh').code).toBe(docBlock('escrow.sh').code)
  expect(pageBlocks('README.md').map((block) => block.name)).toEqual([
    'two-commands.sh',
    'tour-1.sh',
    'tour-2.sh',
    'escrow-tour.sh',
  ])
})

test('the README links each kind of reader into the docs, and every link it has resolves', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  for (const page of ['buy', 'sell', 'ci', 'testing', 'server', 'postgres', 'architecture', 'troubleshooting'])
    expect(readme, page).toContain(`(docs/${page}.md)`)
  for (const [, target] of readme.matchAll(/\]\((?!https?:)([^)#]+)(?:#[^)]*)?\)/g))
    expect(existsSync(join(root, target!)), target).toBe(true)
})

test("sell.md's table of MCP tools lists every tool `svc mcp` serves", () => {
  const served = new Set<string>()
  for (const file of readdirSync(join(root, 'mcp/tools')))
    for (const [, name] of readFileSync(join(root, 'mcp/tools', file), 'utf8').matchAll(/\bname: '(svc_[a-z_]+)'/g))
      served.add(name!)
  const listed = [...readFileSync(join(root, 'docs/sell.md'), 'utf8').matchAll(/^\| `(svc_[a-z_]+)` \|/gm)].map(
    (m) => m[1],
  )
  expect(served.size).toBeGreaterThan(10)
  expect(listed.sort()).toEqual([...served].sort())
})
