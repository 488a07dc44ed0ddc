/**
 * `npm run docs:gen`: writes every generated reference page (test/docs/reference/*.ts) and removes the pages under
 * docs/reference/ that no generator makes any more. Without `--write` it only lists what would change and exits 1 if
 * anything would.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { root } from './blocks.js'
import { generatedPages, referencePages } from './generators.js'

const write = process.argv.includes('--write')
const pages = await generatedPages()
const changed: string[] = []
for (const [path, text] of Object.entries(pages)) {
  let old: string | undefined
  try {
    old = readFileSync(join(root, path), 'utf8')
  } catch {}
  if (old === text) continue
  changed.push(path)
  if (write) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
}
for (const path of referencePages()) {
  if (path in pages) continue
  changed.push(`${path} (removed)`)
  if (write) rmSync(join(root, path))
}
for (const path of changed) console.log(`${write ? 'wrote' : 'stale'} ${path}`)
console.log(`${Object.keys(pages).length} generated pages, ${changed.length} ${write ? 'written' : 'stale'}`)
if (!write && changed.length) process.exitCode = 1
