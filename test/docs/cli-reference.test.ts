/**
 * What the CLI and configuration reference pages (test/docs/reference/{cli,config}.ts) need from the code: every
 * command and option says what it does, and every SVC_* variable the code reads is documented somewhere the
 * configuration page reads (an option's help text, cli/env-inputs.ts, or the variables svc sets), so a new variable
 * without its line fails here. That the checked-in pages are current is test/docs/reference.test.ts's.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { envInputs, testEnvInputs } from '../../cli/env-inputs.js'
import { sandboxEnvNames } from '../../cli/sandbox-env.js'
import { root } from './blocks.js'
import { allCommands, cliTree, everyOption } from './cli-tree.js'
import { groups } from './reference/cli.js'

const tree = cliTree()
const commands = allCommands(tree)

test('every command and every option, hidden ones too, has a description', () => {
  expect(commands.filter((command) => command.description.trim() === '').map((c) => `svc ${c.path.join(' ')}`)).toEqual(
    [],
  )
  expect(
    everyOption()
      .filter((option) => option.description.trim() === '')
      .map((option) => `${option.command} ${option.flags}`),
  ).toEqual([])
  const options = commands.reduce((n, command) => n + command.options.length, 0)
  // The counts the report of issue 38 quotes.
  console.log(`cli reference: ${commands.length} commands, ${options} options, ${tree.globals.length} global options`)
  expect(commands.length).toBeGreaterThan(30)
})

test("the index's groups name only commands that exist", () => {
  const names = new Set(tree.commands.map((command) => command.path[0]))
  expect(groups.flatMap(([, group]) => group).filter((name) => !names.has(name))).toEqual([])
})

/** The code that runs as svc (tests and scripts aside). */
const codeFolders = ['cli', 'core', 'server', 'sdk', 'chain', 'mcp', 'tui', 'bin']

function sources(): { file: string; text: string }[] {
  return codeFolders.flatMap((folder) =>
    readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
      .filter((file) => /\.(ts|tsx|js|mjs)$/.test(file) && !file.includes('node_modules'))
      .map((file) => ({ file: `${folder}/${file}`, text: readFileSync(join(root, folder, file), 'utf8') })),
  )
}

/** `SVC_API_<SLUG>_URL` as a pattern: any upper-case name part for `<SLUG>`. */
const patternOf = (name: string) => new RegExp(`^${name.replace(/<[A-Z]+>/g, '[A-Z0-9_]+')}$`)

/** True when the configuration page documents this name (an option's, an env-inputs one, one svc sets). */
function documented(): (name: string) => boolean {
  const fromOptions = new Set(
    [...tree.globals, ...commands.flatMap((command) => command.options)].flatMap((option) => option.variables),
  )
  const exact = new Set<string>([...fromOptions, ...envInputs.map(([name]) => name), ...testEnvInputs.map(([n]) => n)])
  const patterns = sandboxEnvNames.map(([name]) => name)
  return (name) =>
    exact.has(name) ||
    patterns.some((pattern) => patternOf(pattern).test(name) || (name.endsWith('_') && pattern.startsWith(name)))
}

test('every SVC_* variable the code reads is an option’s, an env-inputs one or one svc sets', () => {
  const isDocumented = documented()
  const read = /\benv(?:\?\.|\.|\[\s*['"`])(SVC_[A-Z0-9_]+)/g
  const missing = sources().flatMap(({ file, text }) =>
    [...text.matchAll(read)]
      .map((match) => match[1]!)
      .flatMap((name) => (isDocumented(name) ? [] : [`${file}: ${name}`])),
  )
  expect(missing, 'add it to cli/env-inputs.ts, or name it in its option’s help text as (SVC_…)').toEqual([])
})

test('every SVC_* name the code mentions (a read through a helper, a message) is documented too', () => {
  const isDocumented = documented()
  const missing = sources().flatMap(({ file, text }) =>
    [...new Set(text.match(/\bSVC_[A-Z0-9_]*/g) ?? [])].flatMap((name) =>
      isDocumented(name) ? [] : [`${file}: ${name}`],
    ),
  )
  expect(missing, 'add it to cli/env-inputs.ts, or name it in its option’s help text as (SVC_…)').toEqual([])
})

test('every env-inputs entry is still read by the code', () => {
  const all = sources()
    .filter(({ file }) => file !== 'cli/env-inputs.ts')
    .map(({ text }) => text)
    .join('\n')
  const stale = [...envInputs, ...testEnvInputs].map(([name]) => name).filter((name) => !all.includes(name))
  expect(stale).toEqual([])
})
