/**
 * The configuration reference, `docs/reference/config.md`: one table of every SVC_* variable svc reads and every
 * flag of the commands that start svc (`svc up`, `svc exec`, `svc serve`) and the global options, with its default;
 * then the variables svc sets for your commands. Sources: the commander tree (test/docs/cli-tree.ts; an option's
 * variables are the SVC_* names its help text gives), cli/env-inputs.ts (variables read outside an option) and
 * `sandboxEnvNames` (cli/sandbox-env.ts). Variables only svc's own tests read (`testEnvInputs`) are left out.
 *
 * Row ids: a variable's is its name lowercased, `_` → `-` (`#svc-port`); a flag without a variable's is
 * `flag-<long flag>` (`#flag-ephemeral`).
 */
import { envInputs } from '../../../cli/env-inputs.js'
import { sandboxEnvNames } from '../../../cli/sandbox-env.js'
import { allCommands, anchorOf, type CliOption, cell, cliTree, code, sentence } from '../cli-tree.js'

/** The commands whose flags configure svc itself; every other command's flags are its own input (see its page). */
const starting = ['up', 'exec', 'serve']

/** What a row says instead of its option's help text, where that is too short for the question a reader comes with. */
const what: Record<string, string> = {
  SVC_FACILITATOR_URL:
    'The x402 facilitator (its `/verify` and `/settle`) that the gateway sends the payments of **production** APIs ' +
    '(`svc_live_` keys, `{slug}.localhost`, real networks such as Base) to. Without it their paid routes answer 503 ' +
    '`production APIs need an x402 facilitator: set SVC_FACILITATOR_URL (or --facilitator-url) and restart svc`. ' +
    "Sandbox (development) APIs never use it: they pay through svc's own facilitator on the local chain, whose URL " +
    "is the ready line's `facilitator_url` and, in your commands' environment, " +
    '[`SVC_SANDBOX_FACILITATOR_URL`](#set-svc-sandbox-facilitator-url).',
}

/** What a row says after its help text. */
const details: Record<string, string> = {
  SVC_PORT:
    'That one port serves the control planes (`api.localhost`, `sandbox.localhost`) and the gateway ' +
    '(`{slug}.dev.localhost`, `{slug}.localhost`); with `0` the ready line (`svc up --json`) says which (`gateway_port`). ' +
    "`svc exec` takes a free port unless `--port` is given (it ignores `SVC_PORT`). The chain's RPC, the chain manager " +
    'and the facilitator listen on ports of their own, on 127.0.0.1, free ones unless ' +
    '[`--rpc-port`](#flag-rpc-port), [`--chain-manager-port`](#flag-chain-manager-port) and ' +
    '[`--facilitator-port`](#flag-facilitator-port) fix them (`svc up`, `svc exec`; `svc serve` always takes free ' +
    'ones). `svc serve` listens on [`--host`](#svc-host), and behind a proxy hands out URLs with ' +
    '[`--public-port`](#flag-public-port).',
  SVC_DATA_DIR:
    '`svc exec` keeps its data in a temporary directory unless `--data-dir` is given (it ignores `SVC_DATA_DIR`).',
  SVC_DATABASE_URL: "PostgreSQL's password comes from `PGPASSWORD` or `~/.pgpass`, as for every libpq client.",
}

type Take = { option: CliOption; command: string[] }

export function render(): Record<string, string> {
  const tree = cliTree()
  const commands = allCommands(tree)
  const takes: Take[] = [
    ...tree.globals.map((option) => ({ option, command: [] })),
    ...commands.flatMap((command) => command.options.map((option) => ({ option, command: command.path }))),
  ]
  const inputs = new Map<string, readonly [string, string, string]>(envInputs.map((entry) => [entry[0], entry]))
  const variables = [...new Set([...takes.flatMap((take) => take.option.variables), ...inputs.keys()])].sort()

  const rows: string[] = []
  for (const variable of variables) {
    const named = takes.filter((take) => take.option.variables.includes(variable))
    const input = inputs.get(variable)
    const text = what[variable] ?? cell(input?.[1] ?? clean(named[0]!.option.description, variable))
    const fallback = input?.[2] || defaults(named.map((take) => take.option))
    rows.push(
      row(
        `<span id="${anchorOf(variable)}"></span>${code(variable)}`,
        flagsOf(named, commands),
        fallback,
        [sentence(text), details[variable]].filter(Boolean).join(' '),
      ),
    )
  }
  const flagOnly = new Map<string, Take[]>()
  for (const take of takes) {
    const top = take.command[0]
    if (take.option.variables.length > 0 || take.option.name === 'version') continue
    if (top !== undefined && !(starting.includes(top) && take.command.length === 1)) continue
    flagOnly.set(take.option.name, [...(flagOnly.get(take.option.name) ?? []), take])
  }
  for (const [name, named] of [...flagOnly].sort(([a], [b]) => a.localeCompare(b))) {
    rows.push(
      row(
        `<span id="flag-${name}"></span>`,
        flagsOf(named, commands),
        defaults(named.map((take) => take.option)),
        sentence(cell(named[0]!.option.description)),
      ),
    )
  }

  const lines = [
    '# Configuration',
    '',
    '<!-- Generated by test/docs/reference/config.ts from the commands, cli/env-inputs.ts and cli/sandbox-env.ts: run `npm run docs:gen`. -->',
    '',
    'Every environment variable svc reads, and every flag of the commands that start it (`svc up`, `svc exec`, ' +
      '`svc serve`) and of every command (the global options), with its default. A flag wins over its variable. ' +
      "The other commands' flags are their input (a name, a price): see each command's page in the " +
      '[CLI reference](./cli/).',
    '',
    '| Variable | Flag: commands | Default | What it does |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
    '## Variables svc sets',
    '',
    '`svc exec` gives the command it runs these variables, and `svc status --env` (or `--dotenv`) prints them for the ' +
      'sandbox `svc up --detach` started: how to use them in a CI job is on [CI](../ci). `<SLUG>`, `<NAME>`, ' +
      '`<TWIN>`: upper case, every other character `_` (`my-api` → `MY_API`).',
    '',
    '| Variable | What it holds |',
    '| --- | --- |',
    ...sandboxEnvNames.map(
      ([name, what]) =>
        `| <span id="set-${anchorOf(name).replace(/[<>]/g, '')}"></span>${code(name)} | ${cell(what)} |`,
    ),
    '',
  ]
  return { 'docs/reference/config.md': lines.join('\n') }
}

function row(...cells: string[]): string {
  return `| ${cells.join(' | ')} |`
}

/**
 * The flags that give a variable (or one flag), each with the commands that take it, linked to their rows in the CLI
 * reference: a top-level command's `opt-<flag>`, a subcommand's `<section>-opt-<flag>`, the global ones on the index.
 * A command whose every subcommand takes it is written once, `svc time …`.
 */
function flagsOf(named: Take[], commands: ReturnType<typeof allCommands>): string {
  const byFlag = new Map<string, Take[]>()
  for (const take of named) byFlag.set(take.option.flags, [...(byFlag.get(take.option.flags) ?? []), take])
  return [...byFlag]
    .map(([flags, all]) => {
      const name = all[0]!.option.name
      const shown: string[] = []
      const tops = new Set(all.map((take) => take.command[0]))
      for (const top of tops) {
        if (top === undefined) {
          shown.push(`[every command](./cli/index#opt-${name})`)
          continue
        }
        const subs = commands.filter((command) => command.path[0] === top && command.path.length > 1)
        const here = all.filter((take) => take.command[0] === top)
        if (
          subs.length > 1 &&
          subs.every((sub) => here.some((take) => take.command.join(' ') === sub.path.join(' ')))
        ) {
          shown.push(`[${code(`svc ${top} …`)}](./cli/${top})`)
          continue
        }
        for (const take of here) {
          const path = take.command
          const href =
            path.length === 1
              ? `./cli/${top}#opt-${name}`
              : `./cli/${top}#svc-${path.join('-')}-opt-${name}`.replace(/[^a-z0-9#./_-]/g, '-')
          shown.push(`[${code(`svc ${path.join(' ')}`)}](${href})`)
        }
      }
      return `${code(flags)}: ${shown.join(', ')}`
    })
    .join('<br>')
}

/** The default the options agree on, else the one their help text gives in prose (`default http://…`). */
function defaults(options: CliOption[]): string {
  const given = [...new Set(options.map((option) => option.defaultValue).filter((value) => value !== undefined))]
  if (given.length > 0) return given.map((value) => code(value!)).join(', ')
  for (const option of options) {
    const prose = option.description.match(/(?:\(|; )default:? ([^;)]+)/)
    if (prose) return cell(prose[1]!)
  }
  return ''
}

/** An option's help text without the variable it names (the row says it): `port… (SVC_PORT)` → `port…`. */
function clean(description: string, variable: string): string {
  return description
    .replace(` (${variable})`, '')
    .replace(` (or ${variable})`, '')
    .replace(`; or ${variable}`, '')
    .replace(`(${variable}; `, '(')
    .replace(`(${variable}, `, '(')
}
