/**
 * The rooms of server/ and chain/ and what loading a file loads: shared by test/architecture/doors.ts (which writes
 * the doors) and test/architecture/layers.test.ts (which checks them), so both decide the lazy exception alike.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, posix } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const layers = ['core', 'chain', 'server', 'sdk', 'mcp', 'tui', 'cli', 'fixtures']

export function sourceFiles(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(join(root, dir))) {
    const path = posix.join(dir, name)
    if (statSync(join(root, path)).isDirectory()) out.push(...sourceFiles(path))
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path)
  }
  return out
}

/** The repo path an import names (`../db/x.js` from server/app.ts: server/db/x.ts). */
export function resolve(from: string, spec: string): string {
  const target = posix.normalize(posix.join(posix.dirname(from), spec))
  for (const candidate of [target, target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx')])
    if (/\.(ts|tsx)$/.test(candidate) && existsSync(join(root, candidate))) return candidate
  return target
}

/** The folder room of a file: `server/db/` for server/db/sqlite/driver.ts; undefined outside a folder of server/ or chain/. */
export function folderRoomOf(file: string): string | undefined {
  const parts = file.split('/')
  return (parts[0] === 'server' || parts[0] === 'chain') && parts.length > 2 ? `${parts[0]}/${parts[1]}/` : undefined
}

const parsed = new Map<string, ts.SourceFile>()
export function parse(file: string): ts.SourceFile {
  let source = parsed.get(file)
  if (!source) {
    const text = readFileSync(join(root, file), 'utf8')
    source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? 4 : 3)
    parsed.set(file, source)
  }
  return source
}

/** The modules a file loads when it loads: its static imports and re-exports, not those of types only. */
function loads(file: string): string[] {
  const out: string[] = []
  for (const statement of parse(file).statements) {
    let spec: string | undefined
    if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly) {
      const bindings = statement.importClause?.namedBindings
      const typesOnly =
        statement.importClause &&
        !statement.importClause.name &&
        bindings &&
        ts.isNamedImports(bindings) &&
        bindings.elements.length > 0 &&
        bindings.elements.every((element) => element.isTypeOnly)
      if (!typesOnly) spec = (statement.moduleSpecifier as ts.StringLiteral).text
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
      const clause = statement.exportClause
      const typesOnly = clause && ts.isNamedExports(clause) && clause.elements.every((element) => element.isTypeOnly)
      if (!typesOnly) spec = (statement.moduleSpecifier as ts.StringLiteral).text
    }
    if (spec) out.push(spec.startsWith('.') ? resolve(file, spec) : `package:${spec}`)
  }
  return out
}

/** Every module (repo file, or `package:name`) that loading `file` loads, `file` included. */
const closures = new Map<string, Set<string>>()
export function closure(file: string): Set<string> {
  const known = closures.get(file)
  if (known) return known
  const seen = new Set<string>()
  closures.set(file, seen)
  const todo = [file]
  while (todo.length > 0) {
    const next = todo.pop()!
    if (seen.has(next)) continue
    seen.add(next)
    if (!next.startsWith('package:') && existsSync(join(root, next))) todo.push(...loads(next))
  }
  return seen
}

/**
 * The lazy exception: true when loading the door of `file`'s room loads a module that loading `file` does not. A
 * dynamic `import()` exists to load less, so one of such a file may name the file instead of the door.
 */
export function doorCostsMore(file: string): boolean {
  const door = `${folderRoomOf(file)}index.ts`
  if (!existsSync(join(root, door))) return true
  const own = closure(file)
  return [...closure(door)].some((module) => module !== door && !own.has(module))
}

/**
 * The start-up room: server/start/ runs before Anvil is spawned (start-svc.ts: Anvil boots while the server's modules
 * load), so what it loads up front delays the chain. Its imports that load a module (not `import type`) may name a
 * file inside a room, as a lazy import may, when that room's door would load more than the file.
 */
export const startUpRoom = 'server/start/'

/** Whether `file`'s import of `target` (a file of another room, not its door) may pass the door: the lazy exception. */
export function mayPassDoor(file: string, target: string, how: { dynamic: boolean; loads: boolean }): boolean {
  if (!how.dynamic && !(how.loads && file.startsWith(startUpRoom))) return false
  return doorCostsMore(target)
}
