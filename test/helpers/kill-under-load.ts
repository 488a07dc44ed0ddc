import { decodePaymentResponseHeader } from '@x402/core/http'
import type { SvcProcess } from './svc-process.js'

export type KillUnderLoadOptions = {
  /** The running svc the first cycle pays. */
  svc: SvcProcess
  /** Starts svc again on the same data dir after a kill. */
  restart: () => Promise<SvcProcess>
  cycles: number
  /** Paid answers buyers get in a cycle before svc is killed (the load goes on while it dies). */
  paymentsPerCycle: number
  /** One paying function per buyer for this svc: its `request`-th paid request, answered by the gateway. */
  buyersOf: (svc: SvcProcess) => Promise<((request: number) => Promise<Response>)[]>
}

/**
 * Buyers pay svc until it has answered `paymentsPerCycle` more payments, then svc is killed with SIGKILL (the buyers
 * still paying) and started again; `cycles` times. Answers the svc running at the end, the transactions of the paid
 * answers buyers got (their PAYMENT-RESPONSE), and how many requests failed.
 */
export async function killUnderLoad(options: KillUnderLoadOptions) {
  const { restart, cycles, paymentsPerCycle, buyersOf } = options
  let svc = options.svc
  const answered = new Set<string>()
  let failures = 0
  for (let cycle = 0; cycle < cycles; cycle++) {
    const before = answered.size
    const dying = svc
    let stop = false
    const load = (await buyersOf(svc)).map(async (pay) => {
      for (let request = 0; !stop; request++) {
        try {
          const response = await pay(request)
          await response.arrayBuffer()
          const header = response.headers.get('payment-response')
          if (response.status === 200 && header) answered.add(decodePaymentResponseHeader(header).transaction)
          else failures++
        } catch {
          // svc died under this request (a socket error), or is gone.
          failures++
          if (dying.child.exitCode !== null || dying.child.signalCode !== null) return
        }
      }
    })
    const deadline = Date.now() + 60_000
    while (answered.size - before < paymentsPerCycle && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5))
    dying.child.kill('SIGKILL')
    await new Promise((resolve) => dying.child.once('exit', resolve))
    stop = true
    await Promise.all(load)
    svc = await restart()
  }
  return { svc, answered, failures }
}
