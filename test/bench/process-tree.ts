/**
 * Resident memory of processes, from /proc (Linux): one process, or a process with all its descendants (svc's
 * Node process, its Anvil child and Anvil's watchdog). Elsewhere the figures are NaN.
 */
import { readdirSync, readFileSync } from 'node:fs'

/** VmRSS of one process in kB; NaN when it is gone or /proc is not there. */
export function rssKb(pid: number | undefined): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) : Number.NaN
  } catch {
    return Number.NaN
  }
}

/** The process and its descendants, with their command names. */
export function listProcessTree(root: number): { pid: number; name: string }[] {
  let entries: string[]
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name))
  } catch {
    return []
  }
  const children = new Map<number, { pid: number; name: string }[]>()
  for (const entry of entries) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      const list = children.get(ppid) ?? []
      list.push({ pid: Number(entry), name })
      children.set(ppid, list)
    } catch {
      // Gone meanwhile.
    }
  }
  const tree = [{ pid: root, name: 'root' }]
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!.pid) ?? []))
  return tree
}

/** RSS (MB) of a process tree in all and by command name (e.g. `{ node: 120, anvil: 60, sh: 1 }`). */
export function treeRssMb(
  root: number,
  extraPids: (number | undefined)[] = [],
): { total_mb: number; by_process: Record<string, number> } {
  const tree = listProcessTree(root)
  const seen = new Set(tree.map((p) => p.pid))
  for (const pid of extraPids) if (pid !== undefined && !seen.has(pid)) tree.push({ pid, name: 'extra' })
  const byProcess: Record<string, number> = {}
  let total = 0
  for (const { pid, name } of tree) {
    const kb = rssKb(pid)
    if (Number.isNaN(kb)) continue
    const label = pid === root ? 'svc' : name
    byProcess[label] = Math.round(((byProcess[label] ?? 0) + kb / 1024) * 10) / 10
    total += kb
  }
  return { total_mb: Math.round((total / 1024) * 10) / 10, by_process: byProcess }
}
