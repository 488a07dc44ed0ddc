/**
 * The generators of the reference pages: every `test/docs/reference/<name>.ts` exports `render()`, which answers the
 * pages it makes (path from the repository's root → text). `npm run docs:gen` writes them; test/docs/reference.test.ts
 * fails when a checked-in page differs from what its generator makes now, or when docs/reference/ holds a page no
 * generator makes. A generator reads the code (the CLI's commands, server/openapi.yaml, the validators), never runs svc.
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { root } from './blocks.js'

export type Pages = Record<string, string>
export type Generator = { name: string; render: () => Pages | Promise<Pages> }

const folder = join(root, 'test', 'docs', 'reference')

/** Every generator, by file name. */
export async function generators(): Promise<Generator[]> {
  const files = readdirSync(folder)
    .filter((file) => /\.tsx?$/.test(file) && !/\.test(-d)?\.tsx?$/.test(file))
    .sort()
  return Promise.all(
    files.map(async (file) => {
      const module = (await import(pathToFileURL(join(folder, file)).href)) as { render?: Generator['render'] }
      if (typeof module.render !== 'function') throw new Error(`test/docs/reference/${file} exports no render()`)
      return { name: file, render: module.render }
    }),
  )
}

/** Every generated page, from every generator; throws when two make the same page. */
export async function generatedPages(): Promise<Pages> {
  const pages: Pages = {}
  const from = new Map<string, string>()
  for (const generator of await generators()) {
    for (const [path, text] of Object.entries(await generator.render())) {
      if (from.has(path)) throw new Error(`${path} is made by ${from.get(path)} and ${generator.name}`)
      from.set(path, generator.name)
      pages[path] = text
    }
  }
  return pages
}

/** The checked-in pages under docs/reference/ (all of them generated). */
export function referencePages(): string[] {
  try {
    return readdirSync(join(root, 'docs', 'reference'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.md'))
      .map((file) => `docs/reference/${file.split('\\').join('/')}`)
      .sort()
  } catch {
    return []
  }
}
