/**
 * Gives every room of server/ and chain/ a door (issue 36 item 1) and sends the other rooms through it:
 * `npx tsx test/architecture/doors.ts` (`--dry` prints what it would change, and changes nothing).
 *
 * A room is a folder directly in server/ or chain/. For each room, this reads every import into a file of the room
 * from a source file outside it (named imports, type imports, re-exports, dynamic `import('…')`), makes sure the
 * room's `index.ts` exports each imported name (it writes the door when there is none, and adds to it when there is:
 * one `export { … } from './file.js'` per file, `export type { … }` when all its names are types, sorted, no
 * `export *`), and rewrites the import to the door (all imports of one door in one file become one statement).
 *
 * The lazy exception (rooms.ts, `mayPassDoor`): a dynamic `import()` exists to load less, and server/start/ runs
 * before Anvil is spawned. Such an import (in server/start/: one that loads a module, not `import type`) goes through
 * the door only when the door loads no module that the file it names does not load already (the door's static import
 * closure is within the file's); otherwise it stays on the file, and test/architecture/layers.test.ts allows it by
 * the same rule.
 *
 * Re-runnable: on a tree whose rooms are all entered by their doors it changes nothing. It stops, changing nothing,
 * on what it cannot rewrite by itself (a default or namespace import past a door, two files of a room exporting one
 * name): those it prints, for a person to settle.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join, posix } from 'node:path'
import ts from 'typescript'
import { layers, mayPassDoor, parse, resolve, root, folderRoomOf as roomOf, sourceFiles } from './rooms.js'

const dry = process.argv.includes('--dry')
const files = layers.flatMap((layer) => sourceFiles(layer))
const rooms = [...new Set(files.map(roomOf).filter((room) => room !== undefined))].sort()

type Named = { name: string; alias: string | undefined; type: boolean }
type Found = {
  file: string
  node: ts.ImportDeclaration | ts.ExportDeclaration | ts.CallExpression
  target: string
  kind: 'import' | 'export' | 'dynamic'
  names: Named[]
}

const problems: string[] = []
const found: Found[] = []

/** The names a dynamic import's result is taken apart into: `const { a, b } = await import(…)`, `(await import(…)).a`. */
function dynamicNames(call: ts.CallExpression): Named[] | undefined {
  let node: ts.Node = call
  if (ts.isAwaitExpression(node.parent)) node = node.parent
  while (ts.isParenthesizedExpression(node.parent)) node = node.parent
  if (ts.isPropertyAccessExpression(node.parent) && node.parent.expression === node)
    return [{ name: node.parent.name.text, alias: undefined, type: false }]
  if (ts.isVariableDeclaration(node.parent) && ts.isObjectBindingPattern(node.parent.name))
    return node.parent.name.elements.map((element) => ({
      name: (element.propertyName ?? element.name).getText(),
      alias: undefined,
      type: false,
    }))
  return undefined
}

for (const file of files) {
  const source = parse(file)
  const visit = (node: ts.Node) => {
    let spec: string | undefined
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
      spec = (node.moduleSpecifier as ts.StringLiteral).text
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    )
      spec = node.arguments[0].text
    else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    )
      spec = node.argument.literal.text
    if (spec?.startsWith('.')) {
      const target = resolve(file, spec)
      const room = roomOf(target)
      if (room && roomOf(file) !== room && target !== `${room}index.ts`) {
        const where = `${file}: ${node.getText().split('\n')[0]}`
        if (ts.isImportDeclaration(node)) {
          const clause = node.importClause
          if (!clause || clause.name || (clause.namedBindings && !ts.isNamedImports(clause.namedBindings)))
            problems.push(`${where} (a side-effect, default or namespace import: give it a name by hand)`)
          else {
            const elements = (clause.namedBindings as ts.NamedImports | undefined)?.elements ?? []
            const names = elements.map((element) => ({
              name: (element.propertyName ?? element.name).text,
              alias: element.propertyName ? element.name.text : undefined,
              type: clause.isTypeOnly || element.isTypeOnly,
            }))
            const loads = !clause.isTypeOnly && (names.length === 0 || names.some((n) => !n.type))
            if (!mayPassDoor(file, target, { dynamic: false, loads }))
              found.push({ file, node, target, kind: 'import', names })
          }
        } else if (ts.isExportDeclaration(node)) {
          if (!node.exportClause || !ts.isNamedExports(node.exportClause))
            problems.push(`${where} (export * past a door: name the exports by hand)`)
          else {
            const names = node.exportClause.elements.map((element) => ({
              name: (element.propertyName ?? element.name).text,
              alias: element.propertyName ? element.name.text : undefined,
              type: node.isTypeOnly || element.isTypeOnly,
            }))
            const loads = names.some((n) => !n.type)
            if (!mayPassDoor(file, target, { dynamic: false, loads }))
              found.push({ file, node, target, kind: 'export', names })
          }
        } else if (ts.isCallExpression(node)) {
          // Lazy: through the door when that loads no more (a room without a door yet is weighed on the next run).
          if (!mayPassDoor(file, target, { dynamic: true, loads: true })) {
            const names = dynamicNames(node)
            if (names) found.push({ file, node, target, kind: 'dynamic', names })
            else problems.push(`${where} (a dynamic import whose names this cannot read: point it at the door by hand)`)
          }
        } else problems.push(`${where} (import('…') in a type: use an import type from the door)`)
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
}

/** Where a name a file of the room exports comes from (following `export { x } from './y.js'` inside the room). */
function originOf(file: string, name: string, depth = 0): { file: string; name: string } {
  if (depth > 10) return { file, name }
  for (const statement of parse(file).statements) {
    if (!ts.isExportDeclaration(statement) || !statement.moduleSpecifier || !statement.exportClause) continue
    if (!ts.isNamedExports(statement.exportClause)) continue
    const target = resolve(file, (statement.moduleSpecifier as ts.StringLiteral).text)
    if (roomOf(target) !== roomOf(file)) continue
    for (const element of statement.exportClause.elements)
      if (element.name.text === name) return originOf(target, (element.propertyName ?? element.name).text, depth + 1)
  }
  return { file, name }
}

/** What a door exports now: exported name → the file (in the room) and name it comes from, and whether a type. */
type Export = { file: string; name: string; type: boolean }
function doorExports(door: string): { exports: Map<string, Export>; plain: boolean } {
  const exports = new Map<string, Export>()
  let plain = true
  if (!existsSync(join(root, door))) return { exports, plain }
  for (const statement of parse(door).statements) {
    if (
      ts.isExportDeclaration(statement) &&
      statement.moduleSpecifier &&
      statement.exportClause &&
      ts.isNamedExports(statement.exportClause)
    ) {
      const target = resolve(door, (statement.moduleSpecifier as ts.StringLiteral).text)
      for (const element of statement.exportClause.elements)
        exports.set(element.name.text, {
          file: target,
          name: (element.propertyName ?? element.name).text,
          type: statement.isTypeOnly || element.isTypeOnly,
        })
    } else plain = false
  }
  return { exports, plain }
}

// What each door must export.
const wanted = new Map<string, Map<string, Export>>()
for (const room of rooms) {
  const door = `${room}index.ts`
  const { exports } = doorExports(door)
  const want = new Map([...exports].map(([name, value]) => [name, { ...value }]))
  for (const item of found.filter((item) => roomOf(item.target) === room)) {
    for (const named of item.names) {
      const origin = originOf(item.target, named.name)
      const had = want.get(named.name)
      if (!had) want.set(named.name, { file: item.target, name: named.name, type: named.type })
      else {
        const hadOrigin = originOf(had.file, had.name)
        if (hadOrigin.file !== origin.file || hadOrigin.name !== origin.name)
          problems.push(`${room}: two files export ${named.name} (${had.file}, ${item.target}): rename one by hand`)
        else if (!named.type) had.type = false
      }
    }
  }
  wanted.set(room, want)
}

if (problems.length > 0) {
  console.error(`doors: nothing changed; settle these first:\n${problems.map((p) => `  ${p}`).join('\n')}`)
  process.exit(1)
}

const changed = new Set<string>()
const write = (file: string, text: string) => {
  if (existsSync(join(root, file)) && readFileSync(join(root, file), 'utf8') === text) return
  changed.add(file)
  if (!dry) writeFileSync(join(root, file), text)
}

const byName = (a: { name: string }, b: { name: string }) =>
  a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/** `export { a, type B } from './a.js'` (or `export type { … }` when all are types), for the exports of one file. */
function exportStatement(door: string, from: string, exports: Export[]): string {
  const spec = `./${posix.relative(posix.dirname(door), from).replace(/\.tsx?$/, '.js')}`
  const allTypes = exports.every((e) => e.type)
  const parts = exports.sort(byName).map((e) => `${!allTypes && e.type ? 'type ' : ''}${e.name}`)
  return `export ${allTypes ? 'type ' : ''}{ ${parts.join(', ')} } from '${spec}'`
}

// Write the doors.
for (const room of rooms) {
  const door = `${room}index.ts`
  const { exports, plain } = doorExports(door)
  const want = wanted.get(room)!
  const same =
    existsSync(join(root, door)) &&
    want.size === exports.size &&
    [...want].every(([name, value]) => exports.get(name)?.type === value.type)
  if (same) continue
  const byFile = new Map<string, Export[]>()
  for (const [name, value] of want) {
    if (value.name !== name) continue // an aliased export of an older door: kept as it is below
    byFile.set(value.file, [...(byFile.get(value.file) ?? []), { ...value }])
  }
  if (!existsSync(join(root, door)) || plain) {
    // Keep the door's leading comment; its statements are written anew, one per file, sorted by file.
    const old = existsSync(join(root, door)) ? readFileSync(join(root, door), 'utf8') : ''
    const first = existsSync(join(root, door)) ? parse(door).statements[0] : undefined
    const aliased = existsSync(join(root, door))
      ? parse(door).statements.filter(
          (s) =>
            ts.isExportDeclaration(s) &&
            s.exportClause &&
            ts.isNamedExports(s.exportClause) &&
            s.exportClause.elements.some((e) => e.propertyName),
        )
      : []
    const header = first
      ? old.slice(0, first.getStart())
      : `/**\n * The door of ${room}: what the other rooms use, named. Another room imports only this file\n * (test/architecture/layers.test.ts; written by test/architecture/doors.ts); the files inside import each other\n * directly.\n */\n`
    const statements = [...byFile]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([from, list]) => exportStatement(door, from, list))
    const text = `${header}${[...statements, ...aliased.map((s) => s.getText())].join('\n')}\n`
    write(door, text)
  } else {
    // A door with more than re-exports: the new names are added at its end.
    const missing = [...want].filter(([name]) => !exports.has(name)).map(([, value]) => value)
    const files = new Map<string, Export[]>()
    for (const value of missing) files.set(value.file, [...(files.get(value.file) ?? []), value])
    const added = [...files].map(([from, list]) => exportStatement(door, from, list))
    write(door, `${readFileSync(join(root, door), 'utf8').trimEnd()}\n${added.join('\n')}\n`)
  }
}

// Rewrite the imports: per file, all imports past one door become one import of the door, where the first stood.
const specOf = (file: string, room: string) => {
  const spec = posix.relative(posix.dirname(file), `${room}index.js`)
  return spec.startsWith('.') ? spec : `./${spec}`
}
for (const file of [...new Set(found.map((item) => item.file))]) {
  const source = parse(file)
  const text = source.getFullText()
  const edits: { start: number; end: number; text: string }[] = []
  const imports = found.filter((item) => item.file === file && item.kind === 'import')
  // Imports of the door already there join the merged statement.
  const doorImports = source.statements.filter(
    (s): s is ts.ImportDeclaration =>
      ts.isImportDeclaration(s) &&
      ts.isStringLiteral(s.moduleSpecifier) &&
      s.moduleSpecifier.text.startsWith('.') &&
      !!s.importClause &&
      !s.importClause.name &&
      (!s.importClause.namedBindings || ts.isNamedImports(s.importClause.namedBindings)) &&
      imports.some(
        (item) => `${roomOf(item.target)}index.ts` === resolve(file, (s.moduleSpecifier as ts.StringLiteral).text),
      ),
  )
  for (const room of rooms) {
    const mine = imports.filter((item) => roomOf(item.target) === room)
    if (mine.length === 0) continue
    const declarations = [
      ...doorImports.filter((s) => resolve(file, (s.moduleSpecifier as ts.StringLiteral).text) === `${room}index.ts`),
      ...mine.map((item) => item.node as ts.ImportDeclaration),
    ].sort((a, b) => a.getStart() - b.getStart())
    const names: Named[] = []
    for (const declaration of declarations) {
      const clause = declaration.importClause!
      for (const element of (clause.namedBindings as ts.NamedImports | undefined)?.elements ?? []) {
        const named = {
          name: (element.propertyName ?? element.name).text,
          alias: element.propertyName ? element.name.text : undefined,
          type: clause.isTypeOnly || element.isTypeOnly,
        }
        const same = names.find((n) => n.name === named.name && n.alias === named.alias)
        if (!same) names.push(named)
        else if (!named.type) same.type = false
      }
    }
    const allTypes = names.every((n) => n.type)
    const parts = names
      .sort((a, b) => byName({ name: a.alias ?? a.name }, { name: b.alias ?? b.name }))
      .map((n) => `${!allTypes && n.type ? 'type ' : ''}${n.name}${n.alias ? ` as ${n.alias}` : ''}`)
    const statement = `import ${allTypes ? 'type ' : ''}{ ${parts.join(', ')} } from '${specOf(file, room)}'`
    const [first, ...rest] = declarations
    edits.push({ start: first!.getStart(), end: first!.getEnd(), text: statement })
    for (const declaration of rest) {
      let end = declaration.getEnd()
      if (text[end] === '\r') end++
      if (text[end] === '\n') end++
      edits.push({ start: declaration.getFullStart() === 0 ? 0 : declaration.getStart(), end, text: '' })
    }
  }
  for (const item of found.filter((item) => item.file === file && item.kind !== 'import')) {
    const literal =
      item.kind === 'export'
        ? (item.node as ts.ExportDeclaration).moduleSpecifier!
        : (item.node as ts.CallExpression).arguments[0]!
    edits.push({ start: literal.getStart(), end: literal.getEnd(), text: `'${specOf(file, roomOf(item.target)!)}'` })
  }
  let out = text
  for (const edit of edits.sort((a, b) => b.start - a.start))
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end)
  write(file, out)
}

const list = [...changed].sort()
console.log(`doors: ${rooms.length} rooms; ${list.length} files ${dry ? 'would change' : 'changed'}`)
for (const file of list) console.log(`  ${file}`)
if (!dry && list.length > 0)
  execFileSync('npx', ['biome', 'check', '--write', ...list], { cwd: root, stdio: 'inherit' })
// A door written on this run is weighed for the lazy imports on the next (at most a few: the doors only grow).
const round = Number(process.env.SVC_DOORS_ROUND ?? '1')
if (!dry && list.length > 0 && round < 5)
  execFileSync('npx', ['tsx', 'test/architecture/doors.ts'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, SVC_DOORS_ROUND: String(round + 1) },
  })
