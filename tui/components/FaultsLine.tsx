import { Text } from 'ink'
import { memo } from 'react'
import type { Fault } from '../../sdk/types.js'

export type FaultsLineProps = {
  /** The faults in force (`svc fault list`); none (or unknown): the line is not drawn. */
  faults: Fault[] | undefined
}

/** `verify invalid_exact_evm_signature`, `settle +400 ms`, `upstream 503`, `upstream drop`: what a fault does, short. */
export function faultSummary(fault: Fault): string {
  const effect =
    fault.kind === 'upstream'
      ? fault.drop
        ? 'drop'
        : fault.status !== null
          ? String(fault.status)
          : `+${fault.delay_ms} ms`
      : [fault.delay_ms !== null ? `+${fault.delay_ms} ms` : '', fault.reason ?? ''].filter(Boolean).join(' ')
  const scope = [fault.api, fault.remaining !== null ? `${fault.remaining} left` : ''].filter(Boolean).join(', ')
  return `${fault.kind} ${effect}${scope ? ` (${scope})` : ''}`
}

/** How many lines {@link FaultsLine} takes: one while a fault is in force. */
export const faultsLineLines = (faults: Fault[] | undefined) => (faults?.length ? 1 : 0)

/** One line under the services' while faults are injected (`svc fault add`): each fault in force, in short. */
export const FaultsLine = memo(function FaultsLine({ faults }: FaultsLineProps) {
  if (!faults?.length) return null
  return (
    <Text wrap="truncate-end">
      <Text color="yellow">{`  faults in force (${faults.length}) `}</Text>
      <Text>{faults.map(faultSummary).join(' · ')}</Text>
    </Text>
  )
})
