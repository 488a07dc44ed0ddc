import { config } from "dotenv";
import { wrapFetchWithPayment } from "@x402/fetch";
import { createPublicClient, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { base, baseSepolia } from "viem/chains";
import { ExactEvmScheme, type ExactEvmSchemeOptions } from "@x402/evm/exact/client";
import { UptoEvmScheme as UptoEvmClientScheme, type UptoEvmSchemeOptions } from "@x402/evm/upto/client";
import { ExactEvmSchemeV1 } from "@x402/evm/v1";
import { toClientEvmSigner } from "@x402/evm";
// svc: the SVM, Aptos, Stellar and AVM imports are removed (not EVM: the packages are not installed here, and svc serves eip155:845320402 only); see ../../NOTICE.
import { x402Client, x402HTTPClient } from "@x402/core/client";

config();

const baseURL = process.env.RESOURCE_SERVER_URL as string;
const endpointPath = process.env.ENDPOINT_PATH as string;
const url = `${baseURL}${endpointPath}`;
const evmAccount = privateKeyToAccount(process.env.EVM_PRIVATE_KEY as `0x${string}`);
// svc: the SVM signer (it required SVM_PRIVATE_KEY) is removed (not EVM: the packages are not installed here, and svc serves eip155:845320402 only); see ../../NOTICE.

const evmNetwork = process.env.EVM_NETWORK || "eip155:84532";
const evmRpcUrl = process.env.EVM_RPC_URL;
const evmChain = evmNetwork === "eip155:8453" ? base : baseSepolia;

const publicClient = createPublicClient({
  chain: evmChain,
  transport: http(evmRpcUrl),
});

const evmSigner = toClientEvmSigner(evmAccount, publicClient);

const evmSchemeOptions: ExactEvmSchemeOptions | undefined = process.env.EVM_RPC_URL
  ? { rpcUrl: process.env.EVM_RPC_URL }
  : undefined;

const uptoSchemeOptions: UptoEvmSchemeOptions | undefined = process.env.EVM_RPC_URL
  ? { rpcUrl: process.env.EVM_RPC_URL }
  : undefined;

// svc: the Aptos, Stellar and AVM signers are removed (not EVM: the packages are not installed here, and svc serves eip155:845320402 only); see ../../NOTICE.

const client = new x402Client()
  .register("eip155:*", new ExactEvmScheme(evmSigner, evmSchemeOptions))
  .register("eip155:*", new UptoEvmClientScheme(evmSigner, uptoSchemeOptions))
  .registerV1("base-sepolia", new ExactEvmSchemeV1(evmSigner))
  .registerV1("base", new ExactEvmSchemeV1(evmSigner));
// svc: the SVM, Aptos, Stellar and AVM registrations are removed (not EVM: the packages are not installed here, and svc serves eip155:845320402 only); see ../../NOTICE.

const fetchWithPayment = wrapFetchWithPayment(fetch, client);

fetchWithPayment(url, {
  method: "GET",
}).then(async response => {
  const data = await response.json();
  const paymentResponse = new x402HTTPClient(client).getPaymentSettleResponse((name) => response.headers.get(name));

  if (!paymentResponse) {
    // No payment was required
    const result = {
      success: true,
      data: data,
      status_code: response.status,
    };
    console.log(JSON.stringify(result));
    process.exit(0);
    return;
  }

  const result = {
    success: paymentResponse.success,
    data: data,
    status_code: response.status,
    payment_response: paymentResponse,
  };

  // Output structured result as JSON for proxy to parse
  console.log(JSON.stringify(result));
  process.exit(0);
});
