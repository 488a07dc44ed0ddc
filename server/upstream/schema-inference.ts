/**
 * Minimal schema inference for endpoints created without schemas (schema_source `inferred`).
 *
 * request_schema: an envelope describing the request, or null when there is nothing to describe (no path
 * parameters and a method without a body):
 *
 *   { type: 'object', $comment: inferredRequestComment,
 *     properties: { path: { type: 'object', properties: { <name>: { type: 'string' } }, required: [<names>], additionalProperties: false },
 *                   body: { type: 'object' } },
 *     required: ['path', 'body'] }
 *
 * `path` is present when the pattern has `{name}` parameters, `body` for POST, PUT and PATCH.
 *
 * response_schema: for GET, inferred from one bounded probe of the upstream (a JSON 2xx answer), else `{}`;
 * `{}` for the other methods, null for HEAD.
 */

import { fillPathPattern, pathParameters } from '../../core/path-pattern.js'
import { Agent, fetch, type Response } from 'undici'
import { createUpstreamConnector } from './own-listeners.js'
import type { AddressRefusal } from './own-listeners.js'

/** Marks an inferred request envelope (see the module comment). */
export const inferredRequestComment =
  'svc inferred request: properties.path = path parameters, properties.body = JSON body'

export type JsonSchema = Record<string, unknown>

const bodyMethods = new Set(['POST', 'PUT', 'PATCH'])
const defaultProbeTimeoutMs = 2000
const probeMaxBytes = 256 * 1024
const maxDepth = 32

export function inferredRequestSchema(method: string, pathPattern: string): JsonSchema | null {
  const parameters = pathParameters(pathPattern)
  const hasBody = bodyMethods.has(method)
  if (parameters.length === 0 && !hasBody) return null
  const properties: Record<string, JsonSchema> = {}
  const requiredParts: string[] = []
  if (parameters.length > 0) {
    properties.path = {
      type: 'object',
      properties: Object.fromEntries(parameters.map((name) => [name, { type: 'string' }])),
      required: parameters,
      additionalProperties: false,
    }
    requiredParts.push('path')
  }
  if (hasBody) {
    properties.body = { type: 'object' }
    requiredParts.push('body')
  }
  return { type: 'object', $comment: inferredRequestComment, properties, required: requiredParts }
}

/** A JSON Schema describing one JSON value: objects, arrays (from their first element) and primitives. */
export function inferJsonSchema(value: unknown, depth = 0): JsonSchema {
  if (depth > maxDepth) return {}
  if (value === null) return { type: 'null' }
  switch (typeof value) {
    case 'string':
      return { type: 'string' }
    case 'boolean':
      return { type: 'boolean' }
    case 'number':
      return { type: Number.isInteger(value) ? 'integer' : 'number' }
    case 'object':
      if (Array.isArray(value))
        return value.length === 0 ? { type: 'array' } : { type: 'array', items: inferJsonSchema(value[0], depth + 1) }
      {
        const keys = Object.keys(value)
        return {
          type: 'object',
          // fromEntries defines own properties, so a `__proto__` key stays data.
          properties: Object.fromEntries(
            keys.map((key) => [key, inferJsonSchema((value as Record<string, unknown>)[key], depth + 1)]),
          ),
          required: keys,
        }
      }
    default:
      return {}
  }
}

/** The URL one probe asks: parameters replaced by `1`, a trailing `*` dropped. */
export function probeUrl(upstreamBaseUrl: string, pathPattern: string): string {
  const path = fillPathPattern(pathPattern, () => '1')
  return `${upstreamBaseUrl.replace(/\/+$/, '')}${path}`
}

export type ProbeOptions = {
  /** Whether the probe may request `url` (the first one and each redirect's target). @defaultValue any */
  allowed?: ((url: string) => Promise<boolean>) | undefined
  /**
   * svc's own listeners by port: a connection that lands on one of them (a name that resolved elsewhere when `allowed`
   * asked: DNS rebinding) is closed before the request is written, by the connector the gateway uses. @defaultValue none
   */
  ownListeners?: (() => ReadonlyMap<number, string>) | undefined
  /** More addresses a connection may not land on (svc serve). @defaultValue none */
  refuse?: AddressRefusal | undefined
  /** How long the whole probe may take (tests shorten it). @defaultValue 2000 */
  timeoutMs?: number | undefined
}

/** Redirects the probe follows at most. */
const probeMaxRedirects = 5

/**
 * One GET of the upstream: the parsed JSON of a 2xx JSON answer within 2 s (`timeoutMs`) and 256 KB, else undefined. Redirects are
 * followed (at most 5, http and https only) only onto URLs that `allowed` accepts. Never throws.
 */
export async function probeJson(url: string, options: ProbeOptions = {}): Promise<unknown> {
  const timeoutMs = options.timeoutMs ?? defaultProbeTimeoutMs
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), timeoutMs)
  const dispatcher = new Agent({
    connect: createUpstreamConnector(options.ownListeners, { timeoutMs, refuse: options.refuse }),
  })
  try {
    let response: Response | undefined
    for (let hop = 0; hop <= probeMaxRedirects; hop++) {
      if (!/^https?:$/.test(new URL(url).protocol) || (options.allowed && !(await options.allowed(url))))
        return undefined
      response = await fetch(url, {
        dispatcher,
        signal: controller.signal,
        headers: { accept: 'application/json' },
        redirect: 'manual',
      })
      const location = response.headers.get('location')
      if (response.status < 300 || response.status >= 400 || !location) break
      await response.body?.cancel()
      url = new URL(location, url).href
      response = undefined
    }
    if (!response) return undefined
    const contentType = response.headers.get('content-type') ?? ''
    const declared = Number(response.headers.get('content-length') ?? 0)
    if (!response.ok || !/\bjson\b|\+json/i.test(contentType) || !response.body || declared > probeMaxBytes) {
      controller.abort()
      return undefined
    }
    const reader = response.body.getReader()
    const chunks: Uint8Array[] = []
    let total = 0
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      total += value.byteLength
      if (total > probeMaxBytes) {
        controller.abort()
        return undefined
      }
      chunks.push(value)
    }
    return JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    return undefined
  } finally {
    clearTimeout(timer)
    void dispatcher.destroy().catch(() => {})
  }
}

/** Both inferred schemas of an endpoint (see the module comment). */
export async function inferSchemas(
  upstreamBaseUrl: string,
  method: string,
  pathPattern: string,
  options: ProbeOptions = {},
): Promise<{ request_schema: JsonSchema | null; response_schema: JsonSchema | null }> {
  const request_schema = inferredRequestSchema(method, pathPattern)
  if (method === 'HEAD') return { request_schema, response_schema: null }
  if (method !== 'GET') return { request_schema, response_schema: {} }
  const value = await probeJson(probeUrl(upstreamBaseUrl, pathPattern), options)
  return { request_schema, response_schema: value === undefined ? {} : inferJsonSchema(value) }
}
