import { randomBytes } from 'node:crypto'
import { numberToHex, type Address, type Hex, type PublicClient, type TestClient } from 'viem'

/**
 * Where a chain keeps its epoch: storage slot 0 of an address no key controls. The epoch is a random id written the
 * first time svc sees a chain (a new offline chain, a fresh fork, a chain that was reset or restarted empty), so a
 * chain reloaded from its saved state keeps its epoch and any other chain has a new one. Settlements carry the epoch
 * of the chain they settled on.
 */
export const epochMarkerAddress: Address = '0x5Dc0000000000000000000000000000000005Dc0'

/** A non-empty account: one STOP byte of code, so a state dump keeps it. */
const markerCode: Hex = '0x00'

/** The chain's epoch (16 hex digits), written first when the chain has none. */
export async function getOrCreateEpoch({
  client,
  testClient,
}: {
  client: PublicClient
  testClient: TestClient
}): Promise<string> {
  const stored = await client.getStorageAt({ address: epochMarkerAddress, slot: numberToHex(0, { size: 32 }) })
  if (stored && BigInt(stored) !== 0n) return stored.slice(-16)
  const epoch = randomBytes(8).toString('hex')
  await testClient.setCode({ address: epochMarkerAddress, bytecode: markerCode })
  await testClient.setStorageAt({
    address: epochMarkerAddress,
    index: 0,
    value: numberToHex(BigInt(`0x${epoch}`), { size: 32 }),
  })
  return epoch
}
