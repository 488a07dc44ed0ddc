import { createSvcClient, type SvcClient } from '../sdk/client.js'
import type { Environment } from '../core/hosts.js'
import { requestEnvironment, type Settings } from './settings.js'

/** How a person names an environment. */
export const environmentName = (environment: Environment) =>
  environment === 'development' ? 'the Sandbox' : 'production'

export type EmptyListOptions = {
  /** What the list holds, one and many: `['API', 'APIs']`. */
  what: readonly [one: string, many: string]
  /** The command that lists them, for the hint (`svc apis list`). */
  command: string
  /** How many the seller has in the client's environment: a number, or a text such as `200+` for a first page. */
  count(client: SvcClient): Promise<number | string>
  /** What makes one in the Sandbox, said when neither environment has any. @defaultValue nothing */
  create?: string | undefined
}

/**
 * What a list command says when it finds nothing: the environment it looked in, and where the seller's things are when
 * they are in the other one (a login without `--sandbox` lands in production while `svc up --seed` made Sandbox APIs).
 * A JWT can ask the other environment; an API key cannot (it is bound to its own), so it gets the general hint.
 */
export async function emptyListMessage(
  settings: Settings,
  { what, command, count, create }: EmptyListOptions,
): Promise<string> {
  const here = requestEnvironment(settings)
  const other: Environment = here === 'production' ? 'development' : 'production'
  const none = `no ${what[1]} in ${environmentName(here)}`
  const some = (n: number | string) => `${n} ${n === 1 ? what[0] : what[1]}`
  if (settings.apiKey)
    return here === 'production' ? `${none}; the Sandbox's need a svc_sandbox_ key or \`svc login --sandbox\`` : none
  const found = await countIn(settings, other, count)
  if (found === undefined) return none
  if (found === 0)
    return here === 'production' ? `${none} nor in the Sandbox${create ? `: \`${create}\` makes one` : ''}` : none
  return other === 'development'
    ? `${none}; the Sandbox has ${some(found)}: \`${command} --sandbox\`, or \`svc login --sandbox\` to work there by default`
    : `${none}; production has ${some(found)}: \`SVC_ENVIRONMENT=production ${command}\``
}

/** What `count` finds in `environment` with the JWT (a JWT may ask either environment on either host); undefined if it fails. */
async function countIn(
  settings: Settings,
  environment: Environment,
  count: EmptyListOptions['count'],
): Promise<number | string | undefined> {
  if (!settings.jwt) return undefined
  try {
    return await count(createSvcClient({ baseUrl: settings.baseUrl, jwt: settings.jwt, environment }))
  } catch {
    return undefined
  }
}
