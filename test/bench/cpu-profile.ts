/**
 * Summarises a V8 `.cpuprofile` (`node --cpu-prof`) by module: self time (samples whose top frame is in it) and
 * total time (samples with it anywhere on the stack), in ms. A module is an npm package (`viem`, `@noble/curves`),
 * one of svc's folders (`svc server/gateway`), a Node builtin (`node:internal`), or V8's own entries
 * (`(garbage collector)`, `(program)`, `(idle)`).
 */
import { readFileSync } from 'node:fs'

type ProfileNode = { id: number; callFrame: { functionName: string; url: string }; children?: number[] }
type CpuProfile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

/** The module a frame's URL belongs to. */
export function moduleOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)'
  if (url.startsWith('node:'))
    return url.startsWith('node:internal') ? 'node:internal' : url.replace(/^(node:[^/]+).*/, '$1')
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (pkg) return pkg[1]!
  const own = /\/(?:dist|src)?\/?((?:server|chain|core|sdk|tui|mcp|fixtures)(?:\/[^/]+)?)\/[^/]+$/.exec(url)
  if (own) return `svc ${own[1]!.replace(/\.[jt]s$/, '')}`
  return url.replace(/^file:\/\//, '')
}

export function summariseCpuProfile(file: string, options: { top?: number } = {}) {
  const { top = 25 } = options
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const moduleOfNode = new Map(
    profile.nodes.map((node) => [node.id, moduleOf(node.callFrame.url, node.callFrame.functionName)]),
  )
  const self = new Map<string, number>()
  const total = new Map<string, number>()
  const functions = new Map<string, number>()
  let all = 0
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000
    all += ms
    const top = moduleOfNode.get(id)!
    self.set(top, (self.get(top) ?? 0) + ms)
    const frame = byId.get(id)!.callFrame
    const name = `${frame.functionName || '(anonymous)'} ${top}`
    functions.set(name, (functions.get(name) ?? 0) + ms)
    const seen = new Set<string>()
    for (let node: number | undefined = id; node !== undefined; node = parent.get(node))
      seen.add(moduleOfNode.get(node)!)
    for (const module of seen) total.set(module, (total.get(module) ?? 0) + ms)
  })
  const rows = [...self.keys()]
    .map((module) => ({ module, self_ms: Math.round(self.get(module)!), total_ms: Math.round(total.get(module) ?? 0) }))
    .sort((a, b) => b.self_ms - a.self_ms)
  const busy = all - (self.get('(idle)') ?? 0)
  return {
    profiled_ms: Math.round(all),
    busy_ms: Math.round(busy),
    modules: rows.slice(0, top),
    top_functions: [...functions.entries()]
      .filter(([name]) => !name.startsWith('(idle)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, ms]) => ({ function: name, self_ms: Math.round(ms) })),
  }
}
