import type { Request, Response } from 'express'
import { machineClock } from '../../../core/clock.js'
import { compilePattern } from '../../../core/path-pattern.js'
import type { ServerDeps } from '../../deps.js'
import type { ApiRow } from '../../db/index.js'
import { discoverableEndpoints, usdcMatcher } from '../discovery-documents.js'
import { buildApiPageModel } from './api-page-model.js'
import { isBrowserRequest } from '../paywall/browser-request.js'
import { apiPageSecurityPolicy, renderApiPage } from './render-api-page.js'

export type ApiPage = {
  /**
   * Answers a browser's `GET /` on a gateway host with the API's page; false (nothing written) for any other
   * request, and when the seller priced `GET /` itself (an endpoint `/` or `/*`: that route is theirs).
   */
  serve(req: Request, res: Response, api: ApiRow): Promise<boolean>
}

/**
 * The API's own page: its name, its endpoints with their prices, schemes and schemas, links to its discovery
 * documents, and a try-it form per endpoint. Built from the database on every request (a person's page view, rare
 * next to paid requests, never cached: `Cache-Control: no-store`). It lists what the discovery documents list:
 * enabled endpoints without a ttl (one-time endpoints are made for one buyer).
 */
export function createApiPage(deps: ServerDeps): ApiPage {
  const isUsdc = usdcMatcher(deps)
  const clock = deps.clock ?? machineClock
  return {
    async serve(req, res, api) {
      if (req.method !== 'GET' || req.path !== '/' || !isBrowserRequest(req.headers)) return false
      // Enabled GET endpoints, one-time ones included until they expire (as the gateway matches them).
      const gets = await deps.db
        .selectFrom('endpoints')
        .select(['method', 'path_pattern', 'expires_at'])
        .where('api_id', '=', api.id)
        .where('enabled', '=', 1)
        .where('method', '=', 'GET')
        .execute()
      const now = clock.now()
      const pricedRoot = gets.some(
        (row) =>
          (row.expires_at === null || Date.parse(row.expires_at) > now) &&
          compilePattern(row.method, row.path_pattern).regex.test('/'),
      )
      if (pricedRoot) return false
      const endpoints = await discoverableEndpoints(deps.db, api.id)
      const html = renderApiPage(buildApiPageModel({ api, endpoints, isUsdc, base: req.baseUrl }))
      res.set({
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'content-security-policy': apiPageSecurityPolicy,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        // The same URL answers scripts with JSON: caches must key on what the client asked for.
        vary: 'Accept, User-Agent',
      })
      res.status(200).send(html)
      return true
    },
  }
}
