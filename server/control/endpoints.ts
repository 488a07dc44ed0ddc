import { Router } from 'express'
import type { ControlDeps } from './context.js'

// TODO(issue 3): routes of this module.
export function createEndpointRoutes(_deps: ControlDeps): Router {
  return Router()
}
