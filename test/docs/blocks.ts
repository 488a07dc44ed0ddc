/**
 * The code blocks of the README and the docs (docs/**.md), each found by the name of its marker on the line before its
 * fence, whatever page it sits on:
 * - `<!-- readme-test: buyer.ts -->`: code a test writes to that file and runs;
 * - `<!-- readme-config: Caddyfile -->`: a configuration a test reads;
 * - `<!-- readme-output: svc up -->`: a sample of what svc prints, checked by the test that produces it.
 * Names are unique across all pages, so a block can move between pages without its test noticing.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = fileURLToPath(new URL('../..', import.meta.url))

export type DocBlockKind = 'test' | 'config' | 'output'
export type DocBlock = {
  /** The marker's name: a file name for `test`, a label otherwise. */
  name: string
  kind: DocBlockKind
  /** The fence's info string (`ts`, `bash`, … or '' for none). */
  lang: string
  code: string
  /** The page, relative to the repository (`README.md`, `docs/ci.md`). */
  page: string
  /** The fence's first line (1-based). */
  line: number
}
/** A fence with no marker: `first` is its first line of code. */
export type UnmarkedBlock = { page: string; line: number; first: string }

/** The pages searched: README.md and every `.md` under docs/ (not docs/.vitepress). */
export function docPages(): string[] {
  const pages = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md') && !file.startsWith('.vitepress'))
    .map((file) => `docs/${file.split('\\').join('/')}`)
    .sort()
  return ['README.md', ...pages]
}

// A fence may be indented (inside a list item): its lines lose that indent. It closes at the same indent and fence.
const fence =
  /^(?:[ \t]*<!-- readme-(test|config|output): (.+?) -->\n)?( *)(```+|~~~+)([^\n]*)\n([\s\S]*?)^\3\4[ \t]*$/gm

/** The blocks and unmarked fences of one page's text. */
export function scanPage(page: string, text: string): { blocks: DocBlock[]; unmarked: UnmarkedBlock[] } {
  const blocks: DocBlock[] = []
  const unmarked: UnmarkedBlock[] = []
  for (const match of text.matchAll(fence)) {
    const [whole, kind, name, indent, marks, info, body] = match
    const line = text.slice(0, match.index + whole.indexOf(marks!) + 1).split('\n').length
    const lang = info!.trim().split(/\s+/)[0] ?? ''
    const code = indent ? body!.replace(new RegExp(`^ {0,${indent.length}}`, 'gm'), '') : body
    if (kind) blocks.push({ name: name!, kind: kind as DocBlockKind, lang, code: code!, page, line })
    else unmarked.push({ page, line, first: code!.split('\n')[0]! })
  }
  return { blocks, unmarked }
}

let cache: { blocks: DocBlock[]; unmarked: UnmarkedBlock[] } | undefined
/** Every block of every page; throws on two blocks of one name. */
export function scanDocs(): { blocks: DocBlock[]; unmarked: UnmarkedBlock[] } {
  if (cache) return cache
  const blocks: DocBlock[] = []
  const unmarked: UnmarkedBlock[] = []
  const seen = new Map<string, DocBlock>()
  for (const page of docPages()) {
    const scanned = scanPage(page, readFileSync(join(root, page), 'utf8'))
    for (const block of scanned.blocks) {
      const other = seen.get(block.name)
      if (other)
        throw new Error(`two blocks named "${block.name}": ${other.page}:${other.line} and ${page}:${block.line}`)
      seen.set(block.name, block)
    }
    blocks.push(...scanned.blocks)
    unmarked.push(...scanned.unmarked)
  }
  cache = { blocks, unmarked }
  return cache
}

/** The block named `name` (`<!-- readme-test: name -->` or a config/output marker), wherever it is. */
export function docBlock(name: string): DocBlock {
  const found = scanDocs().blocks.find((block) => block.name === name)
  if (!found) throw new Error(`no docs block is marked "${name}" (README.md or docs/**.md)`)
  return found
}

/** Every block of one page (`docs/ci.md`), in page order. */
export function pageBlocks(page: string): DocBlock[] {
  return scanDocs().blocks.filter((block) => block.page === page)
}

/** The text of a page (`README.md`, `docs/server.md`): the prose a test checks beside the page's blocks. */
export function pageText(page: string): string {
  return readFileSync(join(root, page), 'utf8')
}

/** The text of the page that holds the block named `name`. */
export function pageOf(name: string): string {
  return pageText(docBlock(name).page)
}
