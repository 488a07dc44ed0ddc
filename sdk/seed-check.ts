import { LineCounter, parseDocument } from 'yaml'
import type { z } from 'zod'

/** The keys a seed allows at each level, for "did you mean" (kept beside the schema in seed.ts). */
export type SeedKeys = { top: string[]; account: string[]; key: string[]; api: string[]; endpoint: string[] }

/** `apis[0].endpoints[1].path` */
function pathText(path: readonly PropertyKey[]): string {
  let text = ''
  for (const part of path) text += typeof part === 'number' ? `[${part}]` : `${text ? '.' : ''}${String(part)}`
  return text || '(top)'
}

function levelOf(path: readonly PropertyKey[], keys: SeedKeys): string[] {
  if (path.length === 0) return keys.top
  if (path[0] === 'account') return keys.account
  if (path[0] === 'keys') return keys.key
  if (path[0] === 'apis') return path[2] === 'endpoints' ? keys.endpoint : keys.api
  return []
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const kept = row[j]!
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1))
      previous = kept
    }
  }
  return row[b.length]!
}

/** The known key an unknown one most likely meant: a typo (`prise`) or a shortening (`path` → `path_pattern`). */
export function closestKey(unknown: string, known: readonly string[]): string | undefined {
  const word = unknown.toLowerCase()
  const starts = known.find((key) => key.startsWith(word) || word.startsWith(key))
  if (starts) return starts
  const ranked = known.map((key) => ({ key, d: distance(word, key) })).sort((a, b) => a.d - b.d)
  return ranked[0] && ranked[0].d <= Math.max(1, Math.floor(ranked[0].key.length / 3)) ? ranked[0].key : undefined
}

/** What a seed document is checked against. */
export type SeedChecks = {
  schema: z.ZodType
  /** The keys each level allows, for "did you mean". */
  keys: SeedKeys
  /** The rules that span fields, run on the document as read. @defaultValue none */
  rules?: ((document: unknown) => { path: PropertyKey[]; message: string }[]) | undefined
}

/**
 * Every problem of a seed document, each as `FILE:LINE path: message` (unknown keys with "did you mean"), in the
 * order of their lines, or [] when it is valid: what `schema` finds, and what `rules` find in the document as read
 * (the rules that span fields). `text` is read with line numbers kept, so each problem points at its line.
 */
export function seedProblems(file: string, text: string, { schema, keys, rules = () => [] }: SeedChecks): string[] {
  const lines = new LineCounter()
  const document = parseDocument(text, { lineCounter: lines })
  if (document.errors.length > 0)
    return document.errors.map((error) => {
      const line = error.linePos?.[0]?.line
      return `${file}${line ? `:${line}` : ''}: not YAML or JSON (${error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')})`
    })
  const value = document.toJS()
  const result = schema.safeParse(value)
  const ruled = rules(value)
  if (result.success && ruled.length === 0) return []
  const lineOf = (path: readonly PropertyKey[], key?: string): number | undefined => {
    const parts = path as (string | number)[]
    const node = document.getIn(parts, true) as { range?: [number, number, number]; items?: unknown[] } | undefined
    if (key !== undefined && node && Array.isArray(node.items)) {
      const pair = (node.items as { key?: { value?: unknown; range?: [number, number, number] } }[]).find(
        (item) => item.key?.value === key,
      )
      if (pair?.key?.range) return lines.linePos(pair.key.range[0]).line
    }
    if (node?.range) return lines.linePos(node.range[0]).line
    return parts.length > 0 ? lineOf(parts.slice(0, -1)) : undefined
  }
  const at = (line: number | undefined) => `${file}${line ? `:${line}` : ''}`
  const problems: { line: number | undefined; text: string }[] = (result.error?.issues ?? []).flatMap((issue) => {
    if (issue.code === 'unrecognized_keys')
      return issue.keys.map((key) => {
        const meant = closestKey(key, levelOf(issue.path, keys))
        const where = pathText([...issue.path, key])
        const line = lineOf(issue.path, key)
        return { line, text: `${at(line)} ${where}: unknown key${meant ? `: did you mean \`${meant}\`?` : ''}` }
      })
    const missing = issue.code === 'invalid_type' && issue.input === undefined
    const line = lineOf(issue.path)
    return [{ line, text: `${at(line)} ${pathText(issue.path)}: ${missing ? 'missing' : issue.message}` }]
  })
  for (const issue of ruled) {
    const line = lineOf(issue.path)
    problems.push({ line, text: `${at(line)} ${pathText(issue.path)}: ${issue.message}` })
  }
  // Stable: problems of one line keep the order they were found in.
  return problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)).map((problem) => problem.text)
}
