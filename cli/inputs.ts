import { readFileSync } from 'node:fs'
import { InvalidArgumentError } from 'commander'
import { parse as parseYaml } from 'yaml'
import { UsageError } from '../core/errors.js'

/** A whole number option within bounds. */
export function parseInteger(value: string, flag: string, min: number, max: number): number {
  const number = Number(value)
  if (!/^\d+$/.test(value.trim()) || number < min || number > max)
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got "${value}"`)
  return number
}

/** `a,b , c` → [a, b, c]. */
export function parseList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
}

/** `Name: value` (or `Name=value`) headers of `--header`. */
export function parseHeaders(values: string[] = []): [string, string][] {
  return values.map((value) => {
    const match = /^([^:=\s]+)\s*[:=]\s*(.*)$/.exec(value)
    if (!match) throw new UsageError(`--header must look like "Name: value", got "${value}"`)
    return [match[1]!, match[2]!]
  })
}

/** Reads a text file a command was given; a missing file is a usage error. */
export function readTextFile(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    throw new UsageError(
      `cannot read ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    )
  }
}

/**
 * A JSON Schema given inline (`{"type": "object"}`) or as a JSON or YAML file. `null` or an empty value clears it
 * (for `endpoints update`).
 */
export function readSchema(value: string | undefined, flag: string): Record<string, unknown> | null | undefined {
  if (value === undefined) return undefined
  const trimmed = value.trim()
  if (trimmed === '' || trimmed === 'null') return null
  const text = trimmed.startsWith('{') ? trimmed : readTextFile(trimmed, `the ${flag} file`)
  let schema: unknown
  try {
    schema = parseYaml(text)
  } catch (error) {
    throw new UsageError(`${flag}: not JSON or YAML (${(error as Error).message.split('\n')[0]})`)
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw new UsageError(`${flag}: a JSON Schema must be an object`)
  return schema as Record<string, unknown>
}

/** The port flags' parser: commander answers a bad value with one line naming the flag, and exit code 2 (cli.ts). */
export function portNumber(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65_535)
    throw new InvalidArgumentError('It must be a port number (0-65535).')
  return Number(value)
}

/** SVC_PORT, the default of --port, which commander does not pass through {@link portNumber}. */
export function portFromEnv(value: string): number {
  try {
    return portNumber(value)
  } catch (error) {
    throw new UsageError(`SVC_PORT "${value}" is invalid. ${(error as Error).message}`)
  }
}
