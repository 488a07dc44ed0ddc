import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build, type Message, type Metafile, type Plugin } from 'esbuild'

/** The project's root (node_modules, patches/, bin/ beside it). */
export const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** A module of a dependency's own files, by its path under node_modules (`viem/_esm/utils/…`). */
export const dependencyFile = (path: string) => join(projectRoot, 'node_modules', path)

export type PatchedBundle<T> = {
  /** The bundle, imported. */
  module: T
  /** The bundle's text. */
  text: string
  warnings: Message[]
  /** The files that went into it, by their path from the project's root. */
  inputs: string[]
}

/**
 * Bundles the entry module `source` with `plugins` as bin/build.js bundles `svc` (esbuild, ESM for Node, the project's
 * node_modules), imports it and removes its files. It is built inside node_modules/.cache so that it resolves optional
 * native packages (`secp256k1`) as dist/cli does.
 */
export async function importPatchedBundle<T>(source: string, plugins: Plugin[]): Promise<PatchedBundle<T>> {
  mkdirSync(join(projectRoot, 'node_modules', '.cache'), { recursive: true })
  const dir = mkdtempSync(join(projectRoot, 'node_modules', '.cache', 'svc-patched-'))
  try {
    const entry = join(dir, 'entry.js')
    const outfile = join(dir, 'out.mjs')
    writeFileSync(entry, source)
    const result = await build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'node',
      nodePaths: [join(projectRoot, 'node_modules')],
      plugins,
      metafile: true,
      write: true,
      logLevel: 'silent',
    })
    const module = (await import(pathToFileURL(outfile).href)) as T
    const inputs = Object.keys((result.metafile as Metafile).inputs)
    return { module, text: readFileSync(outfile, 'utf8'), warnings: result.warnings, inputs }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
