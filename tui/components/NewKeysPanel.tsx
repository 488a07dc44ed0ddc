import { Text } from 'ink'
import { memo } from 'react'
import { fit } from '../format.js'
import type { NewApiKey } from '../model.js'
import { Line, Panel } from './Panel.js'

export type NewKeysPanelProps = {
  /** Keys `svc up --seed` made, with their secrets. */
  keys: NewApiKey[]
  width: number
  /** Say that `k` hides the banner (the dashboard's key). @defaultValue false */
  hideKey?: boolean | undefined
}

/** Lines the panel takes: a title and one line per key; none without keys. */
export function newKeysPanelLines(keys: NewApiKey[]): number {
  return keys.length ? 1 + keys.length : 0
}

/**
 * The API keys the seed made, whole (their secrets exist nowhere else: svc keeps only a hash), each with its name;
 * the title says they are shown once. Nothing without keys.
 */
export const NewKeysPanel = memo(function NewKeysPanel({ keys, width, hideKey }: NewKeysPanelProps) {
  if (!keys.length) return null
  const title = `New API key${keys.length === 1 ? '' : 's'} (seed)`
  return (
    <Panel
      title={title}
      summary={[
        ...(hideKey
          ? ['shown once: copy it now, svc keeps only a hash · k hides', 'shown once: copy it now · k hides']
          : []),
        'shown once: copy it now, svc keeps only a hash',
        'shown once: copy it now',
        'shown once',
      ]}
      width={width}
    >
      {keys.map(({ name, environment, key }) => (
        <Line key={key}>
          <Text bold color="yellow">
            {key}
          </Text>
          <Text dimColor>{`  ${fit(`${name} (${environment})`, Math.max(0, width - 2 - key.length - 2))}`}</Text>
        </Line>
      ))}
    </Panel>
  )
})
