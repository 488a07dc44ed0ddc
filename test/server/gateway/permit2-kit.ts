/**
 * What the gateway's Permit2 tests (exact and upto through Permit2, eip2612 and erc20-approval gas sponsoring) start
 * with: buyers of the official client (`x402Client` + `@x402/evm`'s exact and upto schemes with an RPC URL, as
 * @x402/evm's README shows) that record what they sent, the accepts, and the allowance. `startGatewayStack({ permit2:
 * true })` gives it as the stack's `permit2`.
 */
import { x402Client } from '@x402/core/client'
import type { PaymentPayload } from '@x402/core/types'
import { PERMIT2_ADDRESS } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { UptoEvmScheme } from '@x402/evm/upto/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { createWalletClient, erc20Abi, http, maxUint256, type Address, type LocalAccount } from 'viem'
import type { ChainServices } from '../../../chain/services.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import { newAccount } from '../../helpers/payments.js'

/** The Permit2 buyers and accepts on `services`' Sandbox chain. */
export function createPermit2Kit(services: ChainServices) {
  const chain = services.sandboxChain
  const exact = (amount: string, extra?: Record<string, unknown>) => ({
    scheme: 'exact',
    network: chain.network,
    asset: chain.usdc.address,
    amount,
    max_timeout_seconds: 300,
    ...(extra ? { extra } : {}),
  })
  return {
    chain,
    /** Exact through Permit2: the 402 declares both gas sponsoring extensions. */
    permit2Accept: (amount: string) => exact(amount, { assetTransferMethod: 'permit2' }),
    /** Exact through Permit2 whose 402 declares erc20ApprovalGasSponsoring only. */
    sponsoredAccept: (amount: string) =>
      exact(amount, { assetTransferMethod: 'permit2', gasSponsoring: 'erc20ApprovalGasSponsoring' }),
    /** Upto (always Permit2); `extra` as given. */
    uptoAccept: (amount: string, extra?: Record<string, unknown>) => ({ ...exact(amount, extra), scheme: 'upto' }),
    /**
     * A buyer with 10 USDC, no approval, and ETH only when `gas`, paying with the official client (both schemes
     * registered); `sent` records every payment payload it sent.
     */
    async newBuyer(options: { gas?: boolean } = {}) {
      const account = newAccount()
      await services.manager.fund(account.address, 'usdc', '10')
      if (options.gas) await services.manager.fund(account.address, 'eth', '1')
      const client = new x402Client()
        .register(chain.network, new ExactEvmScheme(account, { rpcUrl: services.rpcUrl }))
        .register(chain.network, new UptoEvmScheme(account, { rpcUrl: services.rpcUrl }))
      client.setSpendControls({
        allowedAssets: [{ network: chain.network, asset: chain.usdc.address, maxAmountPerPayment: '10000000' }],
      })
      const sent: PaymentPayload[] = []
      const recording = (async (input: string | URL | Request, init?: RequestInit) => {
        const signature = new Request(input, init).headers.get('payment-signature')
        if (signature) sent.push(JSON.parse(Buffer.from(signature, 'base64').toString()))
        return localFetch(input, init)
      }) as typeof fetch
      return { account, client, pay: wrapFetchWithPayment(recording, client), sent }
    },
    /** `account` approves Permit2 for all its USDC, itself (it needs ETH). */
    async approvePermit2(account: LocalAccount) {
      const wallet = createWalletClient({ account, chain: chain.chain, transport: http(services.rpcUrl) })
      const hash = await wallet.writeContract({
        address: chain.usdc.address,
        abi: erc20Abi,
        functionName: 'approve',
        args: [PERMIT2_ADDRESS, maxUint256],
      })
      await chain.client.waitForTransactionReceipt({ hash })
    },
    /** What Permit2 may spend of `owner`'s USDC. */
    allowanceOf: (owner: Address) =>
      chain.client.readContract({
        address: chain.usdc.address,
        abi: erc20Abi,
        functionName: 'allowance',
        args: [owner, PERMIT2_ADDRESS],
      }),
  }
}

export type Permit2Kit = ReturnType<typeof createPermit2Kit>
export type Permit2Buyer = Awaited<ReturnType<Permit2Kit['newBuyer']>>
