import '../core/polyfill.js'
import { Instance } from 'prool'
import { sandboxMnemonic } from './constants.js'
import { sandboxChainId } from '../core/sandbox-usdc.js'
import { resolveAnvilBinary } from './anvil-binary.js'

export { resolveAnvilBinary }

export type StartAnvilOptions = {
  /** Anvil binary. @defaultValue {@link resolveAnvilBinary}: the package for this machine, PATH, foundryup */
  binary?: string | undefined
  /** Port to listen on; 0 picks a free one. @defaultValue 0 */
  port?: number | undefined
  /** @defaultValue '127.0.0.1' */
  host?: string | undefined
  /** Fork this chain instead of starting empty. */
  forkUrl?: string | undefined
  /** @defaultValue 845320402 */
  chainId?: number | undefined
  /** @defaultValue Anvil's development mnemonic */
  mnemonic?: string | undefined
  /** Extra anvil arguments, as prool names them (camelCase). */
  extraArgs?: Record<string, unknown> | undefined
}

export type AnvilProcess = {
  rpcUrl: string
  host: string
  port: number
  /** Resolves when the process exits, for whatever reason. */
  exited: Promise<{ code: number | null; signal: string | null }>
  /** The OS process id, for tests that kill the chain on purpose. */
  pid: number | undefined
  stop(): Promise<void>
}

/**
 * Starts Anvil through prool and resolves once it listens.
 * @returns the RPC URL and a `stop` function.
 */
export async function startAnvil(options: StartAnvilOptions = {}): Promise<AnvilProcess> {
  const {
    binary = resolveAnvilBinary(),
    port = 0,
    host = '127.0.0.1',
    forkUrl,
    chainId = sandboxChainId,
    mnemonic = sandboxMnemonic,
    extraArgs = {},
  } = options

  const instance = Instance.anvil({
    binary,
    host,
    port,
    chainId,
    mnemonic,
    // Old states pile up on disk and slow Anvil down; a bounded history keeps simulations safe.
    pruneHistory: 100,
    ...(forkUrl ? { forkUrl } : {}),
    ...extraArgs,
  })

  let listeningPort = port
  const onStdout = (message: string) => {
    const match = /Listening on [^\s:]+:(\d+)/.exec(message)
    if (match) listeningPort = Number(match[1])
  }
  instance.on('stdout', onStdout)

  let resolveExit!: (value: { code: number | null; signal: string | null }) => void
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => (resolveExit = resolve))
  instance.on('exit', (code, signal) => resolveExit({ code, signal }))

  try {
    await instance.start()
  } catch (error) {
    throw new Error(`anvil failed to start (${binary}): ${(error as Error).message.trim()}`, { cause: error })
  }
  instance.off('stdout', onStdout)
  if (!listeningPort) throw new Error('anvil started but did not say which port it listens on')

  const internal = instance._internal as { process?: { pid?: number } } | undefined
  let stopped: Promise<void> | undefined
  return {
    rpcUrl: `http://${host}:${listeningPort}`,
    host,
    port: listeningPort,
    exited,
    pid: internal?.process?.pid,
    stop() {
      stopped ??= instance.stop().catch(() => {})
      return stopped
    },
  }
}
