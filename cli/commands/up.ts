import { type Command, Option } from 'commander'
import isInCi from 'is-in-ci'
import { recordRunning } from '../running-svc.js'
import { portFromEnv } from '../inputs.js'
import { upOptions, type UpOptions } from '../up-options.js'
import { applySeed, parseSeed, readSeedFile, type SeedResult } from '../../sdk/seed.js'
import type { RunningSvc, StartSvcOptions } from '../../server/start/index.js'
import { readSession } from '../config.js'
import { firstSignal, stopWithin } from '../signals.js'
import { watchParent } from '../watch-parent.js'
import { tuneHeapWhileStarting } from '../v8-heap.js'
import { directGatewayUrl } from '../../core/hosts.js'
import { printDetached } from './detached.js'
import { rawArgsOf, type StartedBy } from './exec.js'
import { type Buyer, createBuyer, fundBuyer } from '../sandbox-env.js'
import { readyLine } from '../ready-line.js'
import { SvcError, toSvcError } from '../../core/errors.js'

/**
 * `svc up`: starts the sandbox and runs until Ctrl-C / SIGTERM, or until the process that started it is gone. `as`: a
 * command that starts svc as `svc up` does, then does its own thing with it (`svc exec`).
 */
export function registerUp(program: Command, env: NodeJS.ProcessEnv, as?: StartedBy) {
  upOptions(as?.command(program) ?? upCommand(program), env, as !== undefined)
    .description(as?.description ?? 'start the sandbox: chain, chain manager, facilitator, control planes and gateway')
    .action(
      async (
        options: UpOptions & { detach?: boolean; name: string; logProgress?: boolean; withBuyer?: boolean },
        command: Command,
      ) => {
        if (options.detach) return printDetached(env, rawArgsOf(command), options.name)
        // The dashboard owns the screen: on a terminal, unless --json / --no-tui, and not under CI, where Ink draws
        // nothing until exit. CI is what Ink itself asks (is-in-ci, reading the process's environment): CI or
        // CONTINUOUS_INTEGRATION set to anything but "0" or "false". So `CI=0` and CI_* variables alone mean a terminal
        // user, who gets the dashboard (svc's own check used to count both as CI and print the URLs instead).
        const dashboard =
          options.tui && !options.json && process.stdout.isTTY === true && process.stdin.isTTY === true && !isInCi
        // While the dashboard runs, log lines are kept and printed once it quits, instead of drawing over it.
        const held: string[] = []
        let holding = false
        const write = (line: string) => {
          if (!holding) return void process.stderr.write(`${line}\n`)
          held.push(line)
          if (held.length > 200) held.shift()
        }
        const say = options.json && !options.logProgress ? () => {} : write
        // Output to a parent that is gone (a pipe nobody reads any more) must not keep svc from shutting down cleanly.
        for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {})
        const port = typeof options.port === 'number' ? options.port : portFromEnv(options.port)
        // A seed that cannot be read is a usage error before anything starts.
        const seedFile = options.seed === undefined ? undefined : readSeedFile(options.seed)
        // Listening from the start: a signal while svc starts, or the moment it is ready, stops it cleanly. SIGHUP: the
        // terminal svc runs in was closed.
        const signalled = firstSignal(write, { signals: ['SIGINT', 'SIGTERM', 'SIGHUP'] })
        const started = performance.now()
        const startedServing = tuneHeapWhileStarting()
        const { resolveAnvilBinary } = await import('../../chain/anvil/anvil.js')
        const binary = resolveAnvilBinary({ explicit: env.SVC_ANVIL_BIN, env })
        // Started by a process that then dies (a killed `npm start`), svc stops too, and Anvil with it.
        const parentGone = options.watchParent ? watchParent() : undefined
        // `svc exec`'s buyer, and the detached svc's (`svc up --detach`): made and funded as soon as the chain is up
        // (its key's code is loaded by then), beside the server's start and the seed.
        const withBuyer = as !== undefined || options.withBuyer === true
        let funded: Promise<Buyer> | undefined
        const { startSvc } = await import('../../server/start/index.js')
        const sandbox: RunningSvc<'up'> = await startSvc({
          mode: 'up',
          dataDir: options.ephemeral ? undefined : options.dataDir,
          port,
          autoVerify: options.autoVerify,
          binary,
          forkUrl: options.forkUrl,
          twins: options.twin,
          twinForkUrl: options.twinForkUrl,
          freshChain: options.freshChain,
          rpcPort: options.rpcPort,
          productionFacilitatorUrl: options.facilitatorUrl,
          rpc: options.rpc,
          dnsServers: options.dnsServers
            ?.split(',')
            .map((s) => s.trim())
            .filter(Boolean),
          chainManagerPort: options.chainManagerPort,
          facilitatorPort: options.facilitatorPort,
          // startSvc refuses a value it does not know (a usage error).
          relay: options.relay as StartSvcOptions<'up'>['relay'],
          demoUpstream: seedFile?.needsDemoUpstream,
          log: write,
          onProgress: (line) => say(`svc: ${line}`),
          onChain: (chain) => {
            if (!withBuyer) return
            funded = fundBuyer(chain.manager, createBuyer())
            funded.catch(() => {})
          },
        })
        let seed: SeedResult | undefined
        if (seedFile) {
          say(`svc: applying the seed ${seedFile.file}…`)
          try {
            const spec = parseSeed(seedFile, { demo_upstream: sandbox.demoUpstreamUrl })
            seed = await applySeed(spec, {
              controlUrl: sandbox.server.controlUrl,
              sandboxControlUrl: sandbox.server.sandboxControlUrl,
            })
          } catch (error) {
            await sandbox.stop()
            throw error
          }
        }
        let buyer: Buyer | undefined
        try {
          buyer = await funded
        } catch (error) {
          await stopWithin(sandbox.stop(), write)
          throw new SvcError(toSvcError(error).message, { exitCode: 2 })
        }
        const { sandboxChain: chain } = sandbox.chain
        chain.on('restart', ({ generation, reason }) =>
          say(
            `svc: ${reason}: started a fresh chain (generation ${generation}); Sandbox wallets are being funded again`,
          ),
        )
        chain.on('error', (error) => write(`svc: chain restart failed: ${error.message}`))
        startedServing()
        if (as)
          return as.started(
            { ready: readyLine(sandbox), seed, buyer: buyer!, stop: () => sandbox.stop() },
            { signalled, parentGone },
          )
        // A CLI run later without --base-url / SVC_BASE_URL talks to this svc, whatever its port (cli/running-svc.ts).
        recordRunning(env, {
          port: sandbox.server.port,
          control_url: sandbox.server.controlUrl,
          sandbox_control_url: sandbox.server.sandboxControlUrl,
        })

        if (options.json) {
          process.stdout.write(
            `${JSON.stringify({ ...readyLine(sandbox), ...(seed ? { seed } : {}), ...(buyer ? { buyer } : {}) })}\n`,
          )
          return waitForShutdown(sandbox, say, signalled, parentGone)
        }
        if (dashboard) {
          const { runDashboard } = await import('../../tui/run.js')
          holding = true
          // The seed's seller, else the CLI's saved login for this sandbox (re-read: a later `svc login` shows up).
          const savedSession = () => {
            try {
              const saved = readSession(env)
              return saved && new URL(saved.base_url).port === String(sandbox.server.port)
                ? { jwt: saved.jwt }
                : undefined
            } catch {
              return undefined
            }
          }
          let running = true
          const stopOnSignal = () => void (running && stopWithin(sandbox.stop(), write).then(() => process.exit(0)))
          void signalled.then(stopOnSignal)
          void parentGone?.then(stopOnSignal)
          // The seed's new keys are shown once: in the dashboard, as --no-tui and --json print them.
          const newKeys = seed?.keys.flatMap(({ name, environment, key }) => (key ? [{ name, environment, key }] : []))
          await runDashboard({
            urls: readyLine(sandbox),
            session: seed ? { jwt: seed.jwt } : undefined,
            getSession: savedSession,
            newKeys,
          })
          running = false
          holding = false
          for (const line of held) process.stderr.write(`${line}\n`)
          await sandbox.stop()
          say('svc: stopped')
          return
        }
        printUrls(sandbox, seed, performance.now() - started)
        await waitForShutdown(sandbox, say, signalled, parentGone)
      },
    )
}

/** `svc up`, with the options only it has. */
function upCommand(program: Command): Command {
  return (
    program
      .command('up')
      .option(
        '--detach',
        'start svc in the background, print the ready line once it is ready, and return (`svc down` stops it)',
      )
      .option(
        '--name <name>',
        'with --detach: the name `svc status` and `svc down` know it by (several run side by side)',
        'default',
      )
      // Hidden: the options `svc up --detach` gives the svc it starts in the background.
      .addOption(
        new Option('--log-progress', 'print the progress lines to stderr (its log) even with --json').hideHelp(),
      )
      .addOption(
        new Option(
          '--with-buyer',
          'fund a new buyer beside the start and give it in the ready line as `buyer`',
        ).hideHelp(),
      )
  )
}

function seedLines(seed: SeedResult): string[] {
  return [
    `  seed account        ${seed.email} / ${seed.password}`,
    ...seed.keys.map(
      (k) =>
        `  seed key            ${k.name} (${k.environment}): ${k.key ?? '(exists; its secret was shown when it was made)'}`,
    ),
    ...seed.apis.map(
      (a) =>
        `  seed API            ${a.gateway_url}   (${a.created ? 'created' : 'exists'}, ${a.endpoints_created} endpoints added)${a.direct_url ? `\n                      ${a.direct_url}   (the same, no DNS)` : ''}`,
    ),
    '',
  ]
}

function printUrls({ chain, server }: RunningSvc<'up'>, seed: SeedResult | undefined, ms: number) {
  const { hosts } = server
  const usdc = chain.sandboxChain.usdc
  const lines = [
    `svc: ready in ${Math.round(ms)} ms (${chain.sandboxChain.mode} chain, data in ${server.dataDir})`,
    '',
    `  control plane       ${server.controlUrl}   (production, svc_live_ keys)`,
    `  sandbox control     ${server.sandboxControlUrl}   (Sandbox, svc_sandbox_ keys)`,
    `  gateway             http://{slug}.${hosts.sandboxPlatformDomain}:${server.port}   (Sandbox APIs)`,
    `                      http://{slug}.${hosts.platformDomain}:${server.port}   (production APIs)`,
    `                      ${directGatewayUrl(server.port, '{gateway host}')}   (any of them, no DNS)`,
    `  RPC                 ${chain.rpcUrl}   chain id ${chain.sandboxChain.chainId} (${chain.sandboxChain.network}), ETH`,
    `  USDC                ${usdc.address}   EIP-712 "${usdc.name}" version "${usdc.version}"`,
    `  chain manager       ${chain.chainManagerUrl}   POST /faucet {"address": "0x…"}`,
    `  facilitator         ${chain.facilitatorUrl}   /supported /verify /settle /discovery/resources`,
    ...chain.twins.map(
      ({ spec, chain: twin }) =>
        `  twin ${spec.name.padEnd(15)}${twin.rpcUrl}   chain id ${spec.chainId} (${spec.network}, v1 "${spec.v1Network}"), USDC ${twin.usdc.address}, ${twin.mode}`,
    ),
    '',
    ...(seed ? seedLines(seed) : []),
    'Press Ctrl-C to stop.',
  ]
  process.stdout.write(`${lines.join('\n')}\n`)
}

async function waitForShutdown(
  sandbox: RunningSvc<'up'>,
  say: (line: string) => void,
  signalled: Promise<NodeJS.Signals>,
  parentGone: Promise<void> | undefined,
) {
  const gone = parentGone?.then(() => 'the process that started svc exited')
  const reason = await Promise.race(gone ? [signalled, gone] : [signalled])
  say(`svc: ${reason}: stopping…`)
  await stopWithin(sandbox.stop(), say)
  say('svc: stopped')
}
