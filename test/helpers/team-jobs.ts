/**
 * The README's CI job (ci-job.ts of "Team Sandbox") run as real child processes, one per tenant, as a team's CI runs
 * them: its `svc/testing` import made this checkout's source, `SVC_BASE_URL` the balancer, its seller's credentials,
 * its upstream and pay-to address in the environment. Each paid answer is a JSON line the test reads as it comes.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { readmeBlock } from './cluster.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

export type JobEnv = {
  SVC_BASE_URL: string
  SVC_EMAIL: string
  SVC_PASSWORD: string
  UPSTREAM_URL: string
  PAY_TO: string
  PAYMENTS: string
  CI_JOB_ID: string
}

export type CiJob = {
  child: ChildProcess
  /** Date.now() of each paid answer, in order. */
  paidAt: number[]
  /** The job's last line: its API and how many settlements its ledger had. */
  summary?: { api: string; settlements: number }
  /** Resolves with the exit code and stderr once the job ended. */
  done: Promise<{ code: number | null; stderr: string }>
}

/** Writes the README's ci-job.ts into `dir` (as .mts: top-level await outside a package) and answers its path. */
export function writeCiJob(dir: string): string {
  const file = join(dir, 'ci-job.mts')
  const code = readmeBlock('ci-job.ts').replace(
    'from "svc/testing"',
    `from ${JSON.stringify(join(root, 'sdk', 'testing.ts'))}`,
  )
  writeFileSync(file, code)
  return file
}

/** Starts one job (tsx, from this checkout so it resolves), calling `onPaid` at each paid answer. */
export function startCiJob(file: string, env: JobEnv, onPaid: () => void = () => {}): CiJob {
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  const job: CiJob = {
    child,
    paidAt: [],
    done: new Promise((resolve) => child.once('close', (code) => resolve({ code, stderr }))),
  }
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const parsed = JSON.parse(line) as { paid?: number; at?: number; api?: string; settlements?: number }
    if (parsed.paid !== undefined) {
      job.paidAt.push(parsed.at!)
      onPaid()
    } else job.summary = parsed as CiJob['summary']
  })
  return job
}
