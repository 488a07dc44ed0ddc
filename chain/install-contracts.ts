import { encodeFunctionData, numberToHex, type Address, type PublicClient, type TestClient } from 'viem'
import { multicall3DeployedBytecode, sandboxUsdcAbi, sandboxUsdcDeployedBytecode } from './contracts/index.js'
import { multicall3Address } from './constants.js'
import { sandboxUsdcDomain, usdcAddress as sandboxUsdcAddress, usdcDecimals } from '../core/sandbox-usdc.js'
import type { TxSender } from './relay/index.js'
import { installPermit2Contracts } from './permit2/index.js'
import { installBatchSettlementContracts } from './batch-settlement/index.js'
import { installAuthCaptureContracts } from './auth-capture/index.js'
import type { UsdcFunder, UsdcInfo } from './sandbox-chain.js'

/** The storage slot of SandboxUSDC's `_legacyAuthorizations` flag (solc's storage layout; checked by test/chain/contracts/usdc.test.ts). */
export const legacyAuthorizationsSlot = numberToHex(12, { size: 32 })

type Clients = { client: PublicClient; testClient: TestClient; minter: TxSender }

/**
 * Makes sure the chain has a USDC-compatible token at the USDC address, a Multicall3 at its canonical address, and
 * Permit2 with x402's exact and upto Permit2 proxies at theirs (chain/permit2/contracts.ts), and x402's
 * batch-settlement contract with its deposit collectors at theirs (chain/batch-settlement/contracts.ts), and
 * commerce-payments' escrow with its token collectors at both sets of v1.1 addresses, `@x402/evm`'s and the
 * specification's (chain/auth-capture/contracts.ts), for x402's `auth-capture` scheme. A token that already has
 * code (a fork, a saved chain) is used as it is: its EIP-712 name and version are read from the chain. On an offline
 * chain saved by an older svc, the token's code is brought up to this build's (its storage is kept: the layout only
 * grew, and the older record of used authorizations is still read).
 */
export async function installContracts(
  { client, testClient, minter }: Clients,
  options: {
    offline: boolean
    /** Where the token goes and its EIP-712 name (a twin's USDC). @defaultValue the Sandbox's (core/sandbox-usdc.ts) */
    usdc?: { address: Address; name: string } | undefined
  },
): Promise<UsdcInfo> {
  const usdcAddress = options.usdc?.address ?? sandboxUsdcAddress
  const usdcName = options.usdc?.name ?? sandboxUsdcDomain.name
  const [usdcCode, multicallCode] = await Promise.all([
    client.getCode({ address: usdcAddress }),
    client.getCode({ address: multicall3Address }),
    installPermit2Contracts({ client, testClient }),
    installBatchSettlementContracts({ client, testClient }),
    installAuthCaptureContracts({ client, testClient }),
  ])
  if (!multicallCode || multicallCode === '0x')
    await testClient.setCode({ address: multicall3Address, bytecode: multicall3DeployedBytecode })

  if (usdcCode && usdcCode !== '0x') {
    if (options.offline && usdcCode.toLowerCase() !== sandboxUsdcDeployedBytecode.toLowerCase()) {
      await testClient.setCode({ address: usdcAddress, bytecode: sandboxUsdcDeployedBytecode })
      // The older token kept used authorizations in `_authorizationStates`: the new code reads it too from now on.
      await testClient.setStorageAt({
        address: usdcAddress,
        index: legacyAuthorizationsSlot,
        value: numberToHex(1, { size: 32 }),
      })
    }
    const [name, version, decimals] = await Promise.all([
      client.readContract({ address: usdcAddress, abi: sandboxUsdcAbi, functionName: 'name' }),
      client.readContract({ address: usdcAddress, abi: sandboxUsdcAbi, functionName: 'version' }).catch(() => {
        throw new Error(`the token at ${usdcAddress} on the forked chain has no version(): it is not EIP-3009 USDC`)
      }),
      client.readContract({ address: usdcAddress, abi: sandboxUsdcAbi, functionName: 'decimals' }),
    ])
    return { address: usdcAddress, name, version, decimals, managed: false }
  }

  await testClient.setCode({ address: usdcAddress, bytecode: sandboxUsdcDeployedBytecode })
  const hash = await minter.send({
    to: usdcAddress,
    data: encodeFunctionData({
      abi: sandboxUsdcAbi,
      functionName: 'initialize',
      args: [minter.address, usdcName],
    }),
    gas: 500_000n,
  })
  const receipt = await minter.waitForReceipt(hash)
  if (receipt.status !== 'success') throw new Error('initializing the sandbox USDC failed')
  return {
    address: usdcAddress,
    name: usdcName,
    version: sandboxUsdcDomain.version,
    decimals: usdcDecimals,
    managed: true,
  }
}

/**
 * Funds addresses with USDC: by minting when the kit owns the token, otherwise (a forked token) with Anvil's
 * `anvil_dealERC20`, which finds the token's balance slot and writes it.
 */
export function createUsdcFunder({ client, testClient, minter }: Clients, usdc: () => UsdcInfo): UsdcFunder {
  return {
    async fund(address, amount) {
      const token = usdc()
      if (token.managed) {
        const hash = await minter.send({
          to: token.address,
          data: encodeFunctionData({ abi: sandboxUsdcAbi, functionName: 'mint', args: [address, amount] }),
          gas: 120_000n,
        })
        const receipt = await minter.waitForReceipt(hash)
        if (receipt.status !== 'success') throw new Error(`minting USDC failed (${hash})`)
        return { transaction: hash }
      }
      const current = await client.readContract({
        address: token.address,
        abi: sandboxUsdcAbi,
        functionName: 'balanceOf',
        args: [address],
      })
      await testClient.request({
        method: 'anvil_dealERC20' as never,
        params: [address, token.address, numberToHex(current + amount)] as never,
      })
      return {}
    },
  }
}
