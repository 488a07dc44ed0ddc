import { SvcApiError, SvcError } from '../core/errors.js'
import { createSvcClient } from '../sdk/client.js'
import { localFetch } from '../sdk/local-fetch.js'
import type { SavedSession } from './config.js'

/** Which URL refused which credential (a 401), for the message the CLI prints. */
export type Refusal = { url: string; credential: string | undefined }

/** What the CLI is about to talk to, and with what: the parts of its settings the check reads. */
type Target = { baseUrl: string; session: SavedSession | undefined }

/** svc's own host names: `api.localhost:P`, `sandbox.localhost:P`, `localhost:P` and `127.0.0.1:P` are one svc. */
const kitHostnames = new Set(['api.localhost', 'sandbox.localhost', 'localhost', '127.0.0.1'])

/** A URL's svc: its origin, the port alone for svc's own host names. */
function svcOf(url: string): string {
  const parsed = new URL(url)
  return kitHostnames.has(parsed.hostname) ? `${parsed.protocol}//localhost:${parsed.port}` : parsed.origin
}

/** Which svc answers at `baseUrl` (`instance_id` of GET /config/platform); undefined when it does not say. */
async function instanceIdAt(baseUrl: string): Promise<string | undefined> {
  try {
    const { instance_id } = await createSvcClient({ baseUrl }).config.platform()
    return typeof instance_id === 'string' ? instance_id : undefined
  } catch (error) {
    // Nothing answers there: nothing would be sent either, and the command says so as it always did.
    if (error instanceof SvcApiError && error.status === 0) throw error
    return undefined
  }
}

const checked = new WeakMap<Target, Promise<void>>()

/**
 * Resolves when the saved login may go to `target.baseUrl`: the svc there is the one the login was made on (the same
 * `instance_id`, whatever its port or host name now; a login saved before svc named itself: the same svc by URL).
 * Otherwise one line, exit code 1, naming both; nothing was sent. Asked once per command.
 */
export function checkSessionTarget(target: Target): Promise<void> {
  let check = checked.get(target)
  if (!check) {
    check = check_(target)
    checked.set(target, check)
  }
  return check
}

async function check_({ baseUrl, session }: Target): Promise<void> {
  if (!session) return
  const id = await instanceIdAt(baseUrl)
  const same = session.instance_id ? id === session.instance_id : svcOf(session.base_url) === svcOf(baseUrl)
  if (same) return
  const name = (url: string, instance: string | undefined) => (instance ? `${url} (sandbox ${instance})` : url)
  throw new SvcError(
    `the saved login is for ${name(session.base_url, session.instance_id)}, not ${name(baseUrl, id)}: log in there (\`svc login\`), or pass --base-url ${session.base_url}`,
    { status: 401, code: 'other_sandbox' },
  )
}

/**
 * The fetch of a CLI client: with the saved login, it asks first whether the svc is the login's
 * ({@link checkSessionTarget}); a 401 is told to `onRefused` with the URL asked and the credential's name.
 */
export function targetFetch(
  target: Target,
  credential: string | undefined,
  onRefused: ((refusal: Refusal) => void) | undefined,
): typeof globalThis.fetch {
  const sendsSession = credential === 'the saved login'
  return async (input, init) => {
    if (sendsSession) await checkSessionTarget(target)
    const response = await localFetch(input, init)
    if (response.status === 401) onRefused?.({ url: target.baseUrl, credential })
    return response
  }
}

/** A 401's message with the URL that refused it: `http://sandbox.localhost:4021 refused SVC_JWT: invalid token`. */
export function refusedMessage(message: string, { url, credential }: Refusal): string {
  return credential ? `${url} refused ${credential}: ${message}` : `${message} (asked ${url})`
}
