import type { Command } from 'commander'
import type { Session } from '../../sdk/types.js'
import { SvcApiError, SvcError, UsageError } from '../../core/errors.js'
import { configPath, removeSession, writeSession } from '../config.js'
import { action, addCommand, type Call, type CliContext } from '../context.js'
import { environmentName } from '../elsewhere.js'
import { promptSecret, readStdinLine } from '../prompt.js'
import { refusedMessage } from '../session-target.js'
import { createSvcClient } from '../../sdk/client.js'
import { adminFetch, adminTokenOf, asAdmin, withAdminToken, type AdminTokenFlags } from '../admin-token.js'

type Credentials = { email?: string; password?: string; passwordStdin?: boolean }

async function passwordOf(call: Call<Credentials>): Promise<string> {
  const { password, passwordStdin } = call.options
  if (password !== undefined && passwordStdin) throw new UsageError('give --password or --password-stdin, not both')
  if (password !== undefined) return password
  if (passwordStdin) return readStdinLine(call.io)
  return promptSecret(call.io, 'Password: ', 'a password is needed: --password PASSWORD or --password-stdin')
}

/**
 * POST /auth/login. The control plane answers rejected credentials with the spec's `401 unauthorized`; the CLI adds
 * what that means here, without telling whether the email or the password was wrong.
 */
async function logIn(call: Call<Credentials>, email: string, password: string): Promise<Session> {
  try {
    return await call.client('public').auth.login(email, password)
  } catch (error) {
    if (error instanceof SvcApiError && error.status === 401)
      throw new SvcError(
        refusedMessage(`${error.message}: the email or password is wrong`, {
          url: call.settings().baseUrl,
          credential: undefined,
        }),
        { status: 401, cause: error },
      )
    throw error
  }
}

/** Signs up or logs in, then saves the session (JWT, email, base URL) to the config file. */
async function startSession(call: Call<Credentials>, kind: 'signup' | 'login') {
  const email = call.options.email!
  const password = await passwordOf(call)
  const settings = call.settings()
  // Which svc this is, saved with the session: the CLI sends it to no other (cli/session-target.ts).
  const platform = call
    .client('public')
    .config.platform()
    .catch(() => undefined)
  const session: Session =
    kind === 'signup' ? await call.client('public').auth.signup(email, password) : await logIn(call, email, password)
  const instanceId = (await platform)?.instance_id
  const path = writeSession(call.env, {
    jwt: session.token,
    email: session.user.email,
    base_url: settings.baseUrl,
    environment: settings.environment,
    ...(instanceId ? { instance_id: instanceId } : {}),
  })
  if (call.out.isJson) return call.out.json(session)
  call.out.line(
    `${kind === 'signup' ? 'signed up' : 'logged in'} as ${session.user.email} at ${settings.baseUrl} (${environmentName(settings.environment)}); session saved to ${path}`,
  )
  // Production is the default (the spec's sandbox flag opts in), but what `svc up` serves and seeds is the Sandbox.
  if (settings.environment === 'production')
    call.out.line(
      `commands now act on production; for the Sandbox (test payments on the local chain): \`svc login --sandbox\` or --sandbox per command`,
    )
  if (!session.user.email_verified)
    call.out.line(`verify your email before any change: \`svc outbox\` shows the mail, then \`svc verify-email TOKEN\``)
}

/** signup, login, logout, verify-email, outbox, whoami. */
export function registerAuth(program: Command, ctx: CliContext) {
  for (const kind of ['signup', 'login'] as const) {
    addCommand(
      program,
      kind,
      kind === 'signup' ? 'create an account and save its session' : 'log in and save the session',
    )
      .requiredOption('--email <email>', 'the account email')
      .option('--password <password>', 'the password (or --password-stdin, or a prompt)')
      .option('--password-stdin', 'read the password from stdin')
      .action(action<Credentials>(ctx, (call) => startSession(call, kind)))
  }

  addCommand(program, 'logout', 'remove the saved session').action(
    action(ctx, async (call) => {
      const path = configPath(call.env)
      const removed = removeSession(call.env)
      if (call.out.isJson) return call.out.json({ logged_out: removed, config_path: path })
      call.out.line(removed ? `logged out (removed ${path})` : 'not logged in')
    }),
  )

  addCommand(program, 'verify-email', 'verify the account email with the token of the verification mail')
    .argument('<token>', 'the token from the mail (see `svc outbox`)')
    .action(
      action(ctx, async (call, token) => {
        const result = await call.client('public').auth.verifyEmail(token!)
        if (call.out.isJson) return call.out.json(result)
        call.out.line(`verified ${result.user.email}`)
      }),
    )

  withAdminToken(addCommand(program, 'outbox', "the local outbox: mails svc 'sent' (verification tokens)"))
    .option('--email <email>', 'only mails to this address (default: the logged-in account)')
    .option('--all', 'mails to every address')
    .action(
      action<AdminTokenFlags & { email?: string; all?: boolean }>(ctx, async (call) => {
        const email = call.options.all ? undefined : (call.options.email ?? call.settings().session?.email)
        // On a server (`svc serve`) the outbox is its admin's: the admin token is presented when given.
        const outbox = createSvcClient({ baseUrl: call.settings().baseUrl, fetch: adminFetch(adminTokenOf(call)) })
        const { messages } = await asAdmin(call, () => outbox.auth.outbox(email))
        if (call.out.isJson) return call.out.json({ messages })
        call.out.table(
          ['ID', 'TO', 'SUBJECT', 'TOKEN', 'CREATED'],
          messages.map((m) => [m.id, m.to, m.subject, m.token, m.created_at]),
          email ? `no mails to ${email}` : 'no mails',
        )
      }),
    )

  addCommand(program, 'whoami', 'the account, environment and scopes of the current credential').action(
    action(ctx, async (call) => {
      const me = await call.client('any').auth.me()
      if (call.out.isJson) return call.out.json(me)
      call.out.fields([
        ['email', `${me.user.email}${me.user.email_verified ? '' : ' (not verified)'}`],
        ['environment', me.environment],
        ['credential', me.via === 'jwt' ? 'JWT' : 'API key'],
        ['scopes', me.scopes ? me.scopes.join(', ') : 'all (JWT)'],
        ['base url', call.settings().baseUrl],
      ])
    }),
  )
}
