/**
 * The SQLite binding's loader alone, without the database's modules (kysely, the migrations): `startSvc` checks the
 * binding before Anvil starts, and loads the rest while Anvil boots (server/start/start-svc.ts).
 */
export { loadSqlite } from './sqlite/driver.js'
