/**
 * The door of server/data-dir/: what the other rooms use, named. Another room imports only this file
 * (test/architecture/layers.test.ts; written by test/architecture/doors.ts); the files inside import each other
 * directly.
 */
export { databaseFileName } from './permissions.js'
export { decryptSecret, encryptSecret, type InstallSecrets } from './secrets.js'
export { dataDirProblem, storageUnavailable } from './storage-errors.js'
