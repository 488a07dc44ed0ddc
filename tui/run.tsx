import { render } from 'ink'
import { App } from './App.js'
import type { DashboardOptions } from './model.js'

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
