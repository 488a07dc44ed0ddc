import { z } from 'zod'

/** POST /auth/signup (the seed file's check applies it to its account too: sdk/seed.ts). */
export const credentialsSchema = z.strictObject({
  email: z.email({ error: 'not an email address' }).max(254, { error: 'at most 254 characters' }),
  password: z
    .string({ error: 'expected a string' })
    .min(8, { error: 'at least 8 characters' })
    .max(1024, { error: 'at most 1024 characters' }),
})
