/**
 * The figures of README.md and docs/benchmarks.md, rendered from docs/benchmarks.json (`npm run bench -- --save
 * docs/benchmarks.json`): each page keeps its own text and gets the tables between `<!-- figures:start -->` and
 * `<!-- figures:end -->`. CI does not rerun the benchmark; reference.test.ts checks the tables are the file's.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { root } from '../blocks.js'

type Row = { figure: string; reference: unknown; svc: unknown; ratio?: number; target: string; pass: boolean | null }
type Saved = {
  measured_at: string
  command: string
  machine: { node: string; cpus: number; cpu_model?: string; memory_gb?: number; load_average: number[] }
  issue_11?: { table: Row[] }
  [bench: string]: unknown
}

/** The README's rows: what a newcomer compares first (the rest are on docs/benchmarks.md). */
const readmeFigures = [
  /^unpaid 402/,
  /^paid latency p50/,
  /^paid req\/s/,
  /^lost \/ double/,
  /^RSS .* idle/,
  /^`svc up`/,
]

const cell = (value: unknown) =>
  (typeof value === 'number' ? value.toLocaleString('en-US') : String(value ?? '—')).replace(/\|/g, '\\|')

function table(rows: Row[]): string[] {
  return [
    '| figure | reference | svc | ratio | target |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map(
      (row) =>
        `| ${row.figure} | ${cell(row.reference)} | ${cell(row.svc)} | ${row.ratio === undefined ? '' : `${row.ratio}×`} | ${cell(row.target)} |`,
    ),
  ]
}

function measured(saved: Saved, benchmarksLink: string): string {
  const { machine } = saved
  const date = saved.measured_at.replace(/T(\d\d:\d\d).*$/, ' $1 UTC')
  const cpu = `${machine.cpus} × ${machine.cpu_model ?? 'CPU'}`
  return (
    `Measured ${date} on ${cpu}, ${machine.memory_gb ?? '?'} GiB, Node ${machine.node}, load average ` +
    `${machine.load_average[0]} at the start, by \`${saved.command}\`. The reference is the official stack: ` +
    '`@x402/express` in front of the same upstream, an `@x402/evm` facilitator over HTTP, a plain Anvil; each figure ' +
    `is the median of alternating rounds of both in one run ([how it is measured](${benchmarksLink})).`
  )
}

/** The other benches of the run: their top-level figures, one line each. */
function others(saved: Saved): string[] {
  const lines: string[] = []
  for (const [name, value] of Object.entries(saved)) {
    if (['measured_at', 'command', 'machine', 'issue_11'].includes(name) || !value || typeof value !== 'object')
      continue
    const flat: string[] = []
    const walk = (object: Record<string, unknown>, prefix: string, depth: number) => {
      for (const [key, v] of Object.entries(object)) {
        if (v === null || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean')
          flat.push(`\`${prefix}${key}\`: ${cell(v)}`)
        else if (Array.isArray(v) && v.length <= 6 && v.every((x) => typeof x === 'number'))
          flat.push(`\`${prefix}${key}\`: ${v.join(', ')}`)
        else if (typeof v === 'object' && !Array.isArray(v) && depth < 1)
          walk(v as Record<string, unknown>, `${prefix}${key}.`, depth + 1)
      }
    }
    walk(value as Record<string, unknown>, '', 0)
    lines.push(`- **${name}**: ${flat.join('; ')}`)
  }
  return lines
}

function region(page: string, text: string, figures: string[]): string {
  const start = '<!-- figures:start -->\n'
  const end = '<!-- figures:end -->'
  const from = text.indexOf(start)
  const to = text.indexOf(end)
  if (from < 0 || to < from) throw new Error(`${page} has no <!-- figures:start --> … <!-- figures:end --> region`)
  return `${text.slice(0, from + start.length)}${figures.join('\n')}\n${text.slice(to)}`
}

export function render(): Record<string, string> {
  const saved = JSON.parse(readFileSync(join(root, 'docs/benchmarks.json'), 'utf8')) as Saved
  const rows = saved.issue_11?.table ?? []
  const read = (page: string) => readFileSync(join(root, page), 'utf8')
  const readme = [
    ...table(rows.filter((row) => readmeFigures.some((figure) => figure.test(row.figure)))),
    '',
    measured(saved, 'docs/benchmarks.md'),
  ]
  const docs = [measured(saved, '#what-npm-run-bench-measures'), '', ...table(rows), '', ...others(saved)]
  return {
    'README.md': region('README.md', read('README.md'), readme),
    'docs/benchmarks.md': region('docs/benchmarks.md', read('docs/benchmarks.md'), docs),
  }
}
