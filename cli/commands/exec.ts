import { spawn } from 'node:child_process'
import { accessSync, constants as fsConstants, statSync } from 'node:fs'
import { constants as osConstants } from 'node:os'
import { delimiter, join } from 'node:path'
import type { Command } from 'commander'
import { toSvcError, UsageError } from '../../core/errors.js'
import type { SeedResult } from '../../sdk/seed.js'
import { type Buyer, type ReadyLine, sandboxEnv } from '../sandbox-env.js'
import { stopWithin } from '../signals.js'

/** Ends the CLI with a given exit code and nothing printed (`svc exec` exits with its command's code). */
export class CommandExit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`)
  }
}

/** What `svc up` gives a command that starts svc as it does (cli/commands/up.ts `registerUp`). */
export type StartedSvc = { ready: ReadyLine; seed?: SeedResult | undefined; buyer: Buyer; stop(): Promise<void> }
export type StartedBy = {
  description: string
  /** The command, made on the program; `svc up`'s options are added to it. */
  command(program: Command): Command
  /** What it does once svc is ready (seeded, its buyer funded), instead of running until a signal; it stops svc. */
  started(
    svc: StartedSvc,
    until: { signalled: Promise<NodeJS.Signals>; parentGone?: Promise<void> | undefined },
  ): Promise<void>
}

/** The program's command line after `node svc` (commander keeps it, untyped, on the program). */
export const rawArgsOf = (command: Command): string[] =>
  ((command.parent as (Command & { rawArgs?: string[] }) | null)?.rawArgs ?? []).slice(2)

/** The executable `name` names: a path, or a file on PATH; undefined when there is none. */
function findExecutable(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const runnable = (path: string) => {
    try {
      accessSync(path, fsConstants.X_OK)
      return statSync(path).isFile()
    } catch {
      return false
    }
  }
  if (name.includes('/')) return runnable(name) ? name : undefined
  for (const dir of (env.PATH ?? '').split(delimiter)) if (dir && runnable(join(dir, name))) return join(dir, name)
  return undefined
}

/** How long a command may take to exit after svc passed it a signal, before it is killed. */
const commandStopMs = 10_000

/**
 * `svc exec [up options] -- <command…>`: starts an ephemeral sandbox as `svc up` does (on a free port, with the demo
 * seed unless `--seed` names another), funds a buyer, runs the command with the sandbox's environment
 * (cli/sandbox-env.ts), stops svc, and exits with the command's exit code (killed by a signal: 128 + its number). A
 * missing `--`, command, or executable is a usage error before anything starts; svc failing to start is exit 2. A
 * signal to `svc exec`, or the death of its parent, is passed to the command, and svc stops once it exited.
 */
export function execCommand(env: NodeJS.ProcessEnv): StartedBy & { starting: boolean } {
  let argv: string[] = []
  const exec = {
    /** True from the command's checks to svc being ready: an error then is svc failing to start (exit 2). */
    starting: false,
    description:
      "start an ephemeral sandbox (the demo seed unless --seed), run a command with its URLs and a funded buyer in its environment, stop svc, exit with the command's code",
    command: (program: Command) =>
      program
        .command('exec')
        .usage('[options] -- <command…>')
        .allowExcessArguments()
        .hook('preAction', (_: Command, command: Command) => {
          const raw = rawArgsOf(command)
          const dashes = raw.indexOf('--')
          if (dashes < 0)
            throw new UsageError('svc exec needs `--` before the command: svc exec [options] -- <command…>')
          argv = raw.slice(dashes + 1)
          if (argv.length === 0)
            throw new UsageError('svc exec needs a command after `--`: svc exec [options] -- <command…>')
          if (!findExecutable(argv[0]!, env)) throw new UsageError(`command not found: ${argv[0]}`)
          // A sandbox of one command: ephemeral unless --data-dir, seeded, and quiet (its free port is its option's
          // default: cli/up-options.ts).
          if (command.getOptionValueSource('dataDir') !== 'cli') command.setOptionValue('ephemeral', true)
          if (command.getOptionValue('seed') === undefined) command.setOptionValue('seed', 'demo')
          command.setOptionValue('json', true)
          exec.starting = true
        }),
    async started(
      { ready, seed, buyer, stop }: StartedSvc,
      { signalled, parentGone }: Parameters<StartedBy['started']>[1],
    ) {
      exec.starting = false
      const say = (line: string) => void process.stderr.write(`${line}\n`)
      const child = spawn(argv[0]!, argv.slice(1), {
        stdio: 'inherit',
        env: { ...env, ...sandboxEnv(ready, seed, buyer) },
      })
      const ended = new Promise<{ code: number } | { error: Error }>((resolve) => {
        child.once('error', (error) => resolve({ error }))
        child.once('exit', (code, signal) =>
          resolve({ code: code ?? 128 + (signal ? (osConstants.signals[signal] ?? 0) : 0) }),
        )
      })
      // A signal to svc exec, or its parent gone: the command gets it (its parent gone: SIGTERM), then a bound.
      const pass = (signal: NodeJS.Signals) => {
        if (child.exitCode !== null || child.signalCode !== null) return
        child.kill(signal)
        setTimeout(() => child.kill('SIGKILL'), commandStopMs).unref()
      }
      void signalled.then(pass)
      void parentGone?.then(() => pass('SIGTERM'))
      const outcome = await ended
      await stopWithin(stop(), say)
      if ('error' in outcome) throw new UsageError(`cannot run ${argv[0]}: ${toSvcError(outcome.error).message}`)
      if (outcome.code !== 0) throw new CommandExit(outcome.code)
    },
  }
  return exec
}
