/**
 * The door of chain/facilitator/: what the other rooms use, named. Another room imports only this file
 * (test/architecture/layers.test.ts; written by test/architecture/doors.ts); the files inside import each other
 * directly.
 */
export {
  type BazaarCatalog,
  type CatalogFilter,
  type CatalogItem,
  type CatalogStore,
  defaultCatalogCapacity,
} from './bazaar-catalog.js'
export { createBazaarRoutes } from './bazaar-routes.js'
export { createInProcessFacilitatorClient } from './client.js'
export { eip3009PayloadSchema, shapeProblem } from './exact.js'
export { createFacilitator, type SandboxFacilitator } from './facilitator.js'
