/**
 * `npm run docs:screenshots`: the docs' pictures, taken from a running svc (by hand, not in CI: a PNG differs at every
 * run). It starts `svc up --ephemeral --port 0 --seed fixtures/demo-seed.yaml` on a terminal of a private tmux server,
 * pays the demo API once as the tour of docs/get-started.md does (so the dashboard has a settlement), then saves:
 * - the dashboard at 120×40, and again with the window resized to 80×24: `tmux capture-pane -e`, the ANSI turned into
 *   HTML by ansi_up, the element shot by Chromium (playwright-core);
 * - the paywall of `GET /weather/paris` at a phone's 390×844, after funding the demo wallet and paying with it, the
 *   whole page;
 * - the demo API's own page (`http://weather.dev.localhost:PORT/`) at 1280×800.
 * Addresses, ports, keys and times are what the run gives. Everything it started stops at the end, on failure and on
 * Ctrl-C too. Importing this file runs nothing: test/docs/images.test.ts reads {@link screenshotFiles}.
 */
import { execFile, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { root } from './blocks.js'

/** What the script writes, relative to the repository: exactly the PNGs of docs/images/. */
export const screenshotFiles = [
  'docs/images/dashboard-120x40.png',
  'docs/images/dashboard-80x24.png',
  'docs/images/paywall.png',
  'docs/images/api-page.png',
] as const

/** Device pixels per CSS pixel: 2 keeps the terminal's text sharp when the docs show the image narrower. */
const scale = 2
/** The terminal's default colours, for the page and for reverse video. */
const terminal = { background: [30, 30, 30], foreground: [212, 212, 212] } as const

const svcBin = join(root, 'bin/svc.js')
const rgb = ([r, g, b]: readonly number[]) => `${r},${g},${b}`
const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`

/**
 * ansi_up knows no reverse video (SGR 7), which the dashboard's key hints use: after each SGR sequence, while reverse
 * is on, this adds one that sets the colours swapped, and one that sets them back when it ends.
 */
export function applyReverseVideo(ansi: string): string {
  let fg: string | undefined
  let bg: string | undefined
  let reverse = false
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences start with ESC
  return ansi.replace(/\x1b\[([0-9;]*)m/g, (sequence, list: string) => {
    const was = reverse
    const params = list === '' ? [0] : list.split(';').map(Number)
    for (let i = 0; i < params.length; i++) {
      const p = params[i]!
      if (p === 0) [fg, bg, reverse] = [undefined, undefined, false]
      else if (p === 7) reverse = true
      else if (p === 27) reverse = false
      else if (p === 39) fg = undefined
      else if (p === 49) bg = undefined
      else if ((p >= 30 && p <= 37) || (p >= 90 && p <= 97)) fg = String(p)
      else if ((p >= 40 && p <= 47) || (p >= 100 && p <= 107)) bg = String(p - 10)
      else if (p === 38 || p === 48) {
        const length = params[i + 1] === 5 ? 2 : 4
        const color = params.slice(i + 1, i + 1 + length).join(';')
        if (p === 38) fg = `38;${color}`
        else bg = `38;${color}`
        i += length
      }
    }
    // Colours as foreground codes; `asBackground` turns one into its background code.
    const asBackground = (code: string) => (code.startsWith('38;') ? `48;${code.slice(3)}` : String(Number(code) + 10))
    if (reverse)
      return `${sequence}\x1b[${bg ?? `38;2;${terminal.background.join(';')}`};${asBackground(fg ?? `38;2;${terminal.foreground.join(';')}`)}m`
    if (was) return `${sequence}\x1b[${fg ?? '39'};${bg ? asBackground(bg) : '49'}m`
    return sequence
  })
}

/** The HTML page of one `capture-pane -p -e` of a `columns`×`rows` terminal. */
export async function terminalPage(ansi: string, columns: number, rows: number): Promise<string> {
  const { AnsiUp } = await import('ansi_up')
  const converter = new AnsiUp()
  converter.faintStyle = 'opacity:0.65'
  const lines = ansi.replace(/\n$/, '').split('\n')
  const html = converter.ansi_to_html(applyReverseVideo(lines.join('\n')))
  const lineHeight = 18
  return `<!doctype html><meta charset="utf-8"><style>
body { margin: 0; background: rgb(${rgb(terminal.background)}); }
#terminal { box-sizing: content-box; width: ${columns}ch; height: ${rows * lineHeight}px; padding: 10px 14px;
  overflow: hidden; white-space: pre; color: rgb(${rgb(terminal.foreground)}); background: rgb(${rgb(terminal.background)});
  font: 14px/${lineHeight}px 'DejaVu Sans Mono', 'Liberation Mono', monospace; }
</style><div id="terminal">${html}</div>`
}

/** Polls `check` every 200 ms until it returns something; fails after `timeoutMs` with `detail()` in the message. */
async function waitFor<T>(what: string, check: () => T | undefined, timeoutMs: number, detail = () => ''): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms${detail() ? `:\n${detail()}` : ''}`)
    await delay(200)
  }
}

async function main() {
  const started = performance.now()
  const step = (text: string) =>
    console.log(`${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s  ${text}`)
  if (spawnSync('tmux', ['-V']).status !== 0) throw new Error('docs:screenshots needs tmux (apt-get install -y tmux)')

  /** Undone in reverse order at the end, whatever happened. */
  const stops: { what: string; stop: () => unknown }[] = []
  let stopping: Promise<void> | undefined
  const stopAll = () =>
    (stopping ??= (async () => {
      for (const { what, stop } of stops.reverse()) {
        try {
          await stop()
        } catch (error) {
          console.error(`stopping ${what}: ${(error as Error).message}`)
        }
      }
    })())
  const onSignal = (signal: NodeJS.Signals) => {
    console.error(`${signal}: stopping what the script started`)
    void stopAll().then(() => process.exit(130))
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)

  try {
    const dir = mkdtempSync(join(tmpdir(), 'svc-screenshots-'))
    stops.push({ what: 'the temporary directory', stop: () => rmSync(dir, { recursive: true, force: true }) })

    // No SVC_* of the caller's and not CI (Ink draws nothing until exit under CI, and svc shows no dashboard).
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !/^SVC_|^CI$|^CONTINUOUS_INTEGRATION$/.test(name)),
    )
    const socket = `svc-screenshots-${process.pid}`
    const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', env })
    const session = 'dashboard'
    const screen = (colours = false) =>
      tmux('capture-pane', '-p', ...(colours ? ['-e'] : []), '-t', session).stdout ?? ''
    const running = () => tmux('has-session', '-t', session).status === 0

    const exitFile = join(dir, 'svc-up-exit-code')
    const command = [
      `SVC_CONFIG_DIR=${quote(join(dir, 'svc-up-config'))}`,
      quote(process.execPath),
      quote(svcBin),
      'up --ephemeral --port 0 --seed fixtures/demo-seed.yaml',
      `; echo $? > ${quote(exitFile)}`,
    ].join(' ')
    const opened = tmux('new-session', '-d', '-x', '120', '-y', '40', '-s', session, '-c', root, command)
    if (opened.status !== 0) throw new Error(`tmux new-session: ${opened.stderr.trim()}`)
    const socketPath = tmux('display-message', '-p', '#{socket_path}').stdout.trim()
    stops.push({
      what: 'svc up',
      stop: async () => {
        // q quits the dashboard and stops the sandbox (Anvil, the servers); the tmux server ends with its last session.
        if (running()) tmux('send-keys', '-t', session, 'q')
        const exited = await waitFor('exit', () => !running(), 30_000).catch(() => false)
        tmux('kill-server')
        if (socketPath) rmSync(socketPath, { force: true })
        const code = exited && existsSync(exitFile) ? readFileSync(exitFile, 'utf8').trim() : 'nothing (killed)'
        if (code !== '0') console.error(`svc up exited with ${code}`)
      },
    })
    step('svc up: starting in tmux at 120×40')

    const port = await waitFor(
      'no seeded dashboard',
      () => {
        const text = screen()
        const ready = /block #\d/.test(text) && text.includes('1,000 USDC') && text.includes('POST   /echo')
        return ready && !text.includes('loading…') ? /gateway port (\d+)/.exec(text)?.[1] : undefined
      },
      90_000,
      () => screen(),
    )
    step(`svc up: dashboard ready, port ${port}`)

    // The tour's terminal 2: log in as the demo seller, take its Sandbox wallet, pay once.
    const cliEnv: NodeJS.ProcessEnv = {
      ...env,
      SVC_CONFIG_DIR: join(dir, 'cli-config'),
      SVC_BASE_URL: `http://sandbox.localhost:${port}`,
    }
    const svc = async (...args: string[]) => {
      const { stdout } = await promisify(execFile)(process.execPath, [svcBin, ...args], { env: cliEnv, cwd: root })
      return stdout.trim()
    }
    await svc('login', '--sandbox', '--email', 'demo@svc.test', '--password', 'demo-password-402')
    await svc('sandbox-wallet', 'get', '--wait')
    cliEnv.SVC_EVM_PRIVATE_KEY = await svc('sandbox-wallet', 'get', '--key')
    const paid = await svc('pay', `http://weather.dev.localhost:${port}/weather/paris`)
    if (!paid.includes('HTTP 200')) throw new Error(`svc pay did not get the forecast:\n${paid}`)
    step('svc pay: GET /weather/paris paid')

    /** The screen once it shows the settlement and stays the same for a second. */
    const settled = async (size: string) => {
      let last = ''
      let since = Date.now()
      return waitFor(
        `the ${size} dashboard does not show the settlement, or keeps changing`,
        () => {
          const text = screen(true)
          if (text !== last) [last, since] = [text, Date.now()]
          const plain = screen()
          const shows =
            /revenue 0\.01 USDC/.test(plain) && /^ {2}\d\d:\d\d:\d\d {2}weather GET \/weather\/paris/m.test(plain)
          return shows && Date.now() - since >= 1000 ? text : undefined
        },
        30_000,
        () => screen(),
      )
    }
    const dashboards: { file: string; ansi: string; columns: number; rows: number }[] = []
    dashboards.push({ file: screenshotFiles[0], ansi: await settled('120×40'), columns: 120, rows: 40 })
    tmux('resize-window', '-t', session, '-x', '80', '-y', '24')
    dashboards.push({ file: screenshotFiles[1], ansi: await settled('80×24'), columns: 80, rows: 24 })
    step('dashboard: captured at 120×40 and 80×24')

    const { openBrowser, openPage, isSvcHost } = await import('../helpers/browser.js')
    const browser = await openBrowser()
    stops.push({ what: 'Chromium', stop: () => browser.close() })

    for (const { file, ansi, columns, rows } of dashboards) {
      const page = await browser.browser.newPage({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: scale })
      await page.setContent(await terminalPage(ansi, columns, rows))
      await page.locator('#terminal').screenshot({ path: join(root, file) })
      await page.close()
    }
    step('dashboard: PNGs written')

    // The paywall, as a visitor without a wallet meets it: fund the demo wallet, pay, see the answer.
    const paywall = await openPage(browser.browser, { viewport: { width: 390, height: 844 } })
    const navigation = await paywall.page.goto(`http://weather.dev.localhost:${port}/weather/paris`)
    if (navigation?.status() !== 402) throw new Error(`the paywall answered ${navigation?.status()}, not 402`)
    await paywall.page.getByTestId('demo-wallet-fund').click()
    await paywall.page
      .locator('#demo-balance')
      .filter({ hasText: /^10 USDC/ })
      .waitFor()
    await paywall.page.getByTestId('pay-demo-wallet').click()
    await paywall.page
      .getByTestId('transaction')
      .filter({ hasText: /^0x[0-9a-f]{64}$/ })
      .waitFor()
    await paywall.page.screenshot({ path: join(root, screenshotFiles[2]), fullPage: true })
    checkPage('the paywall', paywall)
    await paywall.close()
    step('paywall: paid with the demo wallet, PNG written')

    const apiPage = await openPage(browser.browser, { viewport: { width: 1280, height: 800 } })
    const answer = await apiPage.page.goto(`http://weather.dev.localhost:${port}/`)
    if (answer?.status() !== 200) throw new Error(`the API page answered ${answer?.status()}`)
    await apiPage.page.screenshot({ path: join(root, screenshotFiles[3]) })
    checkPage('the API page', apiPage)
    await apiPage.close()
    step('API page: PNG written')

    function checkPage(what: string, recorded: Awaited<ReturnType<typeof openPage>>) {
      const off = recorded.requestsOffHosts(isSvcHost)
      if (off.length) throw new Error(`${what} loaded from another host: ${off.map((r) => r.url).join(', ')}`)
      if (recorded.errors.length) throw new Error(`${what} had errors: ${recorded.errors.join('; ')}`)
    }
  } finally {
    await stopAll()
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
  for (const file of screenshotFiles) console.log(`${file}  ${Math.round(statSync(join(root, file)).size / 1024)} KB`)
  step('done')
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) await main()
