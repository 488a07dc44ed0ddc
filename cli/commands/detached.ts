import type { Command } from 'commander'
import { SvcError, UsageError } from '../../core/errors.js'
import { action, addCommand, type CliContext } from '../context.js'
import {
  type DetachedRecord,
  detachedLine,
  findRecord,
  isRunning,
  removeRecord,
  startDetached,
  stopDetached,
} from '../detached.js'
import { dotenvLines, sandboxEnv, shellExports } from '../sandbox-env.js'

type Which = { name?: string; dataDir?: string }

/** `--name`, `--data-dir`: which detached sandbox a command means. */
const which = (command: Command) =>
  command
    .option('--name <name>', 'the sandbox `svc up --detach --name` started (default: default)')
    .option('--data-dir <dir>', 'the sandbox whose data dir this is')

/** `the sandbox "ci"`, or `the sandbox in DIR`, for messages. */
const named = (by: Which) => (by.dataDir ? `the sandbox in ${by.dataDir}` : `the sandbox "${by.name ?? 'default'}"`)

/** The environment of a record ({@link sandboxEnv}). */
export const recordEnv = (record: DetachedRecord) => sandboxEnv(record.ready, record.ready.seed, record.buyer)

/** `svc status` and `svc down`: the sandboxes `svc up --detach` started. */
export function registerDetached(program: Command, ctx: CliContext) {
  which(
    addCommand(
      program,
      'status',
      'whether the sandbox `svc up --detach` started runs, and its URLs and keys (exit 1 when none runs)',
    ),
  )
    .option('--env', 'print its environment as `export NAME=\'value\'` lines, for `eval "$(svc status --env)"`')
    .option('--dotenv', 'print its environment as a dotenv file (`NAME=value` lines)')
    .action(
      action<Which & { env?: boolean; dotenv?: boolean }>(ctx, async (call) => {
        const { options, out } = call
        if ([options.env, options.dotenv, options.json].filter(Boolean).length > 1)
          throw new UsageError('give one of --json, --env, --dotenv')
        const record = findRecord(call.env, options)
        if (!record) throw new SvcError(`${named(options)} is not running: \`svc up --detach\` starts one`)
        if (!isRunning(record)) {
          removeRecord(call.env, record)
          throw new SvcError(
            `${named(options)} is dead (pid ${record.pid} exited): its record is removed; its log: ${record.log}`,
          )
        }
        const env = recordEnv(record)
        if (options.env) return void call.io.stdout.write(shellExports(env))
        if (options.dotenv) return void call.io.stdout.write(dotenvLines(env))
        const { name, pid, log, ready, buyer } = record
        if (out.isJson) return out.json({ name, status: 'running', pid, log, ...ready, buyer, env })
        out.line(`${name}: running (pid ${pid}), data in ${ready.data_dir}, log in ${log}`)
        for (const [key, value] of Object.entries(env)) out.line(`  ${key}=${value}`)
      }),
    )

  which(addCommand(program, 'down', 'stop the sandbox `svc up --detach` started, and wait for it to exit')).action(
    action<Which>(ctx, async (call) => {
      const { options, out } = call
      const record = findRecord(call.env, options)
      if (!record || !isRunning(record)) {
        if (record) removeRecord(call.env, record)
        const why = record ? ` (${named(options)} had exited; its record is removed)` : ''
        if (out.isJson) return out.json({ stopped: false, reason: 'nothing was running' })
        return out.line(`nothing was running${why}`)
      }
      await stopDetached(call.env, record)
      if (out.isJson) return out.json({ stopped: true, name: record.name, pid: record.pid })
      out.line(`stopped ${record.name} (pid ${record.pid})`)
    }),
  )
}

/** `svc up --detach`: starts it ({@link startDetached}) and prints its ready line, with its name, pid, log and buyer. */
export async function printDetached(env: NodeJS.ProcessEnv, rawArgs: readonly string[], name: string): Promise<void> {
  process.stdout.write(detachedLine(await startDetached(env, rawArgs, name)))
}
