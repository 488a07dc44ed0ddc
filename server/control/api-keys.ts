import { randomBytes } from 'node:crypto'
import { Router } from 'express'
import { NotFoundError } from '../../core/errors.js'
import { param, parseBody } from '../../core/http.js'
import { newId, nowIso } from '../ids.js'
import { type ApiKeyRow, findOwnedApiKey, insertApiKey, listApiKeys, revokeApiKey } from '../db/index.js'
import { apiKeyPrefixes } from '../../core/hosts.js'
import { guard, hashApiKey, principalOf } from './context.js'
import type { ServerDeps } from '../deps.js'
import type { Scope } from '../../core/scopes.js'
import { createKeySchema, resolveScopes } from '../../core/inputs/api-key.js'

export function publicApiKey(key: ApiKeyRow) {
  return {
    id: key.id,
    name: key.name,
    environment: key.environment,
    prefix: key.prefix,
    scopes: JSON.parse(key.scopes) as Scope[],
    created_at: key.created_at,
    last_used_at: key.last_used_at,
    revoked_at: key.revoked_at,
  }
}

/** API keys: JWT only. The secret is returned once, at creation, and stored as a sha256 hash. */
export function createApiKeyRoutes(deps: ServerDeps): Router {
  const router = Router()
  const jwtOnly = guard({ jwtOnly: true })

  router.post('/auth/api-keys', guard({ jwtOnly: true, write: true }), async (req, res) => {
    const body = parseBody(createKeySchema, req.body)
    const { user, environment } = principalOf(req)
    const keyScopes = resolveScopes(body.scopes ?? [], body.preset)
    const secret = `${apiKeyPrefixes[environment]}${randomBytes(24).toString('base64url')}`
    const key: ApiKeyRow = {
      id: newId('key'),
      user_id: user.id,
      name: body.name,
      environment,
      prefix: secret.slice(0, apiKeyPrefixes[environment].length + 6),
      key_hash: hashApiKey(secret),
      scopes: JSON.stringify(keyScopes),
      created_at: nowIso(),
      last_used_at: null,
      revoked_at: null,
    }
    await insertApiKey(deps.db, key)
    res.status(201).json({ ...publicApiKey(key), key: secret })
  })

  router.get('/auth/api-keys', jwtOnly, async (req, res) => {
    const keys = await listApiKeys(deps.db, principalOf(req))
    res.json({ api_keys: keys.map(publicApiKey) })
  })

  router.delete('/auth/api-keys/:keyId', jwtOnly, async (req, res) => {
    const key = await findOwnedApiKey(deps.db, principalOf(req), param(req.params.keyId))
    if (!key) throw new NotFoundError('api key not found')
    if (!key.revoked_at) {
      key.revoked_at = nowIso()
      await revokeApiKey(deps.db, key.id, key.revoked_at)
    }
    res.json(publicApiKey(key))
  })

  return router
}
