import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { errorCodes } from '../../core/errors.js'
import { exactEvmReasonRecords, exactEvmReasons, uptoEvmReasonRecords } from '../../core/fault-reasons.js'
import {
  authCaptureEvmReasonRecords,
  batchSettlementEvmReasonRecords,
  reasonGroups,
  reasonOf,
  siwxReasonRecords,
} from '../../core/reasons.js'

const esm = join(dirname(createRequire(import.meta.url).resolve('@x402/evm')), '..', 'esm')

/**
 * The text of `@x402/evm`'s source file `file` (`src/exact/facilitator/errors.ts`), from the source map of the
 * installed build's chunk that holds it (a chunk may hold several sources): the package does not export its reason
 * constants, so a new version's codes show up here.
 */
function installedSource(file: string): string {
  for (const name of readdirSync(esm).filter((entry) => entry.endsWith('.mjs.map'))) {
    const map = JSON.parse(readFileSync(join(esm, name), 'utf8')) as { sources: string[]; sourcesContent?: string[] }
    const at = map.sources.findIndex((source) => source.endsWith(file))
    if (at >= 0 && map.sourcesContent?.[at]) return map.sourcesContent[at]
  }
  throw new Error(`${file} of @x402/evm was not found in its source maps`)
}

/** The codes `export const ErrX = "code"` defines in an errors.ts source (a re-export defines none). */
const definedCodes = (source: string): string[] =>
  [...source.matchAll(/^export const Err\w+ =\s*"([a-z0-9_]+)";$/gm)].map((match) => match[1]!)

/** The exact scheme's codes the installed build's chunk of `src/exact/facilitator/errors.ts` keeps. */
function installedExactEvmReasons(): string[] {
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

describe('the reasons of the other schemes', () => {
  test("upto's own reasons are those of the installed @x402/evm's src/upto/facilitator/errors.ts", () => {
    const installed = definedCodes(installedSource('src/upto/facilitator/errors.ts'))
    expect(installed.length).toBeGreaterThan(5)
    expect(uptoEvmReasonRecords.map((reason) => reason.code).sort()).toEqual(installed.sort())
  })

  test("every batch-settlement code of the installed @x402/evm's src/batch-settlement/errors.ts is listed", () => {
    const installed = definedCodes(installedSource('src/batch-settlement/errors.ts'))
    expect(installed.length).toBeGreaterThan(50)
    expect(batchSettlementEvmReasonRecords.map((reason) => reason.code).sort()).toEqual(installed.sort())
  })

  test("every auth-capture code of x402's EVM binding is listed (the installed @x402/evm ships no facilitator)", () => {
    // x402-foundation/x402 @3659f12, specs/schemes/auth-capture/scheme_auth_capture_evm.md: "Verification errors",
    // "Typed simulation reverts", "Settlement errors" and the policy appendix's table, `invalid_network` left to exact.
    const spec = `payload_format payload_type void_authorizer_signature void_remainder_full_capture
      unsupported_payment_flow scheme network_mismatch extra missing_receiver_authorizer unsupported_operator_type
      policy lifecycle_not_relayed operator_type_mismatch operator_not_admitted operator_mismatch salt_binding_mismatch
      authorizer_signature unauthenticated_authorizer_request unexpected_payment_state refund_funding_unavailable
      unsupported_asset_transfer_method payload_method_mismatch capture_deadline_expired refund_deadline_expired
      deadline_ordering authorization_expired authorization_not_yet_valid signature erc6492_factory_not_allowed
      amount_mismatch token_collector_mismatch token_mismatch nonce_mismatch insufficient_balance simulation_failed
      payment_already_collected token_collection_failed collector amount_overflow fee_bps fee_bps_range
      fee_bps_out_of_range zero_fee_receiver fee_receiver insufficient_authorization zero_authorization
      refund_exceeds_capture verification_failed transaction_reverted policy_denied`
      .split(/\s+/)
      .map((code) => `invalid_auth_capture_evm_${code}`)
    expect(authCaptureEvmReasonRecords.map((reason) => reason.code).sort()).toEqual(spec.sort())
    expect(reasonOf('invalid_network')).toBeDefined()
  })

  test("every sign-in-with-x code of the installed @x402/extensions is listed, with svc's own", () => {
    const types = join(dirname(createRequire(import.meta.url).resolve('@x402/extensions')), '..', 'esm')
    const text = readdirSync(types, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.mjs'))
      .map((file) => readFileSync(join(types, file), 'utf8'))
      .join('\n')
    const installed = new Set([...text.matchAll(/"(invalid_siwx_[a-z_]+)"/g)].map((match) => match[1]!))
    expect(installed.size).toBeGreaterThan(10)
    expect(siwxReasonRecords.map((reason) => reason.code).sort()).toEqual([...installed, 'invalid_siwx_header'].sort())
  })
})

describe('every reason svc answers has a meaning and a fix', () => {
  const all = reasonGroups.flatMap((group) => group.reasons)

  test('each code once, each with a one-line meaning and fix', () => {
    expect(new Set(all.map((reason) => reason.code)).size).toBe(all.length)
    for (const { code, meaning, fix } of all) {
      expect(meaning.length, code).toBeGreaterThan(15)
      expect(fix.length, code).toBeGreaterThan(10)
      expect(`${meaning}${fix}`, code).not.toMatch(/\n/)
    }
    expect(all).toEqual(expect.arrayContaining([...exactEvmReasonRecords]))
  })

  test('no reason code is also an error code', () => {
    const codes = new Set<string>(errorCodes.map((entry) => entry.code))
    expect(all.filter((reason) => codes.has(reason.code)).map((reason) => reason.code)).toEqual([])
  })

  test('every reason literal svc answers in chain/ and server/ is listed', () => {
    const root = join(import.meta.dirname, '..', '..')
    const files = ['chain', 'server'].flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
        .filter((file) => /\.ts$/.test(file))
        .map((file) => join(root, dir, file)),
    )
    const answered = new Set<string>()
    for (const file of files) {
      const text = readFileSync(file, 'utf8')
      for (const [, code] of text.matchAll(/\b(?:invalidReason|errorReason|reason): '([a-z0-9_]+)'/g))
        answered.add(code!)
      for (const [, code] of text.matchAll(/\brefused\('([a-z0-9_]+)'/g)) answered.add(code!)
      // chain/auth-capture/ writes its reasons without their common prefix (core/auth-capture/extra.ts reasonPrefix).
      if (file.includes(join('chain', 'auth-capture')))
        for (const [, code] of text.matchAll(/\b(?:refuse\(|refusedAs: )'([a-z0-9_]+)'/g))
          answered.add(code === 'invalid_network' ? code : `invalid_auth_capture_evm_${code}`)
    }
    // Not reasons of a payment: an import's (openapi-import.ts) and a cancelled reservation's (x402's cancel hook).
    for (const other of ['exists', 'handler_failed']) answered.delete(other)
    expect(answered.size).toBeGreaterThan(10)
    expect([...answered].filter((code) => !reasonOf(code))).toEqual([])
  })
})
