import { expect, it } from 'vitest'
import * as svc from '../../sdk/index.js'

// The package's public API (`import … from 'svc'`): a change shows up here, in review.
it('svc exports', () => {
  expect(Object.keys(svc).sort()).toMatchInlineSnapshot(`
    [
      "AuthCaptureSchemeError",
      "AuthCaptureServerScheme",
      "SvcApiError",
      "SvcError",
      "authCaptureDeployment",
      "createSvcClient",
      "errorCode",
      "eventSignature",
      "eventSignatureHeader",
      "formatUsdc",
      "isLocalhostSubdomain",
      "localDispatcher",
      "localFetch",
      "localhostLookup",
      "memoryAuthCaptureStore",
      "parseUsdc",
      "resolveLocalhostSubdomains",
      "sandboxChainId",
      "sandboxNetwork",
      "sandboxUsdcDomain",
      "usdcAddress",
      "usdcDecimals",
      "verifyEventSignature",
    ]
  `)
})
