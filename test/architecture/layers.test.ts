/**
 * The folders are layers (docs/architecture.md, "Layers and rooms"): an import only ever points down
 * core → chain → server → sdk → mcp → tui → cli. This reads the imports of every source file and fails on one that
 * points up or sideways, and on a cycle between files.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, posix, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { folderRoomOf, mayPassDoor, parse, resolve, root, sourceFiles } from './rooms.js'

/** What each folder may import, besides itself. */
const allowed: Record<string, readonly string[]> = {
  core: [],
  chain: ['core'],
  server: ['core', 'chain'],
  sdk: ['core'],
  mcp: ['core', 'sdk'],
  tui: ['core', 'sdk'],
  cli: ['core', 'sdk', 'mcp', 'tui'],
  fixtures: ['core'],
}

/**
 * The composition roots: `svc up`, `svc serve` and the test helper start the sandbox through the one door of
 * server/start/ (`startSvc({ mode })`); the server's own root starts the demo upstream, a fixture, when a seed asks
 * for it.
 */
const exceptions: Record<string, readonly string[]> = {
  'cli/commands/up.ts': ['server/start/index.ts', 'chain/anvil/anvil.ts'],
  'sdk/testing.ts': ['server/start/index.ts'],
  'cli/commands/serve.ts': ['server/start/index.ts', 'chain/anvil/anvil.ts'],
  'server/start/start-svc.ts': ['fixtures/demo-upstream.ts'],
}

/** The repo paths a file imports (static, dynamic and type-only imports; re-exports). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8')
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)(['"])(\.[^'"]+)\1/g)].map((m) => m[2]!)
  return specs.map((spec) => {
    const target = posix.normalize(posix.join(posix.dirname(file), spec))
    for (const candidate of [target, target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx')])
      if (/\.(ts|tsx|json|yaml)$/.test(candidate) && exists(candidate)) return candidate
    return target
  })
}

function exists(path: string): boolean {
  try {
    return statSync(join(root, path)).isFile()
  } catch {
    return false
  }
}

/** A file's relative imports, with whether each is a dynamic `import()` and whether it loads a module (not types only). */
function importsWithKind(file: string): { target: string; dynamic: boolean; loads: boolean }[] {
  const out: { target: string; dynamic: boolean; loads: boolean }[] = []
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      const spec = (node.moduleSpecifier as ts.StringLiteral).text
      let loads = true
      if (ts.isImportDeclaration(node)) {
        const clause = node.importClause
        const bindings = clause?.namedBindings
        loads = !(
          clause?.isTypeOnly ||
          (clause &&
            !clause.name &&
            bindings &&
            ts.isNamedImports(bindings) &&
            bindings.elements.length > 0 &&
            bindings.elements.every((element) => element.isTypeOnly))
        )
      } else {
        const clause = node.exportClause
        loads = !(
          node.isTypeOnly ||
          (clause && ts.isNamedExports(clause) && clause.elements.every((e) => e.isTypeOnly))
        )
      }
      if (spec.startsWith('.')) out.push({ target: resolve(file, spec), dynamic: false, loads })
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0]) &&
      node.arguments[0].text.startsWith('.')
    )
      out.push({ target: resolve(file, node.arguments[0].text), dynamic: true, loads: true })
    else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    )
      out.push({ target: resolve(file, node.argument.literal.text), dynamic: false, loads: false })
    ts.forEachChild(node, visit)
  }
  visit(parse(file))
  return out
}

const layers = Object.keys(allowed)
const files = layers.flatMap((layer) => sourceFiles(layer))
const graph = new Map(files.map((file) => [file, importsOf(file)]))

/** A room of server/: a top-level folder (`server/journal/`) or a file at the root (`server/deps.ts`). */
const roomOf = (file: string): string => {
  const parts = file.split('/')
  return parts.length > 2 ? `${parts[0]}/${parts[1]}/` : file
}

describe('layers', () => {
  it('every import points down the layers (or is a composition-root exception)', () => {
    const wrong: string[] = []
    for (const [file, imports] of graph) {
      const layer = file.split('/')[0]!
      for (const target of imports) {
        const to = target.split('/')[0]!
        if (to === layer || allowed[layer]!.includes(to)) continue
        if (exceptions[file]?.includes(target)) continue
        wrong.push(`${file} → ${target}`)
      }
    }
    expect(wrong).toEqual([])
  })

  it('the gateway and the control plane share server/ (deps, db, schemas), never each other', () => {
    const crossing = [...graph].flatMap(([file, imports]) =>
      imports
        .filter(
          (target) =>
            (file.startsWith('server/gateway/') && target.startsWith('server/control/')) ||
            (file.startsWith('server/control/') && target.startsWith('server/gateway/')),
        )
        .map((target) => `${file} → ${target}`),
    )
    expect(crossing).toEqual([])
  })

  it('no file imports a path outside the source folders (test/, bin/, scratch)', () => {
    const outside = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((target) => !layers.includes(target.split('/')[0]!) && !target.startsWith('node_modules'))
        .map((t) => `${file} → ${t}`),
    )
    expect(outside).toEqual([])
  })

  it('there is no import cycle between files, type-only imports included', () => {
    const cycles: string[] = []
    const state = new Map<string, 'open' | 'done'>()
    const stack: string[] = []
    const visit = (file: string) => {
      state.set(file, 'open')
      stack.push(file)
      for (const next of graph.get(file) ?? []) {
        if (!graph.has(next)) continue
        if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].join(' → '))
        else if (!state.has(next)) visit(next)
      }
      stack.pop()
      state.set(file, 'done')
    }
    for (const file of files) if (!state.has(file)) visit(file)
    expect(cycles).toEqual([])
  })

  it('server/ keeps its files in rooms: at most 6 loose at its root, 25 directly in server/gateway/ (issue 36)', () => {
    const loose = (dir: string, pattern: RegExp) =>
      readdirSync(join(root, dir)).filter((name) => pattern.test(name) && statSync(join(root, dir, name)).isFile())
    expect(loose('server', /\.ts$/).length).toBeLessThanOrEqual(6)
    expect(loose('server/gateway', /./).length).toBeLessThanOrEqual(25)
    expect(loose('server/gateway', /./).length).toBeGreaterThan(0)
  })

  it('only server/db asks which SQL dialect it runs on: `dialectOf(` nowhere else (issue 36)', () => {
    const asking = files.filter(
      (file) =>
        (file.startsWith('server/') || file.startsWith('chain/')) &&
        !file.startsWith('server/db/') &&
        readFileSync(join(root, file), 'utf8').includes('dialectOf('),
    )
    expect(asking).toEqual([])
    // The check sees the calls: server/db asks.
    expect(readFileSync(join(root, 'server/db/amount-sums.ts'), 'utf8')).toContain('dialectOf(')
  })

  it('only server/db imports its SQLite and PostgreSQL halves, server/db/sqlite/ and server/db/postgres/', () => {
    const crossing = [...graph].flatMap(([file, imports]) =>
      file.startsWith('server/db/')
        ? []
        : imports
            .filter((target) => /^server\/db\/(sqlite|postgres)\//.test(target))
            .map((target) => `${file} → ${target}`),
    )
    expect(crossing).toEqual([])
    expect(graph.get('server/db/database.ts')).toContain('server/db/sqlite/driver.ts')
  })

  it('rooms stand on floors: no cycle between the rooms of server/', () => {
    const edges = new Map<string, Set<string>>()
    for (const [file, imports] of graph) {
      if (!file.startsWith('server/')) continue
      for (const target of imports) {
        if (!target.startsWith('server/') || !graph.has(target) || roomOf(file) === roomOf(target)) continue
        edges.set(roomOf(file), (edges.get(roomOf(file)) ?? new Set()).add(roomOf(target)))
      }
    }
    // Tarjan's strongly connected components: a component of more than one room is a cycle.
    const index = new Map<string, number>()
    const low = new Map<string, number>()
    const stack: string[] = []
    const cycles: string[] = []
    const visit = (room: string) => {
      index.set(room, index.size)
      low.set(room, index.get(room)!)
      stack.push(room)
      for (const next of edges.get(room) ?? []) {
        if (!index.has(next)) {
          visit(next)
          low.set(room, Math.min(low.get(room)!, low.get(next)!))
        } else if (stack.includes(next)) low.set(room, Math.min(low.get(room)!, index.get(next)!))
      }
      if (low.get(room) !== index.get(room)) return
      const component = stack.splice(stack.indexOf(room))
      if (component.length > 1) cycles.push(component.sort().join(' ⇄ '))
    }
    for (const room of edges.keys()) if (!index.has(room)) visit(room)
    expect(cycles).toEqual([])
  })

  it('every room of server/ and chain/ has a door, and another room enters through it (issue 36)', () => {
    // A room: a folder directly in server/ or chain/. Its door: its index.ts (test/architecture/doors.ts writes them).
    const rooms = [...new Set(files.map(folderRoomOf).filter((room) => room !== undefined))].sort()
    expect(rooms.filter((room) => !graph.has(`${room}index.ts`))).toEqual([])
    // The check sees the rooms: 20 or so, the db among them.
    expect(rooms.length).toBeGreaterThanOrEqual(18)
    expect(rooms).toContain('server/db/')
    const around: string[] = []
    const lazy: string[] = []
    for (const file of files) {
      for (const { target, dynamic, loads } of importsWithKind(file)) {
        const room = folderRoomOf(target)
        if (!room || folderRoomOf(file) === room || target === `${room}index.ts`) continue
        if (mayPassDoor(file, target, { dynamic, loads })) lazy.push(`${file} → ${target}`)
        else around.push(`${file} → ${target}`)
      }
    }
    expect(around).toEqual([])
    // The lazy exception is used, and only where the door would load more: `svc up` loads the database lazily.
    expect(lazy).toContain('server/start/server.ts → server/db/database.ts')
  })

  it('svc starts through one door: nothing outside server/start/ imports a file of it but its index.ts (issue 36)', () => {
    // The tests too: they start svc as its callers do, with startSvc({ mode }).
    const tests = sourceFiles('test').map((file) => [file, importsOf(file)] as const)
    const importers = [...graph, ...tests].filter(
      ([file, imports]) =>
        !file.startsWith('server/start/') && imports.some((target) => target.startsWith('server/start/')),
    )
    const past = importers.flatMap(([file, imports]) =>
      imports
        .filter((target) => target.startsWith('server/start/') && target !== 'server/start/index.ts')
        .map((target) => `${file} → ${target}`),
    )
    expect(past).toEqual([])
    // The check sees the importers: svc up, svc serve, startSandbox() and a test helper enter by the door.
    expect(importers.map(([file]) => file)).toEqual(
      expect.arrayContaining([
        'cli/commands/up.ts',
        'cli/commands/serve.ts',
        'sdk/testing.ts',
        'test/helpers/control.ts',
      ]),
    )
  })

  it('only gateway/, control/, app.ts and start/ import server/deps.ts', () => {
    const above = /^server\/(gateway\/|control\/|start\/|app\.ts$)/
    const importers = [...graph].filter(([, imports]) => imports.includes('server/deps.ts')).map(([file]) => file)
    expect(importers.filter((file) => !above.test(file))).toEqual([])
    // The check sees the importers: the app builds the deps.
    expect(importers).toContain('server/app.ts')
  })

  it("chain/'s rooms stand on floors: no circle in chain/'s room graph, server/ enters its rooms by the door (issue 36)", () => {
    // A room: a folder directly in chain/, or a file at chain/'s root.
    const roomOf = (file: string) => {
      const parts = file.split('/')
      return parts.length > 2 ? `${parts[0]}/${parts[1]}/` : file
    }
    const edges = [...graph].flatMap(([file, imports]) =>
      file.startsWith('chain/')
        ? imports
            .filter((target) => target.startsWith('chain/') && graph.has(target) && roomOf(target) !== roomOf(file))
            .map((target) => [file, target] as const)
        : [],
    )
    const rooms = new Map<string, Set<string>>()
    for (const [file, target] of edges) {
      if (!rooms.has(roomOf(file))) rooms.set(roomOf(file), new Set())
      rooms.get(roomOf(file))!.add(roomOf(target))
    }
    const reaches = (from: string, to: string) => {
      const seen = new Set<string>()
      const todo = [from]
      while (todo.length > 0) {
        const room = todo.pop()!
        if (room === to) return true
        if (seen.has(room)) continue
        seen.add(room)
        todo.push(...(rooms.get(room) ?? []))
      }
      return false
    }
    // An import from room A to room B is on a circle when B leads back to A.
    const upward = edges
      .filter(([file, target]) => reaches(roomOf(target), roomOf(file)))
      .map(([f, t]) => `${f} → ${t}`)
    expect(upward).toEqual([])
    // The check sees the graph: the facilitator stands on the relay.
    expect(rooms.get('chain/facilitator/')).toContain('chain/relay/')

    expect(graph.get('server/channels/withdrawals.ts')).toContain('chain/batch-settlement/index.ts')
  })

  it('reads the whole tree (the check itself sees files and imports)', () => {
    expect(files.length).toBeGreaterThan(100)
    expect(relative(root, join(root, 'core'))).toBe('core')
    expect(graph.get('server/app.ts')?.length).toBeGreaterThan(2)
  })
})
