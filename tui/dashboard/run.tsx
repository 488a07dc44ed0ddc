import { render } from 'ink'
import { App } from './App.js'

export type DashboardOptions = {
  urls: {
    control_url: string
    sandbox_control_url: string
    gateway_port: number
    rpc_url: string
    chain_manager_url: string
    facilitator_url: string
    chain_id: number
    network: string
    usdc: string
  }
  /** A session to show the seller's wallet, APIs and settlements (the CLI's saved login, Sandbox environment); undefined → those panels say how to sign up/log in (`svc signup --sandbox`). */
  session?: { jwt: string } | undefined
  /** Asked at every refresh for the current session (e.g. the CLI's saved login): a login made after start shows up. */
  getSession?: (() => { jwt: string } | undefined) | undefined
  /** Refresh period for live data. @defaultValue 1000 */
  refreshMs?: number
}

/** Switches a terminal to its alternate screen (as full-screen programs do) and back; nothing on other streams. */
function alternateScreen(stdout: NodeJS.WriteStream): () => void {
  if (!stdout.isTTY) return () => {}
  stdout.write('\u001b[?1049h\u001b[H')
  return () => void stdout.write('\u001b[?1049l')
}

/**
 * Renders the dashboard until the user quits (q / Ctrl-C); resolves then. SIGINT and SIGTERM end it too (with raw
 * input, Ctrl-C is a key, not a signal), so the caller can stop the sandbox after it either way.
 */
export async function runDashboard(options: DashboardOptions): Promise<void> {
  const restoreScreen = alternateScreen(process.stdout)
  const instance = render(<App {...options} />, { exitOnCtrlC: false, patchConsole: true })
  const quit = () => instance.unmount()
  process.once('SIGINT', quit)
  process.once('SIGTERM', quit)
  try {
    await instance.waitUntilExit()
  } finally {
    process.off('SIGINT', quit)
    process.off('SIGTERM', quit)
    instance.cleanup()
    restoreScreen()
  }
}
