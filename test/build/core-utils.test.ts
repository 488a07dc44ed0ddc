/**
 * The `svc` bundle's @x402/core base64 (patches/x402-core-utils.js): the package bundled with the plugin, as
 * bin/build.js does, encodes every string as the package does, decodes canonical base64 through Buffer to the
 * package's own string (malformed UTF-8 and a byte order mark included), and leaves any other input to the package's
 * code: the same answer, or the same error. The headers' own codecs (`PAYMENT-SIGNATURE`, `PAYMENT-RESPONSE`) agree.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import * as http from '@x402/core/http'
import * as utils from '@x402/core/utils'
import { build } from 'esbuild'
import { afterAll, beforeAll, expect, test } from 'vitest'
// @ts-expect-error: a JavaScript module of the build, without declarations
import { x402CoreUtilsPatch } from '../../patches/x402-core-utils.js'

type Bundled = typeof utils &
  Pick<typeof http, 'decodePaymentSignatureHeader' | 'encodePaymentResponseHeader'> & {
    svcBufferBase64: boolean
    svcNetworkPatternCount(): number
  }

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true })
const dir = mkdtempSync(join(root, 'node_modules', '.cache', 'svc-base64-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let bundled: Bundled
beforeAll(async () => {
  // The functions come through the package's entries; the patch's flag from the chunk that defines them.
  const esm = join(root, 'node_modules', '@x402', 'core', 'dist', 'esm')
  const chunk = readdirSync(esm).find(
    (name) => name.endsWith('.mjs') && readFileSync(join(esm, name), 'utf8').includes('function safeBase64Encode('),
  )!
  const entry = join(dir, 'entry.js')
  writeFileSync(
    entry,
    [
      `export { safeBase64Encode, safeBase64Decode, networkMatchesPattern } from '@x402/core/utils'`,
      `export { decodePaymentSignatureHeader, encodePaymentResponseHeader } from '@x402/core/http'`,
      `export { svcBufferBase64, svcNetworkPatternCount } from ${JSON.stringify(join(esm, chunk))}`,
    ].join('\n'),
  )
  const result = await build({
    entryPoints: [entry],
    outfile: join(dir, 'out.mjs'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    nodePaths: [join(root, 'node_modules')],
    plugins: [x402CoreUtilsPatch],
    write: true,
    logLevel: 'silent',
  })
  expect(result.warnings).toEqual([])
  bundled = (await import(pathToFileURL(join(dir, 'out.mjs')).href)) as Bundled
})

/** What `run` answers, or the error it throws (its class and message). */
const outcome = (run: () => unknown) => {
  try {
    return { value: run() }
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` }
  }
}

test('the bundle encodes every string as the package does, through Buffer', () => {
  expect(bundled.svcBufferBase64).toBe(true)
  const strings = [
    '',
    'a',
    'ab',
    'abc',
    JSON.stringify({ x402Version: 2, payload: { signature: `0x${'ab'.repeat(65)}` } }),
    'café ☕ 𝄞 — ünïcødé',
    'lone surrogates \ud800 and \udfff',
    '\ufeffa byte order mark',
    'x'.repeat(10_000),
    String.fromCharCode(...Array.from({ length: 256 }, (_, i) => i)),
  ]
  for (const text of strings) expect(bundled.safeBase64Encode(text)).toBe(utils.safeBase64Encode(text))
})

test('the bundle decodes canonical base64 to the package’s string, and anything else as the package does', () => {
  const samples: string[] = []
  // Random bytes: malformed UTF-8 among them, each length's padding.
  let seed = 7
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % 256
  for (let length = 0; length < 200; length++)
    samples.push(Buffer.from(Array.from({ length }, random)).toString('base64'))
  samples.push(
    Buffer.from('\ufeff{"a":1}').toString('base64'),
    Buffer.from([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x41]).toString('base64'),
    Buffer.from([0xf0, 0x9f, 0x98]).toString('base64'),
    Buffer.from([0xc0, 0xaf, 0xed, 0xa0, 0x80, 0xff]).toString('base64'),
    // Non-zero bits after the last character's data: both readers drop them.
    'QR==',
    'QUJ=',
  )
  // Not canonical: the package's own code answers (or throws) for these.
  samples.push('a', 'ab=', 'abcde', 'ab c', 'ab-_', 'a===', '====', '=', 'ab==ab==', 'QUJD\n', 'QU JD', '*', 'é')
  for (const text of samples)
    expect(outcome(() => bundled.safeBase64Decode(text))).toEqual(outcome(() => utils.safeBase64Decode(text)))
})

test("the headers' codecs agree with the package's", () => {
  const payload = {
    x402Version: 2,
    accepted: { scheme: 'batch-settlement', network: 'eip155:84532', amount: '100', asset: `0x${'1'.repeat(40)}` },
    payload: { type: 'voucher', voucher: { channelId: `0x${'2'.repeat(64)}`, maxClaimableAmount: '300' } },
  }
  const header = http.encodePaymentSignatureHeader(payload as never)
  expect(bundled.decodePaymentSignatureHeader(header)).toEqual(http.decodePaymentSignatureHeader(header))
  for (const broken of ['', 'e30', 'e30=x', 'not base64!', Buffer.from('{').toString('base64')])
    expect(outcome(() => bundled.decodePaymentSignatureHeader(broken))).toEqual(
      outcome(() => http.decodePaymentSignatureHeader(broken)),
    )
  const settled = {
    success: true,
    transaction: '',
    network: 'eip155:84532',
    payer: `0x${'3'.repeat(40)}`,
    extensionResponses: {},
  }
  expect(bundled.encodePaymentResponseHeader(settled as never)).toBe(http.encodePaymentResponseHeader(settled as never))
})

test('a network pattern matches as the package’s, compiled once per pattern', () => {
  const patterns = ['eip155:*', 'eip155:84532', 'solana:*', '*', 'eip155:8453*', 'a.b:*', 'eip155:(1|2)', 'x[y]:*']
  const networks = [
    'eip155:84532',
    'eip155:8453',
    'eip155:1',
    'solana:mainnet',
    'a.b:c',
    'aXb:c',
    'eip155:(1|2)',
    'x[y]:z',
  ]
  for (let round = 0; round < 2; round++)
    for (const pattern of patterns)
      for (const network of networks)
        expect(bundled.networkMatchesPattern(pattern as never, network as never)).toBe(
          utils.networkMatchesPattern(pattern as never, network as never),
        )
  expect(bundled.svcNetworkPatternCount()).toBe(patterns.length)
  // Not a string: the package's own answer or error.
  expect(outcome(() => bundled.networkMatchesPattern(undefined as never, 'eip155:1' as never))).toEqual(
    outcome(() => utils.networkMatchesPattern(undefined as never, 'eip155:1' as never)),
  )
})
