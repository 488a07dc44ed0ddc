/**
 * docs/architecture.md's folder map and its path of a paid request are samples of the repository (`readme-output`
 * blocks): the map names the folders there are (a folder whose sub-folders it lists lists them all, and each one it
 * names exists), and every file either block names exists.
 */
import { readdirSync, statSync } from 'node:fs'
import { join, posix } from 'node:path'
import { describe, expect, test } from 'vitest'
import { docBlock } from '../docs/blocks.js'
import { layers, root } from './rooms.js'

type Entry = { path: string; depth: number; text: string }

/** The map's entries: `name/` at indent 0, 2 or 4, each with its description (continuation lines included). */
function mapEntries(code: string): Entry[] {
  const entries: Entry[] = []
  const parents: string[] = []
  for (const line of code.split('\n')) {
    const match = /^( {0,4})([\w.-]+)\/(?: |$)/.exec(line)
    if (match && match[1]!.length % 2 === 0) {
      const depth = match[1]!.length / 2
      parents.length = depth
      const path = [...parents, match[2]!].join('/')
      parents.push(match[2]!)
      entries.push({ path, depth, text: line.slice(match[0].length) })
    } else if (entries.length > 0) entries.at(-1)!.text += ` ${line.trim()}`
  }
  return entries
}

const isDir = (path: string) => {
  try {
    return statSync(join(root, path)).isDirectory()
  } catch {
    return false
  }
}
const subfolders = (path: string) =>
  readdirSync(join(root, path))
    .filter((name) => isDir(posix.join(path, name)))
    .sort()

/** Every file of the source folders, as repository paths (read once). */
const files: string[] = ['core', 'chain', 'server', 'sdk', 'mcp', 'tui', 'cli', 'patches', 'bin', 'fixtures'].flatMap(
  (folder) =>
    readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
      .map((file) => posix.join(folder, file.split('\\').join('/')))
      .filter((file) => !file.includes('node_modules') && !isDir(file)),
)
const fileSet = new Set(files)

/** The file names a description mentions (`errors.ts`, `server/app.ts`, `payments/tell.ts`), not globs (`*-tables.ts`). */
function namedFiles(text: string): string[] {
  return [...text.matchAll(/(?<![\w*./-])[\w][\w.-]*(?:\/[\w.-]+)*\.(?:tsx?|js|ya?ml|sol)\b/g)].map((m) => m[0])
}

/** Whether `name` is a file of the repository: from its root, or by its tail under one of `folders`. */
function exists(name: string, folders: string[]): boolean {
  if (fileSet.has(name)) return true
  return folders.some((folder) => files.some((file) => file.startsWith(`${folder}/`) && file.endsWith(`/${name}`)))
}

describe("docs/architecture.md's folder map", () => {
  const entries = mapEntries(docBlock('folder map').code)

  test('names every layer, and only folders there are', () => {
    const top = entries.filter((entry) => entry.depth === 0).map((entry) => entry.path)
    expect(top).toEqual(expect.arrayContaining(layers.filter((layer) => layer !== 'fixtures')))
    expect(entries.filter((entry) => !isDir(entry.path)).map((entry) => entry.path)).toEqual([])
  })

  test('a folder whose sub-folders it lists lists them all', () => {
    const listed = new Map<string, string[]>()
    for (const entry of entries) {
      const parent = posix.dirname(entry.path)
      if (parent !== '.') listed.set(parent, [...(listed.get(parent) ?? []), posix.basename(entry.path)])
    }
    expect([...listed.keys()]).toEqual(expect.arrayContaining(['core', 'chain', 'server', 'server/gateway']))
    for (const [parent, names] of listed) expect([parent, [...names].sort()]).toEqual([parent, subfolders(parent)])
  })

  test('every file it names exists', () => {
    const missing = entries.flatMap((entry) =>
      namedFiles(entry.text)
        .filter((name) => !exists(name, [entry.path, entry.path.split('/')[0]!]))
        .map((name) => `${entry.path}/: ${name}`),
    )
    expect(missing).toEqual([])
  })
})

test("every file docs/architecture.md's path of a paid request names exists", () => {
  const names = namedFiles(docBlock('paid path').code)
  expect(names.length).toBeGreaterThan(10)
  expect(names.filter((name) => !exists(name, ['server', 'chain']))).toEqual([])
})
