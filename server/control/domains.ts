import { Router } from 'express'
import { sql } from 'kysely'
import { ConflictError } from '../../core/errors.js'
import { parseBody } from '../../core/http.js'
import { newId, nowIso } from '../ids.js'
import type { DomainRow } from '../db/tables.js'
import { findOwnedApi, param } from './api-service.js'
import { isUniqueViolation } from '../db/sqlite-errors.js'
import { guard, principalOf } from './context.js'
import type { ServerDeps } from '../deps.js'
import { createChallengeChecker, createDomainSchema, domainRecord, findDomain, newVerificationToken } from './domain-service.js'

/**
 * Custom domains of an API. A new domain is `pending`; its owner publishes the TXT record
 * `_svc-challenge.<hostname>` = `svc-verification=<token>` and points the hostname at `cname_target`, then asks for
 * verification. Verification that finds the record makes it `verified` (the gateway then serves the API on that
 * Host); one that does not answers 200 with status `pending` and a `reason`, and the domain stays pending (a DNS
 * record that is not there yet is an expected state, not an error). Verifying a verified domain answers
 * `already verified` without a lookup. Hostnames are unique across all APIs (409 "hostname already exists").
 */
export function createDomainRoutes(deps: ServerDeps): Router {
  const router = Router()
  const read = guard({ scopes: ['domains:read'] })
  const write = guard({ scopes: ['domains:write'], write: true })
  const createSchema = createDomainSchema(deps.hosts)
  const checkChallenge = createChallengeChecker(deps.dnsServers)

  router.post('/apis/:apiId/domains', write, async (req, res) => {
    const body = parseBody(createSchema, req.body)
    const api = await findOwnedApi(deps, principalOf(req), param(req.params.apiId))
    const taken = await deps.db.selectFrom('domains').select('id').where('hostname', '=', body.hostname).executeTakeFirst()
    if (taken) throw new ConflictError('hostname already exists')
    const row: DomainRow = {
      id: newId('dom'),
      api_id: api.id,
      hostname: body.hostname,
      verification_token: newVerificationToken(),
      status: 'pending',
      verified_at: null,
      created_at: nowIso(),
    }
    try {
      await deps.db.insertInto('domains').values(row).execute()
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError('hostname already exists')
      throw error
    }
    res.status(201).json(domainRecord(deps, api, row))
  })

  router.get('/apis/:apiId/domains', read, async (req, res) => {
    const api = await findOwnedApi(deps, principalOf(req), param(req.params.apiId))
    const rows = await deps.db.selectFrom('domains').selectAll().where('api_id', '=', api.id).orderBy('created_at', 'asc').orderBy(sql`rowid`).execute()
    res.json({ domains: rows.map((row) => domainRecord(deps, api, row)) })
  })

  router.get('/apis/:apiId/domains/:domainId', read, async (req, res) => {
    const api = await findOwnedApi(deps, principalOf(req), param(req.params.apiId))
    res.json(domainRecord(deps, api, await findDomain(deps, api.id, param(req.params.domainId))))
  })

  router.delete('/apis/:apiId/domains/:domainId', write, async (req, res) => {
    const api = await findOwnedApi(deps, principalOf(req), param(req.params.apiId))
    const domain = await findDomain(deps, api.id, param(req.params.domainId))
    await deps.db.deleteFrom('domains').where('id', '=', domain.id).execute()
    res.json({ id: domain.id, deleted: true })
  })

  router.post('/apis/:apiId/domains/:domainId/verify', write, async (req, res) => {
    const api = await findOwnedApi(deps, principalOf(req), param(req.params.apiId))
    const domain = await findDomain(deps, api.id, param(req.params.domainId))
    if (domain.status === 'verified') return void res.json({ status: 'already verified', domain: domainRecord(deps, api, domain) })
    const result = await checkChallenge(domain)
    if (!result.found) return void res.json({ status: 'pending', domain: domainRecord(deps, api, domain), reason: result.reason })
    await deps.db
      .updateTable('domains')
      .set({ status: 'verified', verified_at: nowIso() })
      .where('id', '=', domain.id)
      .where('status', '=', 'pending')
      .execute()
    // A concurrent verify may have won: answer what is stored.
    const stored = await findDomain(deps, api.id, domain.id)
    res.json({ status: 'verified', domain: domainRecord(deps, api, stored) })
  })

  return router
}
