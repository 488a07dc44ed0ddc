import { createSvcClient } from '../sdk/client.js'
import type { Environment } from '../core/hosts.js'
import { requestEnvironment, type Settings } from './settings.js'

/** How a person names an environment. */
export const environmentName = (environment: Environment) =>
  environment === 'development' ? 'the Sandbox' : 'production'

/**
 * What `svc apis list` says when it finds no APIs: the environment it looked in, and where the seller's APIs are
 * when they are in the other one (a login without `--sandbox` lands in production while `svc up --seed` made Sandbox
 * APIs). A JWT can ask the other environment; an API key cannot (it is bound to its own), so it gets the general hint.
 */
export async function noApisMessage(settings: Settings): Promise<string> {
  const here = requestEnvironment(settings)
  const other: Environment = here === 'production' ? 'development' : 'production'
  const none = `no APIs in ${environmentName(here)}`
  if (settings.apiKey)
    return here === 'production' ? `${none}; Sandbox APIs need a svc_sandbox_ key or \`svc login --sandbox\`` : none
  const count = await countApis(settings, other)
  if (count === undefined) return none
  if (count === 0)
    return here === 'production' ? `${none} nor in the Sandbox: \`svc apis create --sandbox …\` makes one` : none
  const apis = `${count} API${count === 1 ? '' : 's'}`
  return other === 'development'
    ? `${none}; the Sandbox has ${apis}: \`svc apis list --sandbox\`, or \`svc login --sandbox\` to work there by default`
    : `${none}; production has ${apis}: \`SVC_ENVIRONMENT=production svc apis list\``
}

/** The seller's APIs in `environment` (a JWT may ask either environment on either host), or undefined if that fails. */
async function countApis(settings: Settings, environment: Environment): Promise<number | undefined> {
  if (!settings.jwt) return undefined
  try {
    const client = createSvcClient({ baseUrl: settings.baseUrl, jwt: settings.jwt, environment })
    return (await client.apis.list()).length
  } catch {
    return undefined
  }
}
