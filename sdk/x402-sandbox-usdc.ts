/**
 * Teaches the official `@x402/evm` that the sandbox USDC is the default asset of `eip155:845320402`, the way it
 * knows Base's USDC for `eip155:8453`. Then, in this process:
 * - buyers: `@x402/core`'s spend controls accept it (they allow the default assets of a scheme's `findDefaultAsset`),
 *   so a client built as in `@x402/fetch`'s README pays the sandbox without an `allowedAssets` entry (with the exact,
 *   upto, batch-settlement and auth-capture client schemes);
 * - sellers: `price: '$0.01'` converts to it (`getDefaultAsset`), and an `{ amount, asset }` price without `extra`
 *   gets its EIP-712 domain (name, version), which buyers need to sign (EIP-3009, or an EIP-2612 permit that lets a
 *   Permit2 payment go through without an approval), for the exact, upto and batch-settlement server schemes (a
 *   batch-settlement buyer signs its deposit by EIP-3009 with that domain).
 *
 * `@x402/evm` ships two builds and the user's process loads one or both: the ESM build shares one `DEFAULT_ASSETS`
 * table between its entry points (the table `@x402/evm` exports); the CommonJS build bundles a private copy into each
 * entry point, so each copy gets the entry as Node compiles the file. Register before the first `require` of
 * `@x402/evm` (`node --import svc/register`, or the first import of the program).
 */
import Module, { createRequire } from 'node:module'
import { dirname, sep } from 'node:path'
import type { PaymentRequirements } from '@x402/core/types'
import { DEFAULT_ASSETS } from '@x402/evm'
import { ExactEvmScheme as ExactEvmServerScheme } from '@x402/evm/exact/server'
import { UptoEvmScheme as UptoEvmServerScheme } from '@x402/evm/upto/server'
import { BatchSettlementEvmScheme as BatchSettlementServerScheme } from '@x402/evm/batch-settlement/server'
import { sandboxNetwork, sandboxUsdcDomain, usdcAddress, usdcDecimals } from '../core/sandbox-usdc.js'

/** The sandbox USDC as `@x402/evm` describes a default asset (EIP-3009, so no transfer-method override). */
export const sandboxUsdcAsset = {
  asset: usdcAddress,
  name: sandboxUsdcDomain.name,
  version: sandboxUsdcDomain.version,
  decimals: usdcDecimals,
  symbol: 'USDC',
} as const

type AssetTable = Record<string, { asset: string }[] | readonly { asset: string }[] | undefined>
type ServerSchemeClass = { prototype: Pick<ExactEvmServerScheme, 'enhancePaymentRequirements'> }

/** Adds the sandbox USDC to a `DEFAULT_ASSETS` table unless it is there. */
export function addSandboxUsdc(table: AssetTable): void {
  const entries = (table[sandboxNetwork] ?? []) as { asset: string }[]
  if (!entries.some((entry) => entry.asset.toLowerCase() === usdcAddress.toLowerCase()))
    table[sandboxNetwork] = [...entries, { ...sandboxUsdcAsset }]
}

const enhanced = new WeakSet<object>()

/**
 * The exact and upto server schemes take an `{ amount, asset }` price's `extra` as given (`{}` without one) and never
 * fill the EIP-712 domain; for the sandbox USDC this fills `name` and `version` when both are missing.
 */
export function fillSandboxUsdcDomain(scheme: ServerSchemeClass): void {
  const proto = scheme.prototype
  if (enhanced.has(proto)) return
  enhanced.add(proto)
  const enhance = proto.enhancePaymentRequirements
  proto.enhancePaymentRequirements = async function (this: unknown, ...args: Parameters<typeof enhance>) {
    const requirements: PaymentRequirements = await enhance.apply(this, args)
    const extra = requirements.extra ?? {}
    const sandboxUsdc =
      requirements.network === sandboxNetwork && requirements.asset.toLowerCase() === usdcAddress.toLowerCase()
    if (!sandboxUsdc || extra.name !== undefined || extra.version !== undefined) return requirements
    return { ...requirements, extra: { ...extra, name: sandboxUsdcAsset.name, version: sandboxUsdcAsset.version } }
  }
}

let registered = false

/** Registers the sandbox USDC with `@x402/evm`'s ESM build and every CommonJS entry point loaded from now on. Idempotent. */
export function registerSandboxUsdc(): void {
  if (registered) return
  registered = true
  addSandboxUsdc(DEFAULT_ASSETS as unknown as AssetTable)
  fillSandboxUsdcDomain(ExactEvmServerScheme)
  fillSandboxUsdcDomain(UptoEvmServerScheme)
  fillSandboxUsdcDomain(BatchSettlementServerScheme)
  registerCommonJsBuild()
}

type CompilingModule = { exports: Record<string, unknown> }
type Compile = (this: CompilingModule, content: string, filename: string, ...rest: unknown[]) => unknown

function registerCommonJsBuild(): void {
  const require = createRequire(import.meta.url)
  let cjsRoot: string
  let cjsServers: string[]
  try {
    cjsRoot = dirname(require.resolve('@x402/evm')) + sep
    cjsServers = [
      require.resolve('@x402/evm/exact/server'),
      require.resolve('@x402/evm/upto/server'),
      require.resolve('@x402/evm/batch-settlement/server'),
    ]
  } catch {
    return
  }
  /** The server scheme class a CommonJS server entry point exports. */
  const serverScheme = (exports: Record<string, unknown>) =>
    (exports.ExactEvmScheme ?? exports.UptoEvmScheme ?? exports.BatchSettlementEvmScheme) as ServerSchemeClass
  // Appended to the file's source, where its private `var DEFAULT_ASSETS` is in scope (the file's own code is ES2020).
  const patchTable = [
    '',
    ';(function (table, network, info) {',
    '  var entries = table[network] || []',
    '  var known = entries.some(function (entry) { return entry.asset.toLowerCase() === info.asset.toLowerCase() })',
    '  if (!known) table[network] = entries.concat([info])',
    `})(DEFAULT_ASSETS, ${JSON.stringify(sandboxNetwork)}, ${JSON.stringify(sandboxUsdcAsset)});`,
    '',
  ].join('\n')
  const proto = (Module as unknown as { prototype: { _compile: Compile } }).prototype
  const compile = proto._compile
  proto._compile = function (content, filename, ...rest) {
    const ours = filename.startsWith(cjsRoot) && /^var DEFAULT_ASSETS = \{/m.test(content)
    const result = compile.call(this, ours ? content + patchTable : content, filename, ...rest)
    if (cjsServers.includes(filename)) fillSandboxUsdcDomain(serverScheme(this.exports))
    return result
  }
  // Entry points required before this ran keep their private tables; the shared ones can still be reached.
  const loaded = require.cache[require.resolve('@x402/evm')]
  if (loaded) addSandboxUsdc((loaded.exports as { DEFAULT_ASSETS: AssetTable }).DEFAULT_ASSETS)
  for (const file of cjsServers) {
    const server = require.cache[file]
    if (server) fillSandboxUsdcDomain(serverScheme(server.exports as Record<string, unknown>))
  }
}
