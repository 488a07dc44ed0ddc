import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestClient, createWalletClient, hexToBigInt, http, publicActions } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { base } from 'viem/chains'
import { startAnvil, type AnvilProcess } from '../../../chain/anvil/anvil.js'
import { sandboxMnemonic } from '../../../chain/constants.js'
import { usdcAddress } from '../../../core/sandbox-usdc.js'
import { sandboxUsdcAbi, sandboxUsdcDeployedBytecode } from '../../../chain/contracts/sandbox-usdc.generated.js'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { newAccount, postJson, sandboxRequirements, signPayment } from '../../helpers/payments.js'

// A stand-in "mainnet" (chain id 8453) whose USDC has the EIP-712 name of Base's real USDC, "USD Coin".
let mainnet: AnvilProcess
let services: ChainServices
const owner = mnemonicToAccount(sandboxMnemonic, { addressIndex: 5 })

beforeAll(async () => {
  mainnet = await startAnvil({ chainId: 8453 })
  const transport = http(mainnet.rpcUrl)
  const chain = { ...base, rpcUrls: { default: { http: [mainnet.rpcUrl] } } }
  await createTestClient({ chain, transport, mode: 'anvil' }).setCode({
    address: usdcAddress,
    bytecode: sandboxUsdcDeployedBytecode,
  })
  const wallet = createWalletClient({ account: owner, chain, transport }).extend(publicActions)
  const hash = await wallet.writeContract({
    address: usdcAddress,
    abi: sandboxUsdcAbi,
    functionName: 'initialize',
    args: [owner.address, 'USD Coin'],
  })
  await wallet.waitForTransactionReceipt({ hash, pollingInterval: 20 })

  services = await startChainServices({ forkUrl: mainnet.rpcUrl })
})
afterAll(async () => {
  await services?.stop()
  await mainnet?.stop()
})

describe('fork mode', () => {
  test('runs at chain id 845320402 and uses the forked token as it is, its EIP-712 domain read from the chain', async () => {
    expect(await services.sandboxChain.client.getChainId()).toBe(845320402)
    expect(services.sandboxChain.mode).toBe('fork')
    expect(services.sandboxChain.usdc).toEqual({
      address: usdcAddress,
      name: 'USD Coin',
      version: '2',
      decimals: 6,
      managed: false,
    })
    const info = (await (await fetch(`${services.chainManagerUrl}/chain`)).json()) as { usdc: unknown }
    expect(info.usdc).toMatchObject({ name: 'USD Coin', version: '2' })
    // The fork had no Multicall3: the kit installed one.
    expect(
      await services.sandboxChain.client.getCode({ address: '0xcA11bde05977b3631167028862bE2a173976CA11' }),
    ).not.toBe('0x')
  })

  test('the faucet funds USDC on a token the kit does not own', async () => {
    const { address } = newAccount()
    const { status, body } = await postJson(`${services.chainManagerUrl}/faucet`, {
      address,
      asset: 'usdc',
      amount: '12',
    })
    expect(status).toBe(200)
    expect(hexToBigInt(body.balances.usdc_base)).toBe(12_000_000n)
    const again = await postJson(`${services.chainManagerUrl}/faucet`, { address, asset: 'usdc', amount: '1' })
    expect(hexToBigInt(again.body.balances.usdc_base)).toBe(13_000_000n)
  })

  test('a payment signed over the forked domain settles', async () => {
    const buyer = newAccount()
    await services.manager.fund(buyer.address, 'usdc', '5')
    const payTo = newAccount().address
    const requirements = sandboxRequirements(services.sandboxChain, { payTo, amount: '1500000' })
    expect(requirements.extra).toEqual({ name: 'USD Coin', version: '2' })
    const payload = await signPayment(services.sandboxChain, buyer, requirements)
    const settled = await postJson(`${services.facilitatorUrl}/settle`, {
      x402Version: 2,
      paymentPayload: payload,
      paymentRequirements: requirements,
    })
    expect(settled.body).toMatchObject({ success: true, payer: buyer.address })
    const balance = await services.sandboxChain.client.readContract({
      address: usdcAddress,
      abi: sandboxUsdcAbi,
      functionName: 'balanceOf',
      args: [payTo],
    })
    expect(balance).toBe(1_500_000n)
  })
})
