import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'

/** The pids a running sandbox keeps in its data dir: svc's (its lock) and its Anvil's. */
export function readSandboxPids(dataDir: string): { svc: number; anvil: number } {
  const read = (name: string) => Number(readFileSync(join(dataDir, name), 'utf8').trim().split(/\s+/)[0])
  return { svc: read('svc.lock'), anvil: read('anvil.pid') }
}

/** The pid of a process that has exited (so surely no process of ours has it). */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await once(child, 'exit')
  return child.pid!
}

/** A TCP listener on a free port of 127.0.0.1, holding it. */
export async function holdPort(): Promise<{ port: number; server: Server }> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { port: (server.address() as { port: number }).port, server }
}
