import type { Command } from 'commander'
import { UsageError } from '../../core/errors.js'
import { action, addCommand, type CliContext } from '../context.js'

type DashboardFlags = { url?: string }

/**
 * `svc dashboard --url URL`: `svc up`'s dashboard, watching an svc that runs elsewhere (a team's `svc serve`) as the
 * logged-in seller: its wallet, APIs, settlements, refusals and its own APIs' faults. The session is the CLI's (the
 * saved login, `--jwt` or `SVC_JWT`), as other commands take it.
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
        const { runDashboard } = await import('../../tui/run.js')
        await runDashboard({ urls, session: { jwt: settings.jwt }, remote: true })
      }),
    )
}
