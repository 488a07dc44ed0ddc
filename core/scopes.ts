/**
 * The API-key scopes: the spec's nine, and `payments:write` (issue 39: the escrow lifecycle writes, capture, void
 * and refund of `POST /payments/{id}/…`; reading payments is `settlements:read`).
 */
export const scopes = [
  'apis:read',
  'apis:write',
  'endpoints:read',
  'endpoints:write',
  'domains:read',
  'domains:write',
  'stats:read',
  'settlements:read',
  'openapi:read',
  'payments:write',
] as const

export type Scope = (typeof scopes)[number]

export const presets = {
  readonly: ['apis:read', 'endpoints:read', 'domains:read', 'stats:read', 'settlements:read', 'openapi:read'],
  apiManager: [
    'apis:read',
    'apis:write',
    'endpoints:read',
    'endpoints:write',
    'domains:read',
    'domains:write',
    'openapi:read',
    'payments:write',
  ],
  analytics: ['stats:read', 'settlements:read'],
} as const satisfies Record<string, readonly Scope[]>

export type Preset = keyof typeof presets

export const isScope = (value: string): value is Scope => (scopes as readonly string[]).includes(value)
export const isPreset = (value: string): value is Preset => Object.hasOwn(presets, value)
