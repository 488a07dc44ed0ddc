import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { expect, test } from 'vitest'
import { exactEvmReasons } from '../../core/fault-reasons.js'

/**
 * `@x402/evm` keeps the exact scheme's reasons in `src/exact/facilitator/errors.ts` without exporting them: the
 * installed build's chunk of that file (named by its source map) is read, so a new version's codes show up here.
 */
function installedExactEvmReasons(): string[] {
  const esm = join(dirname(createRequire(import.meta.url).resolve('@x402/evm')), '..', 'esm')
  for (const name of readdirSync(esm).filter((file) => file.endsWith('.mjs.map'))) {
    const map = JSON.parse(readFileSync(join(esm, name), 'utf8')) as { sources: string[] }
    if (map.sources.length !== 1 || !map.sources[0]!.endsWith('src/exact/facilitator/errors.ts')) continue
    const code = readFileSync(join(esm, name.replace(/\.map$/, '')), 'utf8')
    return [...code.matchAll(/^var Err\w+ =\s*"([a-z0-9_]+)";$/gm)].map((match) => match[1]!)
  }
  throw new Error('the exact EVM facilitator errors of @x402/evm were not found')
}

test('the fault reasons are the exact EVM facilitator reasons of the installed @x402/evm, plus svc facilitator own', () => {
  const installed = installedExactEvmReasons()
  expect(installed.length).toBeGreaterThan(40)
  const svcOwn = [
    'invalid_payload',
    'invalid_payment_requirements',
    'invalid_network',
    'unsupported_scheme',
    'invalid_x402_version',
    'erc20_approval_tx_wrong_chain',
    'erc20_approval_tx_has_value',
    'erc20_approval_tx_gas_too_high',
    'erc20_approval_tx_fee_too_high',
    'erc20_approval_tx_fee_too_low',
    'erc20_approval_amount_too_low',
    'erc20_approval_amount_mismatch',
    'erc20_approval_tx_wrong_nonce',
  ]
  expect([...exactEvmReasons].sort()).toEqual([...installed, ...svcOwn].sort())
})
