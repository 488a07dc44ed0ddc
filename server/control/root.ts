import { Router } from 'express'
import { controlUrl } from '../../core/hosts.js'
import type { ServerDeps } from '../deps.js'

/**
 * The control plane's root: what a person who opens {base_url} in a browser (or curls it) finds, with the links to
 * the contract and the configuration, instead of a 404. JSON for programs, a small page for a browser.
 */
export function createRootRoutes(deps: ServerDeps): Router {
  const router = Router()
  router.get('/', (req, res) => {
    const base = controlUrl(deps.hosts, req.hostEnvironment ?? 'production')
    const links = {
      openapi_yaml: `${base}/openapi.yaml`,
      openapi_json: `${base}/openapi.json`,
      platform: `${base}/config/platform`,
      local_dev: `${base}/config/local-dev`,
    }
    const answer = {
      name: 'svc',
      description: `the svc control plane (${req.hostEnvironment === 'development' ? 'Sandbox' : 'production'})`,
      links,
      docs: 'README.md in the svc package (node_modules/svc/README.md), and `svc --help`',
    }
    if (req.accepts(['json', 'html']) === 'html') {
      const items = Object.entries(links)
        .map(([name, url]) => `<li><a href="${url}">${name}</a>: ${url}</li>`)
        .join('')
      return void res
        .type('html')
        .send(
          `<!doctype html><title>svc</title><h1>${answer.description}</h1><ul>${items}</ul><p>Docs: ${answer.docs}</p>`,
        )
    }
    res.json(answer)
  })
  return router
}
