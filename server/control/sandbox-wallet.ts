import { Router } from 'express'
import type { ControlDeps } from './context.js'

// TODO(issue 3): routes of this module.
export function createSandboxRoutes(_deps: ControlDeps): Router {
  return Router()
}
