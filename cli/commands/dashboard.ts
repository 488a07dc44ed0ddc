import type { Command } from 'commander'
import { SvcApiError, SvcError, UsageError } from '../../core/errors.js'
import { createSvcClient } from '../../sdk/client.js'
import type { DashboardOptions } from '../../tui/model.js'
import { action, addCommand, type CliContext } from '../context.js'
import type { SavedSession } from '../config.js'
import { checkSessionTarget } from '../session-target.js'

type DashboardFlags = { url?: string }

/**
 * `svc dashboard --url URL`: `svc up`'s dashboard, watching an svc that runs elsewhere (a team's `svc serve`) as the
 * logged-in seller: its wallet, APIs, settlements, refusals and its own APIs' faults. The session is the CLI's (the
 * saved login, `--jwt` or `SVC_JWT`), as other commands take it, once {@link checkDashboardLogin} found it the watched
 * svc's.
 */
export function registerDashboard(program: Command, ctx: CliContext) {
  addCommand(program, 'dashboard', "watch a running svc's Sandbox as the logged-in seller (q quits)")
    .option(
      '--url <url>',
      'the svc to watch, e.g. https://sandbox.pay.example.com (default: --base-url, SVC_BASE_URL or the login)',
    )
    .action(
      action<DashboardFlags>(ctx, async (call) => {
        const settings = call.settings()
        const url = call.options.url ?? settings.baseUrl
        if (!URL.canParse(url)) throw new UsageError(`--url is not a URL: "${url}"`)
        if (!settings.jwt)
          throw new UsageError('svc dashboard shows a seller: log in first (`svc login --sandbox`), or set SVC_JWT')
        if (!call.io.stdout.isTTY) throw new UsageError('svc dashboard needs a terminal (stdout is not one)')
        const { remoteDashboardUrls } = await import('../../tui/remote-urls.js')
        const urls = await remoteDashboardUrls(url)
        // A saved login that names its svc goes only there, whatever the URL (another svc on its port is refused too).
        if (settings.jwtFrom === 'the saved login' && settings.session?.instance_id)
          await checkSessionTarget({ baseUrl: urls.sandbox_control_url, session: settings.session })
        await checkDashboardLogin(settings.jwt, settings.session, url, urls)
        const { runDashboard } = await import('../../tui/run.js')
        await runDashboard({ urls, session: { jwt: settings.jwt }, remote: true })
      }),
    )
}

/**
 * Checks that `jwt` is a seller's session of the svc at `url` (its control planes `urls`): the saved login (`session`)
 * only when it was made on that svc (else a usage error says where it was made), and only a session that svc accepts
 * (an expired one, or another svc's given with --jwt or SVC_JWT, is an error).
 */
export async function checkDashboardLogin(
  jwt: string,
  session: SavedSession | undefined,
  url: string,
  urls: Pick<DashboardOptions['urls'], 'control_url' | 'sandbox_control_url'>,
): Promise<void> {
  const logIn = `log in to it (\`svc login --sandbox --base-url ${url}\`), or set SVC_JWT`
  const origins = new Set([url, urls.control_url, urls.sandbox_control_url].map((each) => new URL(each).origin))
  if (session?.jwt === jwt && !origins.has(new URL(session.base_url).origin))
    throw new UsageError(`the saved login is for ${session.base_url}, not ${url}: ${logIn}`)
  const client = createSvcClient({ baseUrl: urls.sandbox_control_url, jwt, environment: 'development' })
  await client.auth.me().catch((error: unknown) => {
    if (error instanceof SvcApiError && error.status === 401)
      throw new SvcError(`${url} does not accept this login (expired, or another svc's): ${logIn}`, {
        status: 401,
        cause: error,
      })
    throw error
  })
}
