import type { PaymentRequirements } from '@x402/core/types'
import type { Address, Hex } from 'viem'
import type { AuthCaptureExtra, PaymentInfo } from './types.js'

/** One auth-capture payment as the scheme remembers it: enough to author its capture, void and refund. */
export type AuthCapturePaymentRecord = {
  paymentInfoHash: Hex
  network: string
  chainId: number
  escrow: Address
  paymentInfo: PaymentInfo
  saltNonce: Hex
  /** The requirements the collect settled against (the accepted deadlines, the authorized amount): every later /settle's. */
  requirements: PaymentRequirements
  flow: AuthCaptureExtra['paymentFlow']
  captureMode: AuthCaptureExtra['captureMode']
  /** What the escrow holds for it (capturable) and what was captured and may be refunded, as of its last settle. */
  capturable: string
  refundable: string
  /** The collect's transaction and the last one. */
  collectTransaction: string
  lastTransaction: string
}

/** Where the scheme keeps its payments (memory by default; a seller's database in production). */
export type AuthCaptureStore = {
  get(paymentInfoHash: Hex): AuthCapturePaymentRecord | undefined | Promise<AuthCapturePaymentRecord | undefined>
  set(record: AuthCapturePaymentRecord): void | Promise<void>
  list(): AuthCapturePaymentRecord[] | Promise<AuthCapturePaymentRecord[]>
}

/** A store in memory: the process's payments, lost when it exits. */
export function memoryAuthCaptureStore(): AuthCaptureStore {
  const records = new Map<string, AuthCapturePaymentRecord>()
  return {
    get: (hash) => records.get(hash.toLowerCase()),
    set: (record) => void records.set(record.paymentInfoHash.toLowerCase(), record),
    list: () => [...records.values()],
  }
}
