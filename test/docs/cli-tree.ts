/**
 * The `svc` command tree as data, for the CLI and config reference pages (test/docs/reference/{cli,config}.ts): built
 * by `createProgram` (cli/cli.ts) with an empty environment, so every default is svc's own and not this machine's
 * SVC_*, and walked without parsing or running anything. Hidden commands and options, and commander's own `help`
 * command and `-h, --help`, are left out.
 */
import { homedir } from 'node:os'
import { Readable } from 'node:stream'
import { type Argument, type Command, Help, type Option } from 'commander'
import { createProgram } from '../../cli/cli.js'

export type CliOption = {
  /** As declared: `-X, --method <method>`. */
  flags: string
  /** The long flag without its dashes: `method`, `no-tui`. */
  name: string
  description: string
  /** The SVC_* variables the description names (`(SVC_PORT)`, `or SVC_ADMIN_TOKEN`), in order. */
  variables: string[]
  /** Commander's default, as text; undefined when there is none (or it is an empty list). */
  defaultValue: string | undefined
  required: boolean
}

export type CliArgument = { name: string; required: boolean; variadic: boolean; description: string }

export type CliCommand = {
  /** `['keys', 'create']`. */
  path: string[]
  description: string
  /** `svc keys create [options]`. */
  usage: string
  arguments: CliArgument[]
  options: CliOption[]
  commands: CliCommand[]
}

export type CliTree = { globals: CliOption[]; commands: CliCommand[] }

const help = new Help()
const nowhere = { write: () => true }

/** The tree, built afresh from the code. */
export function cliTree(): CliTree {
  const program = createProgram({ env: {}, io: { stdout: nowhere, stderr: nowhere, stdin: Readable.from([]) } })
  return { globals: optionsOf(program), commands: commandsOf(program, []) }
}

function commandsOf(parent: Command, path: string[]): CliCommand[] {
  return help
    .visibleCommands(parent)
    .filter((command) => command.name() !== 'help')
    .map((command) => {
      const at = [...path, command.name()]
      return {
        path: at,
        description: command.description(),
        usage: ['svc', ...at, command.usage()].join(' '),
        arguments: command.registeredArguments.map(argumentOf),
        options: optionsOf(command),
        commands: commandsOf(command, at),
      }
    })
}

function argumentOf(argument: Argument): CliArgument {
  return {
    name: argument.name(),
    required: argument.required,
    variadic: argument.variadic,
    description: argument.description,
  }
}

function optionsOf(command: Command): CliOption[] {
  return help
    .visibleOptions(command)
    .filter((option) => option.long !== '--help')
    .map((option) => ({
      flags: option.flags,
      name: (option.long ?? option.short ?? '').replace(/^--?/, ''),
      description: option.description,
      variables: [...new Set(option.description.match(/\bSVC_[A-Z0-9_]+\b/g) ?? [])],
      defaultValue: defaultText(option),
      required: option.mandatory,
    }))
}

/** Every option of the tree, hidden ones too (the check that each has a description reads them all). */
export function everyOption(): { command: string; flags: string; description: string; hidden: boolean }[] {
  const program = createProgram({ env: {}, io: { stdout: nowhere, stderr: nowhere, stdin: Readable.from([]) } })
  const found: { command: string; flags: string; description: string; hidden: boolean }[] = []
  const walk = (command: Command, path: string[]) => {
    for (const option of command.options as Option[])
      found.push({
        command: path.join(' '),
        flags: option.flags,
        description: option.description,
        hidden: option.hidden,
      })
    for (const sub of command.commands) walk(sub, [...path, sub.name()])
  }
  walk(program, ['svc'])
  return found
}

/** The default as a reader should see it: `~/.svc`, not this machine's home; nothing for `[]`. */
function defaultText(option: Option): string | undefined {
  const value: unknown = option.defaultValue
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return undefined
  const text = Array.isArray(value) ? value.join(',') : String(value)
  const home = homedir()
  return text.startsWith(home) ? `~${text.slice(home.length)}` : text
}

/** Every command of the tree, depth first. */
export function allCommands(tree: CliTree): CliCommand[] {
  const all: CliCommand[] = []
  const walk = (commands: CliCommand[]) => {
    for (const command of commands) {
      all.push(command)
      walk(command.commands)
    }
  }
  walk(tree.commands)
  return all
}

/**
 * Text for one markdown table cell, safe for markdown-it and for Vue: `|` escaped, `<` as `&lt;` outside code spans
 * (else an HTML tag), and a code span holding `{{` as `<code v-pre>` with the braces as entities (Vue would
 * interpolate it, and test/docs/blocks.test.ts refuses `{{` outside fences).
 */
export function cell(text: string): string {
  return text
    .replace(/\n/g, ' ')
    .split(/(`[^`]*`)/)
    .map((part, index) => {
      if (index % 2 === 1) {
        if (!part.includes('{{')) return part.replace(/\|/g, '\\|')
        const inner = part.slice(1, -1).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/\{/g, '&#123;')
        return `<code v-pre>${inner.replace(/\|/g, '&#124;')}</code>`
      }
      return part.replace(/</g, '&lt;').replace(/\{\{/g, '&#123;&#123;').replace(/\|/g, '\\|')
    })
    .join('')
}

/** Inline code of any text (a flag, a usage line), safe in a table cell. */
export function code(text: string): string {
  return cell(`\`${text}\``)
}

/** The config page's row id of a variable: `SVC_PORT` → `svc-port`. */
export function anchorOf(variable: string): string {
  return variable.toLowerCase().replace(/_/g, '-')
}

/** VitePress's slug of a plain heading: `svc sandbox-wallet get` → `svc-sandbox-wallet-get`. */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
}

/** A help text as a sentence: capital first letter, a full stop. Give it text already made safe by {@link cell}. */
export function sentence(text: string): string {
  const first = text.charAt(0)
  const body = /[a-z]/.test(first) ? first.toUpperCase() + text.slice(1) : text
  return /[.!?]$/.test(body) ? body : `${body}.`
}
