/**
 * A function beyond four parameters takes one object, as viem's actions do (issue 36): this parses every source file
 * with the TypeScript compiler and fails on a function, method, arrow function or function type with more than four
 * parameters, naming it as file:line and its count. An ABI mirror (a function shaped as a contract's, such as
 * `transferWithAuthorization`) may keep its positional list: it is named in the allow-list below.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { root, sourceFiles } from './rooms.js'

const folders = ['core', 'chain', 'server', 'sdk', 'mcp', 'tui', 'cli', 'fixtures']
const most = 4

/** ABI mirrors allowed more than four parameters, as `file name` (issue 36: at most one). */
const abiMirrors = new Set<string>([])

const allowed = abiMirrors

type LongFunction = { file: string; line: number; name: string; count: number }

/** The name a function goes by: its own, or the variable, property or parameter it is given to. */
function nameOf(node: ts.SignatureDeclaration): string {
  if (node.name) return node.name.getText()
  const parent = node.parent
  if (
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) &&
    parent.name
  )
    return parent.name.getText()
  if (ts.isTypeAliasDeclaration(parent) || ts.isPropertySignature(parent) || ts.isParameter(parent))
    return parent.name.getText()
  return '(anonymous)'
}

/** Every function-like node of a file's text with more than four parameters (declarations, types, signatures). */
function longFunctions(file: string, text: string): LongFunction[] {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind)
  const found: LongFunction[] = []
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && node.parameters.length > most) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1
      found.push({ file, line, name: nameOf(node), count: node.parameters.length })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

const found = folders
  .flatMap((folder) => sourceFiles(folder))
  .flatMap((file) => longFunctions(file, readFileSync(join(root, file), 'utf8')))
const text = ({ file, line, name, count }: LongFunction) => `${file}:${line} ${name} takes ${count} parameters`

describe('parameters', () => {
  it('the check sees a long list wherever it is written', () => {
    const sample = [
      'export function five(a: number, b: number, c: number, d: number, e: number) {}',
      'const arrow = (a: 1, b: 2, c: 3, d: 4, e: 5, f: 6) => a',
      'const methods = { m(a: 1, b: 2, c: 3, d: 4, e: 5) {} }',
      'type Callback = (a: 1, b: 2, c: 3, d: 4, e: 5) => void',
      'export function oneObject({ a, b, c, d, e }: { a: 1; b: 2; c: 3; d: 4; e: 5 }) {}',
      'export function four(a: number, b: number, c: number, ...rest: number[]) {}',
      'export const Page = (props: { a: 1 }) => <div>{props.a}</div>',
    ].join('\n')
    expect(longFunctions('sample.tsx', sample).map(text)).toEqual([
      'sample.tsx:1 five takes 5 parameters',
      'sample.tsx:2 arrow takes 6 parameters',
      'sample.tsx:3 m takes 5 parameters',
      'sample.tsx:4 Callback takes 5 parameters',
    ])
    // The walk reads the source folders (a typo in a folder name would find nothing, and pass).
    expect(sourceFiles('server').length).toBeGreaterThan(100)
    expect(sourceFiles('tui').some((file) => file.endsWith('.tsx'))).toBe(true)
  })

  it(`no function takes more than ${most} positional parameters: beyond that, one object (issue 36)`, () => {
    const offenders = found.filter((f) => !allowed.has(`${f.file} ${f.name}`)).map(text)
    expect(offenders, `functions with more than ${most} parameters: take one object instead`).toEqual([])
  })

  it('every function of the allow-list is still there, and still long (else its entry goes)', () => {
    const long = new Set(found.map((f) => `${f.file} ${f.name}`))
    expect([...allowed].filter((entry) => !long.has(entry))).toEqual([])
  })

  it('at most one ABI mirror keeps its positional list (issue 36: done when at most one function has more than 4)', () => {
    expect(abiMirrors.size).toBeLessThanOrEqual(1)
  })
})
