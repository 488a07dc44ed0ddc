import { toFacilitatorEvmSigner } from '@x402/evm'
import { createWalletClient, http, nonceManager, publicActions, type Abi } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { devAccountKeys } from '../constants.js'
import { contractCallGas, type RelayChain } from './mode.js'
import type { RelaySigner } from './relayer.js'

/** How often viem looks for a receipt (its `http` default is 4 s; Anvil's automine has the block at once). */
const pollingIntervalMs = 50

/**
 * The plain relay (`relay: 'viem'`): what x402's own facilitator example does, and the yardstick for the tuned path
 * (chain/relay/relayer.ts). One relayer account signing locally, viem's wallet client over its `http` transport,
 * viem's `nonceManager` for nonces, its gas and fee estimates and its `waitForTransactionReceipt`; Anvil automines
 * (chain/start-chain.ts). Nothing is cached or started ahead.
 */
export function createViemRelayerSigner(chain: RelayChain): RelaySigner {
  const account = privateKeyToAccount(devAccountKeys.relayer, { nonceManager })
  const client = createWalletClient({
    account,
    chain: chain.chain,
    transport: http(chain.rpcUrl),
    pollingInterval: pollingIntervalMs,
  }).extend(publicActions)
  const signer = toFacilitatorEvmSigner({
    address: account.address,
    readContract: (args) => client.readContract({ ...args, abi: args.abi as Abi, args: args.args as unknown[] }),
    verifyTypedData: (args) => client.verifyTypedData(args as Parameters<typeof client.verifyTypedData>[0]),
    writeContract: (args) =>
      client.writeContract({
        ...args,
        gas: args.gas ?? contractCallGas,
        abi: args.abi as Abi,
        args: args.args as unknown[],
      } as Parameters<typeof client.writeContract>[0]),
    sendTransaction: (args) => client.sendTransaction(args),
    waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
    getCode: (args) => client.getCode(args),
  })
  return {
    ...signer,
    prefetch: { start() {}, take: () => undefined, clear() {} },
    sendFrom: (_from, to, data, gas) => client.sendTransaction({ to, data, gas }),
    async fund(to, value) {
      const hash = await client.sendTransaction({ to, value })
      await client.waitForTransactionReceipt({ hash })
      return hash
    },
    // A restarted or reverted chain: the nonce is read from it again.
    reset: () => nonceManager.reset({ address: account.address, chainId: chain.chainId }),
  }
}
