import { z } from 'zod'
import { isPreset, isScope, presets, scopes, type Scope } from '../scopes.js'

/** POST /auth/api-keys (the seed file's check applies it to its keys too: sdk/seed.ts). */
export const createKeySchema = z
  .strictObject({
    name: z
      .string({ error: 'expected a string' })
      .trim()
      .min(1, { error: 'must not be empty' })
      .max(100, { error: 'at most 100 characters' }),
    scopes: z
      .array(z.string({ error: 'expected scope names' }), { error: 'expected an array of scope names' })
      .max(20)
      .optional(),
    preset: z.string({ error: 'expected a preset name' }).optional(),
  })
  .refine((body) => body.scopes !== undefined || body.preset !== undefined, {
    error: 'give scopes or a preset',
    path: ['scopes'],
  })

/** Expands scope names and preset names (in `scopes` or `preset`) into a sorted list of scopes. */
export function resolveScopes(names: string[], preset?: string): Scope[] {
  const result = new Set<Scope>()
  for (const name of [...names, ...(preset === undefined ? [] : [preset])]) {
    if (isScope(name)) result.add(name)
    else if (isPreset(name)) for (const scope of presets[name]) result.add(scope)
    else
      throw new z.ZodError([
        {
          code: 'custom',
          path: [preset === name ? 'preset' : 'scopes'],
          message: `unknown scope or preset "${name}" (scopes: ${scopes.join(', ')}; presets: ${Object.keys(presets).join(', ')})`,
          input: name,
        },
      ])
  }
  if (result.size === 0)
    throw new z.ZodError([{ code: 'custom', path: ['scopes'], message: 'at least one scope', input: names }])
  return scopes.filter((scope) => result.has(scope))
}
