#!/usr/bin/env node
import '../core/polyfill.js'
import { readFileSync, realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Command, CommanderError } from 'commander'
import { toSvcError, UsageError } from '../core/errors.js'
import { registerAnalytics } from './commands/analytics.js'
import { registerChannels } from './commands/channels.js'
import { registerPayments } from './commands/payments.js'
import { registerDashboard } from './commands/dashboard.js'
import { registerDetached } from './commands/detached.js'
import { CommandExit, execCommand } from './commands/exec.js'
import { registerApis } from './commands/apis.js'
import { registerAuth } from './commands/auth.js'
import { registerDiscovery } from './commands/discovery.js'
import { registerDomains } from './commands/domains.js'
import { registerEndpoints } from './commands/endpoints.js'
import { registerFaults } from './commands/faults.js'
import { registerHosts } from './commands/hosts.js'
import { registerImport } from './commands/import.js'
import { registerKeys } from './commands/keys.js'
import { registerListen } from './commands/listen.js'
import { registerMcp } from './commands/mcp.js'
import { registerPay } from './commands/pay.js'
import { registerSandbox } from './commands/sandbox.js'
import { registerServe } from './commands/serve.js'
import { registerSnapshots } from './commands/snapshots.js'
import { registerTime } from './commands/time.js'
import { registerUp } from './commands/up.js'
import type { CliContext } from './context.js'
import { dropWritesToClosedPipes, processIo, type Io } from './output.js'

/** True when the command line asks for `--json` (before a `--`, after which everything is an argument). */
function asksForJson(argv: string[]): boolean {
  const args = argv.slice(2)
  const end = args.indexOf('--')
  return (end < 0 ? args : args.slice(0, end)).includes('--json')
}

/**
 * The `svc` command. Exit codes: 0 success, 1 API error (the control plane said no, or could not be reached),
 * 2 usage error (bad flags or arguments, a missing credential). The only place that decides them, and the only
 * place that presents an error: one line on stderr, `svc: <message>`, or with `--json` one JSON document
 * `{"error": "<message>"}` (stdout keeps only what the command answered).
 * `env` is the only source of environment variables for every command; `io` is where they write.
 */
export async function main(argv: string[], env: NodeJS.ProcessEnv, io: Io = processIo): Promise<number> {
  const json = asksForJson(argv)
  const presentError = (message: string) =>
    io.stderr.write(json ? `${JSON.stringify({ error: message })}\n` : `svc: ${message}\n`)
  const exec = execCommand(env)
  const program = createProgram({ env, io }, exec, presentError)

  try {
    await program.parseAsync(argv)
    return 0
  } catch (error) {
    // `svc exec`: its command's exit code, nothing more to say.
    if (error instanceof CommandExit) return error.code
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0.
      return error.exitCode === 0 ? 0 : 2
    }
    // Everything else, our errors and the libraries' alike, is one SvcError: its first line and its exit code.
    const svcError = toSvcError(error)
    // A list that says more (every problem of a seed file): one indented line each after the message, or `details`.
    const details = svcError instanceof UsageError ? svcError.details : []
    if (json && details.length > 0) io.stderr.write(`${JSON.stringify({ error: svcError.message, details })}\n`)
    else presentError(svcError.message.split('\n')[0]!)
    if (!json) io.stderr.write(details.map((line) => `  ${line}\n`).join(''))
    // `svc exec`: svc failing to start is exit 2, whatever the reason.
    return exec.starting ? 2 : svcError.exitCode
  }
}

/**
 * The `svc` command tree, every command and option registered, nothing parsed or run: `main` parses it, and the CLI
 * reference (test/docs/reference/cli.ts) walks it. `exec` is `svc exec`'s state (main reads `exec.starting`);
 * `presentError` prints commander's own errors (an unknown option, a missing argument) as svc's one line.
 */
export function createProgram(
  ctx: CliContext,
  exec: ReturnType<typeof execCommand> = execCommand(ctx.env),
  presentError: (message: string) => void = (message) => ctx.io.stderr.write(`svc: ${message}\n`),
): Command {
  const { env, io } = ctx
  const program = new Command()
    .name('svc')
    .description(
      'A self-hosted x402 sandbox: a local chain with USDC, a faucet and an x402 facilitator, and its control plane.',
    )
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // One line: commander's "(Did you mean --price?)" of a mistyped option or command stays, on the same line.
      outputError: (text) =>
        presentError(
          text
            .trimEnd()
            .replace(/^error: /, '')
            .replace(/\n\(Did you mean (.+)\?\)$/, ' (did you mean `$1`?)')
            .split('\n')[0]!,
        ),
    })
    .configureHelp({ showGlobalOptions: true })
    .version(packageVersion(), '--version', "svc's version")
    .option('--sandbox', 'use the Sandbox (development environment); also SVC_ENVIRONMENT=development or SVC_SANDBOX=1')
    .option(
      '--base-url <url>',
      'control-plane URL (SVC_BASE_URL; default http://api.localhost:4020, the Sandbox one with --sandbox or a svc_sandbox_ key)',
    )
    .option('--api-key <key>', 'an API key (SVC_API_KEY)')
    .option('--jwt <token>', 'a session JWT (SVC_JWT; default: the one saved by `svc login`)')
  registerUp(program, env)
  registerServe(program, env)
  registerUp(program, env, exec)
  registerDetached(program, ctx)
  registerDashboard(program, ctx)
  registerAuth(program, ctx)
  registerKeys(program, ctx)
  registerApis(program, ctx)
  registerEndpoints(program, ctx)
  registerImport(program, ctx)
  registerDomains(program, ctx)
  registerDiscovery(program, ctx)
  registerAnalytics(program, ctx)
  registerChannels(program, ctx)
  registerPayments(program, ctx)
  registerSandbox(program, ctx)
  registerSnapshots(program, ctx)
  registerTime(program, ctx)
  registerListen(program, ctx)
  registerFaults(program, ctx)
  registerPay(program, ctx)
  registerHosts(program, ctx)
  registerMcp(program, ctx)

  return program
}

/** True when this module is the program (`tsx cli/cli.ts`, `node dist/cli/cli.js`), not a module a test imports. */
function isEntryPoint(): boolean {
  const entry = process.argv[1]
  if (!entry) return false
  const real = (path: string) => {
    try {
      return realpathSync(path)
    } catch {
      return path
    }
  }
  return real(fileURLToPath(import.meta.url)) === real(entry)
}

/** Runs the command line of this process and exits with its code (bin/svc.js calls this). */
export async function run(): Promise<never> {
  dropWritesToClosedPipes()
  const code = await main(process.argv, process.env)
  // Let a large answer (a CSV export) reach a pipe before exiting.
  await new Promise((resolve) => process.stdout.write('', resolve))
  // prool's child-process cleanup can keep the event loop alive for seconds after stop: leave now.
  process.exit(code)
}

if (isEntryPoint()) await run()

/** svc's version, from its package.json (beside cli/ in the sources, two folders up in dist/). */
function packageVersion(): string {
  for (const path of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as {
        name?: string
        version?: string
      }
      if (pkg.name === 'svc' && pkg.version) return pkg.version
    } catch {}
  }
  return 'unknown'
}
