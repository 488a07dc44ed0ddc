// The svc GitHub Action's main step: `svc up --detach` with the step's inputs, then the sandbox's URLs and chain as the
// step's outputs and its whole environment list (`svc status --dotenv`) in the job's environment, its secrets masked.
// What the post step needs (the name, the svc command, the log) goes to GITHUB_STATE: post runs in another process.
import { resolve } from 'node:path'
import {
  exportVariable,
  fail,
  info,
  input,
  mask,
  parseDotenv,
  printLog,
  runSvc,
  saveState,
  setOutput,
  splitArgs,
  svcCommand,
} from './lib.js'

/** The variables whose values are secrets: masked in the job's log, never outputs. */
const secret = (name) => /PRIVATE_KEY|PASSWORD|JWT|API_KEY|^SVC_KEY_/.test(name)

/** The step's outputs: the ready line's and the environment's values that are not secret. */
const outputs = (ready, env) => ({
  name: ready.name,
  pid: ready.pid,
  log: ready.log,
  'data-dir': ready.data_dir,
  'control-url': ready.control_url,
  'sandbox-control-url': ready.sandbox_control_url,
  'gateway-port': ready.gateway_port,
  'gateway-url-template': env.SVC_GATEWAY_URL_TEMPLATE,
  'resource-server-url': env.RESOURCE_SERVER_URL,
  'rpc-url': ready.rpc_url,
  'facilitator-url': ready.facilitator_url,
  'chain-manager-url': ready.chain_manager_url,
  'chain-id': ready.chain_id,
  network: ready.network,
  usdc: ready.usdc,
  'buyer-address': ready.buyer?.address,
})

function main() {
  const cwd = resolve(input('working-directory') || '.')
  const name = input('name') || 'default'
  const svc = svcCommand(cwd)
  // Saved before svc starts: a main step cut short still leaves post what it needs to stop svc.
  saveState('name', name)
  saveState('svc', JSON.stringify(svc))
  saveState('cwd', cwd)

  const seed = input('seed')
  const args = ['up', '--detach', '--ephemeral', '--name', name, '--port', input('port') || '4020']
  if (seed) args.push('--seed', seed)
  args.push(...splitArgs(input('args')))
  info(`svc ${args.join(' ')}`)
  const up = runSvc(svc, args, cwd)
  if (up.status !== 0) {
    const reason = up.stderr.trim().split('\n').at(-1) ?? ''
    const log = /\(log: (.+)\)$/.exec(reason)?.[1]
    if (log) printLog(log, 'svc did not start')
    else if (up.stderr.trim()) info(up.stderr.trim())
    return fail(`svc did not start (exit ${up.status}): ${reason.replace(/^svc: /, '') || 'no reason given'}`)
  }
  // The ready line holds the seed's password, JWT and keys and the buyer's key: read, never printed.
  const ready = JSON.parse(up.stdout.trim().split('\n').at(-1))
  saveState('log', ready.log)
  saveState('pid', ready.pid)

  const status = runSvc(svc, ['status', '--name', name, '--dotenv'], cwd)
  if (status.status !== 0) return fail(`svc status --dotenv failed: ${status.stderr.trim()}`)
  const env = parseDotenv(status.stdout)
  for (const value of new Set(Object.entries(env).flatMap(([key, value]) => (secret(key) ? [value] : [])))) mask(value)
  for (const [key, value] of Object.entries(env)) exportVariable(key, value)
  for (const [key, value] of Object.entries(outputs(ready, env))) if (value !== undefined) setOutput(key, value)

  info(
    `svc "${name}" runs (pid ${ready.pid}): ${ready.sandbox_control_url}, chain ${ready.network} at ${ready.rpc_url}`,
  )
  info(`the job's environment: ${Object.keys(env).join(', ')}`)
  info(`its log: ${ready.log} (printed by this action's post step when the job fails)`)
}

try {
  main()
} catch (error) {
  fail(error instanceof Error ? error.message : String(error))
}
