import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { createPublicClient, createWalletClient, http, nonceManager, parseSignature, type Hex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { startChain } from '../../chain/start-chain.js'
import { sandboxMnemonic } from '../../chain/constants.js'
import { sandboxChain } from '../../chain/viem-chain.js'
import { sandboxUsdcAbi } from '../../chain/contracts/sandbox-usdc.generated.js'
import type { SandboxChain } from '../../chain/sandbox-chain.js'
import { startSvcProcess } from '../helpers/svc-process.js'
import { newAccount, sandboxRequirements, signPayment } from '../helpers/payments.js'
import { percentile, round, runPool } from './pool.js'

/** Chain ready time: Anvil started through prool and the contracts installed, over several cold starts. */
export async function benchChainReady(runs = 5) {
  const samples: number[] = []
  for (let i = 0; i < runs; i++) {
    const chain = await startChain()
    samples.push(chain.readyMs)
    await chain.stop()
  }
  return {
    runs,
    median_ms: round(percentile(samples, 50)),
    max_ms: round(Math.max(...samples)),
    samples_ms: samples.map((s) => round(s)),
    target_ms: 500,
  }
}

/**
 * Settle throughput of the facilitator as it runs under `svc up` (its own process, POST /settle over HTTP) beside
 * raw `transferWithAuthorization` sent through viem from this process (`writeContract` + `waitForTransactionReceipt`,
 * a nonce manager, 10 ms polling), on the same Anvil, at the same concurrency, with the same kind of pre-signed
 * authorization. Each side is one Node process relaying transactions to the one Anvil.
 */
export async function benchSettleThroughput({ payments = 400, concurrency = 16 } = {}) {
  const svc = await startSvcProcess()
  try {
    const { rpc_url, chain_manager_url, facilitator_url } = svc.ready
    const info = (await (await fetch(`${chain_manager_url}/chain`)).json()) as any
    const chain = {
      network: info.network,
      chainId: info.chain_id,
      usdc: { address: info.usdc.address, name: info.usdc.name, version: info.usdc.version },
      chain: sandboxChain(rpc_url),
    } as unknown as SandboxChain
    const buyer = newAccount()
    await fetch(`${chain_manager_url}/faucet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: buyer.address, asset: 'usdc', amount: '100000' }),
    })
    const payTo = newAccount().address
    const requirements = sandboxRequirements(chain, { payTo, amount: '1000' })
    const sign = () => signPayment(chain, buyer, requirements)
    const facilitatorPayloads = await Promise.all(Array.from({ length: payments }, sign))
    const rawPayloads = await Promise.all(Array.from({ length: payments }, sign))

    // Raw: viem's standard path from a separate relayer account.
    const account = mnemonicToAccount(sandboxMnemonic, { addressIndex: 2, nonceManager })
    const transport = http(rpc_url)
    const wallet = createWalletClient({ account, chain: sandboxChain(rpc_url), transport, pollingInterval: 10 })
    const reader = createPublicClient({ chain: sandboxChain(rpc_url), transport, pollingInterval: 10 })
    const raw = await runPool(rawPayloads, concurrency, async (payload) => {
      const { authorization, signature } = payload.payload as { authorization: Record<string, string>; signature: Hex }
      const { v, r, s } = parseSignature(signature)
      const hash = await wallet.writeContract({
        address: chain.usdc.address,
        abi: sandboxUsdcAbi,
        functionName: 'transferWithAuthorization',
        args: [
          authorization.from as Hex,
          authorization.to as Hex,
          BigInt(authorization.value!),
          BigInt(authorization.validAfter!),
          BigInt(authorization.validBefore!),
          authorization.nonce as Hex,
          Number(v),
          r,
          s,
        ],
      })
      const receipt = await reader.waitForTransactionReceipt({ hash, pollingInterval: 10 })
      return receipt.status === 'success'
    })

    const settle = (payload: PaymentPayload, paymentRequirements: PaymentRequirements) =>
      fetch(`${facilitator_url}/settle`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ x402Version: 2, paymentPayload: payload, paymentRequirements }),
      }).then((r) => r.json() as Promise<{ success: boolean }>)
    const facilitator = await runPool(
      facilitatorPayloads,
      concurrency,
      async (payload) => (await settle(payload, requirements)).success,
    )

    const rawOk = raw.results.filter(Boolean).length
    const facilitatorOk = facilitator.results.filter(Boolean).length
    const rawRps = (rawOk / raw.wallMs) * 1000
    const facilitatorRps = (facilitatorOk / facilitator.wallMs) * 1000
    return {
      payments,
      concurrency,
      raw_viem: {
        ok: rawOk,
        per_second: round(rawRps),
        p50_ms: round(percentile(raw.latencies, 50)),
        p95_ms: round(percentile(raw.latencies, 95)),
      },
      facilitator_settle: {
        ok: facilitatorOk,
        per_second: round(facilitatorRps),
        p50_ms: round(percentile(facilitator.latencies, 50)),
        p95_ms: round(percentile(facilitator.latencies, 95)),
      },
      ratio: round(facilitatorRps / rawRps, 2),
      target_ratio: 0.7,
    }
  } finally {
    await svc.stop()
  }
}
