// What the svc GitHub Action's main and post steps share: the runner's protocol (inputs, file commands, workflow
// commands) and running svc. Plain Node ESM with no dependencies: the runner runs the action from a checkout of this
// repository, which has no node_modules. It runs on the runner's Node 24 and on Node 20 (the tests).
import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import { EOL } from 'node:os'
import { join } from 'node:path'

/**
 * An input of the step: the runner sets `INPUT_<NAME>` for each input, upper case, spaces as `_`, hyphens kept
 * (`working-directory` → `INPUT_WORKING-DIRECTORY`); an input with a default in action.yml is always set.
 */
export const input = (name) => (process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim()

/** What main saved with {@link saveState}: the runner gives it to the post step as `STATE_<name>`. */
export const state = (name) => process.env[`STATE_${name}`] ?? ''

/** `%`, CR and LF escaped as a workflow command's data (`::error::…`). */
const escapeData = (text) => String(text).replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A')

/** A workflow command on stdout: `::error::message`, `::add-mask::value`, `::group::title`. */
export const command = (name, message = '') => process.stdout.write(`::${name}::${escapeData(message)}${EOL}`)

/** The value is hidden (`***`) in every later line of the job's log. */
export const mask = (value) => {
  if (value) command('add-mask', value)
}

export const info = (line) => process.stdout.write(`${line}${EOL}`)

/**
 * Appends `name<<delimiter`, the value and the delimiter to the file the runner names in `GITHUB_<kind>` (OUTPUT,
 * ENV, STATE): the heredoc form, right for any value, a multi-line one included; the delimiter is random, and a value
 * holding it is refused (as @actions/core does), so no value can end the heredoc early and set another name.
 */
function fileCommand(kind, name, value) {
  const file = process.env[`GITHUB_${kind}`]
  if (!file) throw new Error(`GITHUB_${kind} is not set: this runs as a step of a GitHub Actions job`)
  const delimiter = `ghadelimiter_${randomUUID()}`
  const text = String(value)
  if (name.includes(delimiter) || text.includes(delimiter)) throw new Error(`${name}: its value holds the delimiter`)
  appendFileSync(file, `${name}<<${delimiter}${EOL}${text}${EOL}${delimiter}${EOL}`)
}

/** An output of the step (`steps.<id>.outputs.<name>`). Never a secret: outputs can be read by any later step. */
export const setOutput = (name, value) => fileCommand('OUTPUT', name, value)
/** A variable in the environment of the job's later steps (and of this action's post step). */
export const exportVariable = (name, value) => fileCommand('ENV', name, value)
/** A value for the post step, which runs in another process. */
export const saveState = (name, value) => fileCommand('STATE', name, value)

/** `--port 0 --twin "base sepolia"` → `['--port', '0', '--twin', 'base sepolia']`: words, quotes as a shell reads them. */
export function splitArgs(text) {
  const words = []
  for (const match of text.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g))
    words.push(match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : (match[2] ?? match[3]))
  return words
}

/**
 * The command that runs svc, as argv: the `svc` input (a command line, e.g. `node bin/svc.js`); else the project's
 * own svc, `node_modules/.bin/svc` in the working directory; else, with the `package` input (an npm package spec: a
 * tarball, a git URL), `npx --yes --package <spec> svc`. The project's svc runs under the `node` on PATH, not the
 * runner's own Node 24: the one actions/setup-node installed and `npm ci` built svc's native module (better-sqlite3)
 * for.
 */
export function svcCommand(cwd) {
  const given = input('svc')
  if (given) return splitArgs(given)
  const installed = join(cwd, 'node_modules', '.bin', 'svc')
  if (existsSync(installed)) return [installed]
  const spec = input('package')
  if (spec) return ['npx', '--yes', '--package', spec, 'svc']
  throw new Error(
    `svc is not installed in ${cwd} (no node_modules/.bin/svc): install it in the project (npm ci) before this step, or give the action's \`svc\` or \`package\` input`,
  )
}

/** Runs `svc <args>` in `cwd` to its end: its exit code, stdout and stderr. */
export function runSvc(svc, args, cwd) {
  const [file, ...first] = svc
  const result = spawnSync(file, [...first, ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  })
  if (result.error) return { status: 2, stdout: '', stderr: `could not run ${file}: ${result.error.message}` }
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr }
}

/**
 * A dotenv file as `svc status --dotenv` writes it (cli/sandbox-env.ts `dotenvLines`): `NAME=value`, or
 * `NAME="value"` with `\\` and `\"` escaped.
 */
export function parseDotenv(text) {
  const env = {}
  for (const match of text.matchAll(/^([A-Za-z_][A-Za-z0-9_]*)=(?:"((?:[^"\\]|\\.)*)"|(.*))$/gm))
    env[match[1]] = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : match[3]
  return env
}

/** The step fails with this message (an error annotation), exit code 1. */
export function fail(message) {
  command('error', message)
  process.exitCode = 1
}

/** svc's log in a collapsed group of the job's log (`::group::`), or why it cannot be read. */
export function printLog(log, why) {
  let text
  try {
    text = readFileSync(log, 'utf8')
  } catch (error) {
    return info(`svc's log ${log} cannot be read: ${error.message}`)
  }
  if (text === '') return info(`svc's log (${why}) is empty: ${log}`)
  command('group', `svc's log (${why}): ${log}`)
  process.stdout.write(text.endsWith('\n') ? text : `${text}${EOL}`)
  command('endgroup')
}
