/**
 * The chain's file is written as a database writes its files (issue 21): a full disk leaves the last good copy, and a
 * start on a state file that does not parse takes the previous good copy and says so. The full disk is a small tmpfs
 * (root only; skipped otherwise).
 */
import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { previousStatePath, unreadableState } from '../../../chain/anvil/state-file.js'
import { startChainServices } from '../../../chain/services.js'
import { newAccount } from '../../helpers/payments.js'
import { isRoot, fillDisk, createBrokenStorage } from '../../helpers/storage-load.js'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})
const { smallDisk } = createBrokenStorage()

const newDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-chain-durable-'))
  dirs.push(dir)
  return dir
}

describe('the chain state file', () => {
  test('a state.json that does not parse: the previous good copy is loaded, and the log says so', async () => {
    const statePath = join(newDir(), 'chain', 'state.json')
    const holder = newAccount().address
    const lines: string[] = []
    const log = (line: string) => void lines.push(line)
    const first = await startChainServices({ statePath, log })
    await first.manager.fund(holder, 'usdc', '3')
    await first.stop()
    const again = await startChainServices({ statePath, log })
    await again.manager.fund(holder, 'usdc', '4')
    await again.stop()
    expect(unreadableState(previousStatePath(statePath))).toBeUndefined()
    // What a full disk made of Anvil's in-place dump: the file cut short.
    truncateSync(statePath, Math.floor(statSync(statePath).size / 2))

    const third = await startChainServices({ statePath, log })
    try {
      expect(lines.join('\n')).toMatch(
        /state\.json does not parse \(.+\): loaded the last good copy, state\.prev\.json/,
      )
      expect(BigInt((await third.manager.balances(holder)).usdc_base)).toBe(3_000_000n)
    } finally {
      await third.stop()
    }
  })

  test.skipIf(!isRoot)('a full disk: saves fail, the last good copy stays, the next start loads it', async () => {
    const { dataDir, filler } = smallDisk('4m')
    const statePath = join(dataDir, 'chain', 'state.json')
    const holder = newAccount().address
    const lines: string[] = []
    const log = (line: string) => void lines.push(line)
    const first = await startChainServices({ statePath, log })
    await first.manager.fund(holder, 'usdc', '5')
    await first.stop()
    const good = readFileSync(statePath, 'utf8')

    const again = await startChainServices({ statePath, log })
    await again.manager.fund(holder, 'usdc', '6')
    // The disk fills up: nothing is left for the chain's next write.
    fillDisk(filler)
    await again.stop()
    expect(lines.join('\n')).toMatch(/the chain could not be saved on stop: the data dir's disk is full/)
    expect(readFileSync(statePath, 'utf8')).toBe(good)

    const third = await startChainServices({ statePath, log })
    try {
      expect(BigInt((await third.manager.balances(holder)).usdc_base)).toBe(5_000_000n)
    } finally {
      await third.stop()
    }
  })
})
