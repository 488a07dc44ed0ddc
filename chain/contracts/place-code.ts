import type { Address, Hex, PublicClient, TestClient } from 'viem'

/** A contract's runtime code and the address it runs at. */
export type ContractCode = { address: Address; bytecode: Hex }

/** What places code: a chain's public client and its test client (Anvil's `anvil_*` methods). */
export type CodeClients = { client: PublicClient; testClient: TestClient }

/**
 * Places each contract's runtime code at its address with `anvil_setCode`, all at once: for contracts whose
 * constructors set nothing but immutables (written into the runtime code beforehand), the runtime code is all they
 * need. An address that already has code (a forked chain with the real deployment) keeps its own.
 */
export async function placeContractCode(
  { client, testClient }: CodeClients,
  contracts: readonly ContractCode[],
): Promise<void> {
  await Promise.all(
    contracts.map(async ({ address, bytecode }) => {
      const code = await client.getCode({ address })
      if (!code || code === '0x') await testClient.setCode({ address, bytecode })
    }),
  )
}
