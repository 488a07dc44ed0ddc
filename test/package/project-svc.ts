/** `svc up` as a project runs it: the `svc` its install put in node_modules/.bin, not this repo's. */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { cleanEnv, type PackedProject } from './packed-project.js'

export type ProjectSvc = {
  /** The ready line of `svc up --json`. */
  ready: Record<string, any>
  stop(): Promise<void>
}

/** Starts `svc up --json --ephemeral --port 0 …args` in the project and resolves with its ready line. */
export async function startProjectSvc(project: PackedProject, args: string[]): Promise<ProjectSvc> {
  const child = spawn(
    join(project.dir, 'node_modules', '.bin', 'svc'),
    ['up', '--json', '--ephemeral', '--port', '0', ...args],
    { cwd: project.dir, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const ready = await new Promise<Record<string, any>>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => {
      try {
        resolve(JSON.parse(line))
      } catch {
        reject(new Error(`svc up printed a line that is not JSON: ${line}`))
      }
    })
    child.once('exit', (code) => reject(new Error(`svc up exited with ${code} before it was ready: ${stderr.trim()}`)))
  })
  return {
    ready,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}
