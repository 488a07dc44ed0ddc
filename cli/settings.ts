import { createSvcClient, type SvcClient, type SvcClientOptions } from '../sdk/client.js'
import { defaultHosts, defaultPort, keyEnvironment, type Environment } from '../core/hosts.js'
import { UsageError } from '../core/errors.js'
import { readSession, type SavedSession } from './config.js'
import { readRunning } from './running-svc.js'
import { targetFetch, type Refusal } from './session-target.js'

/** The options every command takes (declared on the program). */
export type GlobalOptions = {
  json?: boolean
  sandbox?: boolean
  baseUrl?: string
  apiKey?: string
  jwt?: string
}

const kitHosts = defaultHosts(defaultPort)
const controlHosts: Record<Environment, string> = {
  production: kitHosts.controlHost,
  development: kitHosts.sandboxControlHost,
}
const kitHostnames = new Set([kitHosts.controlHost, kitHosts.sandboxControlHost, 'localhost', '127.0.0.1'])

/** Where and as whom the CLI talks to the control plane. Precedence: flags, then environment variables, then the saved session. */
export type Settings = {
  baseUrl: string
  /** `X-Svc-Environment` of JWT requests. */
  environment: Environment
  jwt: string | undefined
  apiKey: string | undefined
  session: SavedSession | undefined
  /** Where the JWT comes from: `--jwt`, `SVC_JWT` or the saved login (sent only to the svc it was made on). */
  jwtFrom?: '--jwt' | 'SVC_JWT' | 'the saved login' | undefined
  /** Where the API key comes from. */
  apiKeyFrom?: '--api-key' | 'SVC_API_KEY' | undefined
}

/** The environment asked for explicitly: `--sandbox`, then `SVC_ENVIRONMENT`, then `SVC_SANDBOX=1|true`. */
export function askedEnvironment(flags: GlobalOptions, env: NodeJS.ProcessEnv): Environment | undefined {
  if (flags.sandbox) return 'development'
  const value = env.SVC_ENVIRONMENT?.trim().toLowerCase()
  if (value === 'development' || value === 'production') return value
  if (value) throw new UsageError(`SVC_ENVIRONMENT must be "production" or "development", got "${env.SVC_ENVIRONMENT}"`)
  const sandbox = env.SVC_SANDBOX?.trim().toLowerCase()
  return sandbox === '1' || sandbox === 'true' ? 'development' : undefined
}

/**
 * The control-plane URL of an environment: `http://api.localhost:4020` or `http://sandbox.localhost:4020`. When the
 * saved session points at the kit on another port, that port is kept; a saved URL elsewhere is kept as it is.
 */
export function controlUrlFor(environment: Environment, saved?: string): string {
  const host = controlHosts[environment]
  if (!saved) return `http://${host}:${defaultPort}`
  const url = new URL(saved)
  if (!kitHostnames.has(url.hostname)) return saved
  return `${url.protocol}//${host}:${url.port || defaultPort}`
}

/** True for a URL of svc's own hosts (`api.localhost`, `sandbox.localhost`, `localhost`, `127.0.0.1`). */
function isKitUrl(url: string): boolean {
  return URL.canParse(url) && kitHostnames.has(new URL(url).hostname)
}

/** `development` for a `sandbox.` host ({sandbox_base_url}), `production` for an `api.` host. */
function hostEnvironment(baseUrl: string): Environment | undefined {
  if (!URL.canParse(baseUrl)) return undefined
  const first = new URL(baseUrl).hostname.split('.')[0]
  return first === 'sandbox' ? 'development' : first === 'api' ? 'production' : undefined
}

function checkUrl(value: string, name: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new UsageError(`${name} is not a URL: "${value}"`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${name} must be an http(s) URL: "${value}"`)
  return value.replace(/\/+$/, '')
}

export function resolveSettings(flags: GlobalOptions, env: NodeJS.ProcessEnv): Settings {
  const session = readSession(env)
  const apiKey = flags.apiKey || env.SVC_API_KEY || undefined
  const jwt = flags.jwt || env.SVC_JWT || session?.jwt || undefined
  const jwtFrom = flags.jwt ? '--jwt' : env.SVC_JWT ? 'SVC_JWT' : jwt ? 'the saved login' : undefined
  const apiKeyFrom = flags.apiKey ? '--api-key' : apiKey ? 'SVC_API_KEY' : undefined
  const asked = askedEnvironment(flags, env)
  const wanted = (apiKey && keyEnvironment(apiKey)) || asked
  // No target given: the svc `svc up` is running (it records where), unless the session is for an svc elsewhere.
  const running =
    flags.baseUrl || env.SVC_BASE_URL || (session && !isKitUrl(session.base_url)) ? undefined : readRunning(env)
  const saved = running?.control_url ?? session?.base_url
  const baseUrl = flags.baseUrl
    ? checkUrl(flags.baseUrl, '--base-url')
    : env.SVC_BASE_URL
      ? checkUrl(env.SVC_BASE_URL, 'SVC_BASE_URL')
      : wanted
        ? controlUrlFor(wanted, saved)
        : running
          ? controlUrlFor(session?.environment ?? hostEnvironment(session?.base_url ?? '') ?? 'production', saved)
          : (session?.base_url ?? controlUrlFor('production'))
  const environment = asked ?? hostEnvironment(baseUrl) ?? session?.environment ?? 'production'
  return { baseUrl, environment, jwt, apiKey, session, jwtFrom, apiKeyFrom }
}

/**
 * A control-plane client with the credential a command needs:
 * - `public`: none;
 * - `any`: the API key if there is one, else the JWT;
 * - `jwt`: the JWT (key management); `sandbox`: the JWT in the development environment (wallet and chain helpers).
 * A missing credential is a usage error (exit code 2). The saved login goes only to the svc it was made on
 * (cli/session-target.ts); `onRefused` hears of a 401: which URL refused which credential.
 */
export function clientFor(
  settings: Settings,
  need: 'public' | 'any' | 'jwt' | 'sandbox',
  what = 'this command',
  onRefused?: (refusal: Refusal) => void,
): SvcClient {
  const { baseUrl, jwt, apiKey, environment } = settings
  const client = (credential: string | undefined, options: Omit<SvcClientOptions, 'baseUrl' | 'fetch'> = {}) =>
    createSvcClient({
      baseUrl,
      ...options,
      fetch: targetFetch(settings, credential, onRefused),
    })
  if (need === 'public') return client(undefined)
  if (need === 'any') {
    if (apiKey) return client(settings.apiKeyFrom, { apiKey })
    if (jwt) return client(settings.jwtFrom, { jwt, environment })
    throw new UsageError('not logged in: run `svc login` (or `svc signup`), or set SVC_API_KEY or SVC_JWT')
  }
  if (!jwt)
    throw new UsageError(`${what} needs a JWT: run \`svc login\` or set SVC_JWT (API keys are not accepted here)`)
  return client(settings.jwtFrom, { jwt, environment: need === 'sandbox' ? 'development' : environment })
}

/** The environment requests of `clientFor(settings, 'any')` run in. */
export function requestEnvironment(settings: Settings): Environment {
  return (settings.apiKey && keyEnvironment(settings.apiKey)) || settings.environment
}
