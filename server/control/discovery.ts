import { Router } from 'express'
import type { ControlDeps } from './context.js'

// TODO(issue 4): routes of this module.
export function createDiscoveryRoutes(_deps: ControlDeps): Router {
  return Router()
}
