/**
 * A real Chromium for the browser tests: Debian's /usr/bin/chromium (`.ci/run` installs it) driven by playwright-core,
 * headless. `openBrowser()` returns the browser and its teardown; `openPage()` a page whose every request is recorded
 * (tests assert that all of them stay on svc's hosts; one that does not is aborted before it leaves) and whose console errors and uncaught exceptions are kept too.
 * `screenshots()` saves the page at a desktop and a phone width under test-artifacts/ (gitignored) and returns the
 * paths.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'

export const chromiumPath = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium'
/** Whether this machine has the browser: a browser test without it fails with this path in its message. */
export const hasChromium = existsSync(chromiumPath)

const repo = fileURLToPath(new URL('../..', import.meta.url))
export const artifactsDir = join(repo, 'test-artifacts')

export const viewports = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const

export type BrowserHandle = { browser: Browser; close: () => Promise<void> }

export async function openBrowser(): Promise<BrowserHandle> {
  if (!hasChromium) throw new Error(`no Chromium at ${chromiumPath}: apt-get install -y chromium (or set SVC_CHROMIUM)`)
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    // As root (CI here) Chromium refuses to start with its sandbox.
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  })
  return { browser, close: () => browser.close() }
}

export type RecordedRequest = { url: string; method: string; resourceType: string }

export type RecordedPage = {
  page: Page
  context: BrowserContext
  /** Every request the page made, in order (documents, scripts, fetches, images …). */
  requests: RecordedRequest[]
  /** Console errors (but Chromium's note of each 402) and uncaught exceptions on the page. */
  errors: string[]
  /** Requests whose host is not one of `hosts` (host names without the port). */
  requestsOffHosts(hosts: (host: string) => boolean): RecordedRequest[]
  close: () => Promise<void>
}

export type PageOptions = {
  viewport?: { width: number; height: number }
  /** Runs in the page before its own scripts (an injected wallet, for instance). */
  initScript?: { content: string } | { path: string }
}

export async function openPage(browser: Browser, options: PageOptions = {}): Promise<RecordedPage> {
  const context = await browser.newContext({ viewport: options.viewport ?? viewports.desktop })
  if (options.initScript) await context.addInitScript(options.initScript)
  // A request off svc's hosts is recorded and then aborted, so a test that finds one never sent it off the machine.
  await context.route('**/*', (route) =>
    isSvcHost(new URL(route.request().url()).hostname) ? route.continue() : route.abort('blockedbyclient'),
  )
  const page = await context.newPage()
  const requests: RecordedRequest[] = []
  const errors: string[] = []
  context.on('request', (request) =>
    requests.push({ url: request.url(), method: request.method(), resourceType: request.resourceType() }),
  )
  page.on('console', (message) => {
    // Chromium logs every 402 as a failed load: on a paywall that is the protocol, not an error.
    if (message.type() === 'error' && !message.text().includes('status of 402')) errors.push(message.text())
  })
  page.on('pageerror', (error) => errors.push(`${error.name}: ${error.message}`))
  return {
    page,
    context,
    requests,
    errors,
    requestsOffHosts: (isOwnHost) =>
      requests.filter((request) => {
        const url = new URL(request.url)
        // data: and blob: URLs are the page's own bytes, not network requests.
        if (url.protocol === 'data:' || url.protocol === 'blob:') return false
        return !isOwnHost(url.hostname)
      }),
    close: () => context.close(),
  }
}

/**
 * Saves full-page screenshots of `page` at the desktop and phone widths as test-artifacts/<name>-desktop.png and
 * <name>-phone.png; leaves the page at the desktop width.
 */
export async function screenshots(page: Page, name: string): Promise<{ desktop: string; phone: string }> {
  mkdirSync(artifactsDir, { recursive: true })
  const paths = { desktop: join(artifactsDir, `${name}-desktop.png`), phone: join(artifactsDir, `${name}-phone.png`) }
  await page.setViewportSize(viewports.phone)
  await page.screenshot({ path: paths.phone, fullPage: true })
  await page.setViewportSize(viewports.desktop)
  await page.screenshot({ path: paths.desktop, fullPage: true })
  return paths
}

/** svc's own host names: `localhost` and anything under it (the gateway's `{slug}.dev.localhost`, the control planes). */
export const isSvcHost = (host: string) => host === 'localhost' || host.endsWith('.localhost') || host === '127.0.0.1'
