import { existsSync, readFileSync } from 'node:fs'
import { Router } from 'express'
import { parse } from 'yaml'

/**
 * Where server/openapi.yaml is: beside this module's folder in the sources and in dist/ (dist/server/openapi.yaml),
 * or under server/ from the folder of the bundled `svc` command (dist/cli/).
 */
export const contractPath =
  [new URL('../openapi.yaml', import.meta.url), new URL('../server/openapi.yaml', import.meta.url)].find((url) =>
    existsSync(url),
  ) ?? new URL('../openapi.yaml', import.meta.url)

let cached: { yaml: string; json: unknown } | undefined

/** The control plane's OpenAPI contract (server/openapi.yaml), parsed once. */
export function loadContract(): { yaml: string; json: unknown } {
  if (!cached) {
    const yaml = readFileSync(contractPath, 'utf8')
    cached = { yaml, json: parse(yaml) }
  }
  return cached
}

/** Serves the contract as `/openapi.yaml` and `/openapi.json`. */
export function createContractRoutes(): Router {
  const router = Router()
  router.get('/openapi.yaml', (_req, res) => void res.type('application/yaml').send(loadContract().yaml))
  router.get('/openapi.json', (_req, res) => void res.json(loadContract().json))
  return router
}
