/**
 * viem's key functions, for what loads them when it runs (`svc pay`, `svc payments`, `svc channels`, the buyer of
 * `svc exec` and `svc up --detach`): imported by name here, so the bundle leaves out what else viem/accounts exports
 * (its mnemonic wordlists in nine languages, some 250 kB that `svc up` loaded and never used).
 */
export { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
