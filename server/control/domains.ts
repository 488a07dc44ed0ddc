import { Router } from 'express'
import { ConflictError } from '../../core/errors.js'
import { param, parseBody } from '../../core/http.js'
import { newId, nowIso } from '../ids.js'
import {
  deleteDomain,
  type DomainRow,
  findDomain,
  findOwnedApi,
  hostnameTaken,
  insertDomain,
  listDomains,
  markDomainVerified,
} from '../db/index.js'
import { guard, principalOf } from './context.js'
import type { ServerDeps } from '../deps.js'
import { createDomainSchema } from './domain-input.js'
import { domainRecord } from './domain-record.js'
import { createChallengeChecker, newVerificationToken } from './domain-verification.js'

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
  const { db } = deps
  const read = guard({ scopes: ['domains:read'] })
  const write = guard({ scopes: ['domains:write'], write: true })
  const createSchema = createDomainSchema(deps.hosts)
  const checkChallenge = createChallengeChecker(deps.dnsServers)

  router.post('/apis/:apiId/domains', write, async (req, res) => {
    const body = parseBody(createSchema, req.body)
    const api = await findOwnedApi(db, principalOf(req), param(req.params.apiId))
    if (await hostnameTaken(db, body.hostname)) throw new ConflictError('hostname already exists')
    const row: DomainRow = {
      id: newId('dom'),
      api_id: api.id,
      hostname: body.hostname,
      verification_token: newVerificationToken(),
      status: 'pending',
      verified_at: null,
      created_at: nowIso(),
    }
    await insertDomain(db, row)
    res.status(201).json(domainRecord(deps, api, row))
  })

  router.get('/apis/:apiId/domains', read, async (req, res) => {
    const api = await findOwnedApi(db, principalOf(req), param(req.params.apiId))
    const rows = await listDomains(db, api.id)
    res.json({ domains: rows.map((row) => domainRecord(deps, api, row)) })
  })

  router.get('/apis/:apiId/domains/:domainId', read, async (req, res) => {
    const api = await findOwnedApi(db, principalOf(req), param(req.params.apiId))
    res.json(domainRecord(deps, api, await findDomain(db, api.id, param(req.params.domainId))))
  })

  router.delete('/apis/:apiId/domains/:domainId', write, async (req, res) => {
    const api = await findOwnedApi(db, principalOf(req), param(req.params.apiId))
    const domain = await findDomain(db, api.id, param(req.params.domainId))
    await deleteDomain(db, domain.id)
    res.json({ id: domain.id, deleted: true })
  })

  router.post('/apis/:apiId/domains/:domainId/verify', write, async (req, res) => {
    const api = await findOwnedApi(db, principalOf(req), param(req.params.apiId))
    const domain = await findDomain(db, api.id, param(req.params.domainId))
    if (domain.status === 'verified')
      return void res.json({ status: 'already verified', domain: domainRecord(deps, api, domain) })
    const result = await checkChallenge(domain)
    if (!result.found)
      return void res.json({ status: 'pending', domain: domainRecord(deps, api, domain), reason: result.reason })
    await markDomainVerified(db, domain.id, nowIso())
    // A concurrent verify may have won: answer what is stored.
    const stored = await findDomain(db, api.id, domain.id)
    res.json({ status: 'verified', domain: domainRecord(deps, api, stored) })
  })

  return router
}
