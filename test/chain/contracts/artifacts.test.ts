import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { compileContracts, contracts } from '../../../chain/contracts/compile.js'
import { firstDifference } from '../../helpers/first-difference.js'

const generatedDir = join(dirname(fileURLToPath(import.meta.url)), '../../../chain/contracts')
const rebuildHint = 'run `npm run build:contracts` and commit chain/contracts/'

describe('generated contract artifacts', () => {
  test('are exactly what the Solidity sources compile to', { timeout: 60_000 }, () => {
    const modules = compileContracts()
    expect([...modules.keys()].sort()).toEqual(contracts.map((c) => c.fileName).sort())

    const problems: string[] = []
    for (const [fileName, text] of modules) {
      const path = join(generatedDir, fileName)
      if (!existsSync(path)) {
        problems.push(`chain/contracts/${fileName} is missing`)
        continue
      }
      const committed = readFileSync(path, 'utf8')
      if (committed !== text)
        problems.push(`chain/contracts/${fileName} is stale (${firstDifference(text, committed, 'compiled')})`)
    }
    expect(
      problems,
      `The committed contract artifacts do not match the sources: ${rebuildHint}.\n${problems.join('\n')}`,
    ).toEqual([])
  })

  test('contain no artifact that no source produces', () => {
    const expected = new Set<string>(contracts.map((c) => c.fileName))
    const orphans = readdirSync(generatedDir).filter((f) => f.endsWith('.generated.ts') && !expected.has(f))
    expect(orphans, `chain/contracts/ has files compile.ts does not produce: delete them and ${rebuildHint}`).toEqual(
      [],
    )
  })
})
