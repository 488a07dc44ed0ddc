/**
 * Compiles the sandbox contracts with solc-js (offline) into `<name>.generated.ts` beside them.
 * Run `npm run build:contracts` after editing a `.sol` file; a test checks that the committed artifacts are
 * exactly what the sources compile to.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const here = dirname(fileURLToPath(import.meta.url))

/** The contracts the kit installs, by source file and contract name. */
export const contracts = [
  { file: 'SandboxUSDC.sol', name: 'SandboxUSDC', exportName: 'sandboxUsdc', fileName: 'sandbox-usdc.generated.ts' },
  { file: 'Multicall3.sol', name: 'Multicall3', exportName: 'multicall3', fileName: 'multicall3.generated.ts' },
  { file: 'Permit2.sol', name: 'Permit2', exportName: 'permit2', fileName: 'permit2.generated.ts' },
  {
    file: 'X402ExactPermit2Proxy.sol',
    name: 'X402ExactPermit2Proxy',
    exportName: 'x402ExactPermit2Proxy',
    fileName: 'x402-exact-permit2-proxy.generated.ts',
  },
  {
    file: 'X402UptoPermit2Proxy.sol',
    name: 'X402UptoPermit2Proxy',
    exportName: 'x402UptoPermit2Proxy',
    fileName: 'x402-upto-permit2-proxy.generated.ts',
  },
  {
    file: 'X402BatchSettlement.sol',
    name: 'X402BatchSettlement',
    exportName: 'x402BatchSettlement',
    fileName: 'x402-batch-settlement.generated.ts',
  },
  {
    file: 'ERC3009DepositCollector.sol',
    name: 'ERC3009DepositCollector',
    exportName: 'erc3009DepositCollector',
    fileName: 'erc3009-deposit-collector.generated.ts',
  },
  {
    file: 'Permit2DepositCollector.sol',
    name: 'Permit2DepositCollector',
    exportName: 'permit2DepositCollector',
    fileName: 'permit2-deposit-collector.generated.ts',
  },
  {
    file: 'AuthCaptureEscrow.sol',
    name: 'AuthCaptureEscrow',
    exportName: 'authCaptureEscrow',
    fileName: 'auth-capture-escrow.generated.ts',
  },
  {
    file: 'AuthCaptureEscrow.sol',
    name: 'TokenStore',
    exportName: 'authCaptureTokenStore',
    fileName: 'auth-capture-token-store.generated.ts',
  },
  {
    file: 'AuthCaptureCollectors.sol',
    name: 'ERC3009PaymentCollector',
    exportName: 'erc3009PaymentCollector',
    fileName: 'erc3009-payment-collector.generated.ts',
  },
  {
    file: 'AuthCaptureCollectors.sol',
    name: 'Permit2PaymentCollector',
    exportName: 'permit2PaymentCollector',
    fileName: 'permit2-payment-collector.generated.ts',
  },
  {
    file: 'AuthCaptureCollectors.sol',
    name: 'OperatorRefundCollector',
    exportName: 'operatorRefundCollector',
    fileName: 'operator-refund-collector.generated.ts',
  },
] as const

type SolcOutput = {
  errors?: { severity: string; formattedMessage: string }[]
  sources: Record<string, { ast: AstNode }>
  contracts: Record<
    string,
    Record<
      string,
      {
        abi: unknown[]
        evm: {
          bytecode: { object: string }
          deployedBytecode: {
            object: string
            immutableReferences: Record<string, { start: number; length: number }[]>
          }
        }
      }
    >
  >
}
type AstNode = { id?: number; nodeType?: string; name?: string; [key: string]: unknown }

/** The names of the variables declared in the sources' ASTs, by AST id (solc keys immutables by their id). */
function declarationNames(output: SolcOutput): Map<number, string> {
  const names = new Map<number, string>()
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) for (const item of value) visit(item)
    else if (value && typeof value === 'object') {
      const node = value as AstNode
      if (node.nodeType === 'VariableDeclaration' && typeof node.id === 'number') names.set(node.id, node.name!)
      for (const child of Object.values(node)) visit(child)
    }
  }
  for (const source of Object.values(output.sources)) visit(source.ast)
  return names
}

/**
 * Where a contract's immutables sit in its runtime code, by name: the byte offsets of each 32-byte word the
 * constructor would fill. The kit does not run constructors: it installs runtime code with `anvil_setCode`, writing
 * the immutables' values at these offsets (chain/auth-capture/contracts.ts).
 */
function immutableOffsets(
  references: Record<string, { start: number; length: number }[]>,
  names: Map<number, string>,
): Record<string, number[]> {
  return Object.fromEntries(
    Object.entries(references).map(([id, places]) => {
      if (places.some((place) => place.length !== 32)) throw new Error(`immutable ${id} is not one 32-byte word`)
      return [names.get(Number(id)) ?? id, places.map((place) => place.start)]
    }),
  )
}

/** Compiles every contract and returns the TypeScript module text for each, keyed by output file name. */
export function compileContracts(): Map<string, string> {
  const solc = require('solc') as { compile(input: string): string; version(): string }
  const input = {
    language: 'Solidity',
    // Every source in the folder, so contracts can import shared ones (X402Permit2ProxyBase.sol).
    sources: Object.fromEntries(
      readdirSync(here)
        .filter((file) => file.endsWith('.sol'))
        .sort()
        .map((file) => [file, { content: readFileSync(join(here, file), 'utf8') }]),
    ),
    settings: {
      optimizer: { enabled: true, runs: 10_000 },
      evmVersion: 'cancun',
      outputSelection: {
        '*': {
          '': ['ast'],
          '*': [
            'abi',
            'evm.bytecode.object',
            'evm.deployedBytecode.object',
            'evm.deployedBytecode.immutableReferences',
          ],
        },
      },
    },
  }
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`)

  const names = declarationNames(output)
  const modules = new Map<string, string>()
  for (const c of contracts) {
    const out = output.contracts[c.file]![c.name]!
    const immutables = out.evm.deployedBytecode.immutableReferences
    const text =
      `// Generated by chain/contracts/compile.ts from ${c.file} with solc ${solc.version()}. Do not edit.\n` +
      `export const ${c.exportName}Abi = ${JSON.stringify(out.abi, null, 2)} as const\n\n` +
      `export const ${c.exportName}Bytecode = '0x${out.evm.bytecode.object}' as const\n\n` +
      `export const ${c.exportName}DeployedBytecode = '0x${out.evm.deployedBytecode.object}' as const\n` +
      (Object.keys(immutables).length === 0
        ? ''
        : "\n/** Byte offsets of each immutable's 32-byte words in the runtime code, by name. */\n" +
          `export const ${c.exportName}Immutables = ${JSON.stringify(immutableOffsets(immutables, names))} as const\n`)
    modules.set(c.fileName, text)
  }
  return modules
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const [file, text] of compileContracts()) {
    writeFileSync(join(here, file), text)
    console.log(`wrote chain/contracts/${file}`)
  }
}
