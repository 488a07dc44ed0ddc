// Generated from server/openapi.yaml by bin/contract-types.js with openapi-typescript 7.13.0. Do not edit:
// run `npm run build:contract-types` after changing the yaml.

export interface paths {
    "/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What a person finds at the control plane's root, with links to the contract and the configuration */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description svc and its links (a small HTML page for a browser that asks for text/html) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            name: string;
                            description: string;
                            links: {
                                openapi_yaml: string;
                                openapi_json: string;
                                platform: string;
                                local_dev: string;
                            };
                            docs: string;
                        };
                        "text/html": string;
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.yaml": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This contract, as YAML */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the contract */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/yaml": string;
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This contract, as JSON */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the contract */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": Record<string, unknown>;
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/signup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an account
         * @description New accounts must verify their email before any write; the verification mail goes to the local outbox (or the account is verified at once with --auto-verify).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["Credentials"];
                };
            };
            responses: {
                /** @description the account and a session JWT */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Session"];
                    };
                };
                400: components["responses"]["BadRequest"];
                409: components["responses"]["Conflict"];
                413: components["responses"]["TooLarge"];
                429: components["responses"]["TooManyRequests"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Log in */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["Credentials"];
                };
            };
            responses: {
                /** @description a session JWT */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Session"];
                    };
                };
                400: components["responses"]["BadRequest"];
                /** @description `unauthorized`: the email or the password is wrong (the answer does not tell which) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                413: components["responses"]["TooLarge"];
                429: components["responses"]["TooManyRequests"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/verify-email": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Verify an email with the token from the verification mail */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        token: string;
                    };
                };
            };
            responses: {
                /** @description verified (also when it already was) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            verified: true;
                            user: components["schemas"]["User"];
                        };
                    };
                };
                400: components["responses"]["BadRequest"];
                413: components["responses"]["TooLarge"];
                429: components["responses"]["TooManyRequests"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/resend-verification": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a new verification mail to the local outbox */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description sent */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            sent: true;
                            to: string;
                        };
                    };
                };
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                409: components["responses"]["Conflict"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller, its environment and its scopes */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the caller */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            user: components["schemas"]["User"];
                            environment: components["schemas"]["Environment"];
                            /** @enum {unknown} */
                            via: "jwt" | "api_key";
                            /** @description null for a JWT (all rights) */
                            scopes: null | components["schemas"]["Scope"][];
                        };
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness (200 while the process serves); on the control hosts and a bare IP, never on gateway hosts */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description live */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "live";
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness for a load balancer; 503 while draining (SIGTERM), or when the database or the Sandbox chain does not answer */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description ready */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "ready";
                            /** @constant */
                            database: "ok";
                            /**
                             * @description none when the server runs without a Sandbox chain (svc serve --sandbox-chain none); remote on a process of a team Sandbox (--sandbox-chain shared) whose chain another process owns
                             * @enum {unknown}
                             */
                            chain: "ok" | "none" | "remote";
                        };
                    };
                };
                /** @description not ready, and why */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dev/outbox": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The local outbox (mails the control plane "sent"); loopback callers only (svc serve - the admin token) */
        get: {
            parameters: {
                query?: {
                    email?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description newest first, at most 100 */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            messages: {
                                id: number;
                                to: string;
                                subject: string;
                                body: string;
                                token: string | null;
                                /** @description the address the mail verifies is verified now (by this mail or another); the mail has nothing left to do */
                                used: boolean;
                                /** Format: date-time */
                                created_at: string;
                            }[];
                        };
                    };
                };
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the caller's keys of this environment (JWT only) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description newest first */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            api_keys: components["schemas"]["ApiKey"][];
                        };
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
            };
        };
        put?: never;
        /**
         * Create an API key (JWT only); the secret is in `key`, shown this once
         * @description The key's environment is the JWT request's (`X-Svc-Environment`; without it, the host's: {sandbox_base_url} gives a Sandbox key); its secret starts with `svc_live_` or `svc_sandbox_`.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name: string;
                        /** @description scope names; preset names are accepted here too */
                        scopes?: string[];
                        /** @enum {unknown} */
                        preset?: "readonly" | "apiManager" | "analytics";
                    };
                };
            };
            responses: {
                /** @description the key, with its secret */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiKey"] & {
                            key: string;
                        };
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/api-keys/{keyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a key (JWT only); revoking twice is harmless */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    keyId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the revoked key */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiKey"];
                    };
                };
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/config/platform": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Platform metadata */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description platform metadata */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description which svc this is, the same on every process of one svc and across its restarts on one data dir (derived from the key its sessions are signed with, which it does not reveal): a session made here is accepted where this id is the same; the CLI sends its saved login nowhere else */
                            instance_id: string;
                            platform_domain: string;
                            sandbox_platform_domain: string;
                            gateway_port: number;
                            /** Format: uri */
                            base_url: string;
                            /** Format: uri */
                            sandbox_base_url: string;
                            environments: components["schemas"]["Environment"][];
                            schemes: ("exact" | "upto" | "batch-settlement" | "auth-capture")[];
                            payment_tokens: {
                                environment: components["schemas"]["Environment"];
                                address: string;
                                symbol: string;
                                decimals: number;
                                network: string;
                                extra: components["schemas"]["PaymentToken"]["extra"];
                            }[];
                            api_key_prefixes: {
                                /** @constant */
                                production: "svc_live_";
                                /** @constant */
                                development: "svc_sandbox_";
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/config/local-dev": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The local Sandbox chain */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description chain services of this sandbox */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            enabled: boolean;
                            /** @constant */
                            chain_id: 845320402;
                            /** @constant */
                            network: "eip155:845320402";
                            /** @description the chain's JSON-RPC: on svc up its Anvil; on svc serve the Sandbox control plane's public `/dev/rpc` */
                            rpc_url: string | null;
                            /** @description the faucet API (`POST {it}/faucet`, `POST {it}/balances`); on svc serve the Sandbox control plane's `/dev` (a development JWT), answered through the process asked */
                            chain_manager_url: string | null;
                            /** @description svc's Sandbox facilitator; null on svc serve, whose facilitator verifies and settles for svc's own gateways only */
                            facilitator_url: string | null;
                            /** @description where the Sandbox facilitator's bazaar catalog is read, as a facilitator URL (`GET {it}/discovery/resources`, `GET {it}/discovery/search`; `withBazaar(new HTTPFacilitatorClient({ url }))`): on svc up the facilitator_url; on svc serve the Sandbox control plane's `/dev/bazaar` */
                            bazaar_url: string | null;
                            faucet_enabled: boolean;
                            native_currency: {
                                name: string;
                                /** @constant */
                                symbol: "ETH";
                                /** @constant */
                                decimals: 18;
                            };
                            usdc: components["schemas"]["PaymentToken"];
                            /** @description twins of testnets running beside the Sandbox chain (`svc up --twin base-sepolia`): code written for that testnet pays on them, its facilitator being svc's facilitator_url */
                            twins?: components["schemas"]["TwinChain"][];
                        };
                    };
                };
                503: components["responses"]["Unavailable"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dev/rpc": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The Sandbox chain's JSON-RPC (the rpc_url of /config/local-dev on svc serve)
         * @description Public, on {sandbox_base_url} only, like any testnet's RPC: one JSON-RPC call or a batch of up to 20. Reads,
         *     logs, gas estimates and signed transactions (`eth_sendRawTransaction`); any other method (Anvil's `anvil_*`,
         *     `evm_*`, signing by the node) is answered with JSON-RPC error -32601. Calls per minute are limited per client
         *     address. On a team Sandbox process that does not own the chain it reaches the owner's.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": unknown;
                };
            };
            responses: {
                /** @description the chain's JSON-RPC answer */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": unknown;
                    };
                };
                400: components["responses"]["BadRequest"];
                404: components["responses"]["NotFound"];
                429: components["responses"]["TooManyRequests"];
                503: components["responses"]["Unavailable"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dev/bazaar/discovery/resources": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The Sandbox facilitator's bazaar catalog (the bazaar_url of /config/local-dev on svc serve)
         * @description Public, on {sandbox_base_url} only: what `GET /discovery/resources` of svc's Sandbox facilitator answers
         *     (x402's bazaar extension), newest first. On a team Sandbox any process answers it (the chain owner's catalog).
         */
        get: {
            parameters: {
                query?: {
                    type?: string;
                    payTo?: string;
                    scheme?: string;
                    network?: string;
                    extensions?: string;
                    limit?: number;
                    offset?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description a page of the catalog */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            x402Version: 2;
                            items: Record<string, unknown>[];
                            pagination: {
                                limit: number;
                                offset: number;
                                total: number;
                            };
                        };
                    };
                };
                400: components["responses"]["BadRequest"];
                404: components["responses"]["NotFound"];
                503: components["responses"]["Unavailable"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dev/bazaar/discovery/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Search the Sandbox facilitator's bazaar catalog
         * @description Public, on {sandbox_base_url} only, as `GET /discovery/search` of svc's Sandbox facilitator.
         */
        get: {
            parameters: {
                query: {
                    query: string;
                    type?: string;
                    limit?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the matching resources */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            x402Version: 2;
                            resources: Record<string, unknown>[];
                            partialResults: boolean;
                        };
                    };
                };
                400: components["responses"]["BadRequest"];
                404: components["responses"]["NotFound"];
                503: components["responses"]["Unavailable"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/apis": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's APIs of this environment (scope apis:read) */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description oldest first */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            apis: components["schemas"]["Api"][];
                        };
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
            };
        };
        put?: never;
        /**
         * Register an API (scope apis:write, verified email)
         * @description The API belongs to the caller's environment, fixed at creation. Slugs are DNS labels, unique per environment; reserved names (api, sandbox, dev, www, …) are refused.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ApiCreate"];
                };
            };
            responses: {
                /** @description the new API */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Api"];
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                409: components["responses"]["Conflict"];
                413: components["responses"]["TooLarge"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/apis/{apiId}": {
        parameters: {
            query?: never;
            header?: {
                /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                "X-Svc-Environment"?: components["parameters"]["Environment"];
            };
            path: {
                apiId: string;
            };
            cookie?: never;
        };
        /** One API (scope apis:read) */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path: {
                    apiId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the API */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Api"];
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
            };
        };
        /** Change an API (scope apis:write, verified email); only the fields given change */
        put: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path: {
                    apiId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ApiUpdate"];
                };
            };
            responses: {
                /** @description the changed API */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Api"];
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
                409: components["responses"]["Conflict"];
                413: components["responses"]["TooLarge"];
            };
        };
        post?: never;
        /** Delete an API and its endpoints (scope apis:write, verified email) */
        delete: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path: {
                    apiId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description deleted */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["DeletedResource"];
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/apis/{apiId}/endpoints": {
        parameters: {
            query?: never;
            header?: {
                /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                "X-Svc-Environment"?: components["parameters"]["Environment"];
            };
            path: {
                apiId: string;
            };
            cookie?: never;
        };
        /** The API's endpoints (scope endpoints:read); expired ephemeral endpoints are gone */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path: {
                    apiId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description oldest first */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            endpoints: components["schemas"]["Endpoint"][];
                        };
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
            };
        };
        put?: never;
        /**
         * Add an endpoint (scope endpoints:write, verified email)
         * @description Without schemas, schemas are inferred (schema_source `inferred`; see EndpointRequestSchema); with a schema,
         *     both are stored as given (schema_source `manual`). A development API takes only network eip155:845320402 and
         *     the Sandbox USDC; missing `extra` fields are filled from the token (name, version, assetTransferMethod).
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path: {
                    apiId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["EndpointCreate"];
                };
            };
            responses: {
                /** @description the new endpoint */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Endpoint"];
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
                409: components["responses"]["Conflict"];
                413: components["responses"]["TooLarge"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/apis/{apiId}/endpoints/{endpointId}": {
        parameters: {
            query?: never;
            header?: {
                /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                "X-Svc-Environment"?: components["parameters"]["Environment"];
            };
            path: {
                apiId: string;
                endpointId: string;
            };
            cookie?: never;
        };
        /** One endpoint (scope endpoints:read) */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path: {
                    apiId: string;
                    endpointId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the endpoint */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Endpoint"];
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
            };
        };
        /**
         * Change an endpoint (scope endpoints:write, verified email); only the fields given change
         * @description Schemas given → stored, schema_source `manual` (null clears one). `clear_schemas: true` clears both and infers
         *     again (schema_source `inferred`); it cannot be combined with schemas. An inferred endpoint whose method or
         *     path_pattern changes is inferred again. `ttl` is refused: "ttl can only be set at creation".
         */
        put: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path: {
                    apiId: string;
                    endpointId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["EndpointUpdate"];
                };
            };
            responses: {
                /** @description the changed endpoint */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Endpoint"];
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
                409: components["responses"]["Conflict"];
                413: components["responses"]["TooLarge"];
            };
        };
        post?: never;
        /** Delete an endpoint (scope endpoints:write, verified email) */
        delete: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path: {
                    apiId: string;
                    endpointId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description deleted */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["DeletedResource"];
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi/parse": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Parse an OpenAPI 3.0/3.1 document into operations (scope openapi:read; not a write)
         * @description YAML or JSON text of at most 1 MB. Local `$ref`s are inlined; external and remote ones are never fetched
         *     (they become a `$comment`), and a circular reference is cut where it repeats. request_schema is the
         *     application/json request body schema, response_schema the application/json schema of the 200 (else first
         *     2xx) response; null when absent. OpenAPI 3.0 `nullable` and boolean exclusive bounds become JSON Schema 2020-12.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        spec: string;
                    };
                };
            };
            responses: {
                /** @description the operations, in document order */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ParsedOpenApi"];
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                413: components["responses"]["TooLarge"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/apis/{apiId}/openapi/import": {
        parameters: {
            query?: never;
            header?: {
                /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                "X-Svc-Environment"?: components["parameters"]["Environment"];
            };
            path: {
                apiId: string;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create endpoints from operations (scopes openapi:read and endpoints:write, verified email)
         * @description Every operation gets the same accepts (same rules as POST /apis/{apiId}/endpoints). An operation with a
         *     schema is stored with schema_source `openapi`; one without is inferred (`inferred`). Operations whose
         *     method+path_pattern already exist (or repeat in the list) are skipped, so importing twice is harmless.
         *     All endpoints are created in one transaction.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path: {
                    apiId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        operations: components["schemas"]["ImportOperation"][];
                        accepts: components["schemas"]["AcceptsInput"];
                    };
                };
            };
            responses: {
                /** @description created and skipped operations */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            created: components["schemas"]["Endpoint"][];
                            skipped: {
                                method: components["schemas"]["HttpMethod"];
                                path_pattern: string;
                                /** @constant */
                                reason: "exists";
                            }[];
                        };
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
                413: components["responses"]["TooLarge"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandbox-wallet": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's Sandbox wallet, created (and funded in the background) if missing
         * @description JWT only, in the development environment (`X-Svc-Environment: development`, or {sandbox_base_url} without
         *     the header). Creating a wallet is a write: an unverified account without one gets 403 `email verification
         *     required` and no wallet. The platform-managed keypair of the caller; its private key is stored encrypted (AES-256-GCM
         *     under the install's wallet key). The first GET creates it and starts a faucet funding (ETH and USDC) without
         *     waiting for it (`funding: started`); later GETs answer `funding: existing`.
         *     Balances vanish when the Sandbox chain restarts; the wallet stays.
         */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the wallet */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SandboxWallet"];
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                503: components["responses"]["Unavailable"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandbox-wallet/reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replace the caller's Sandbox wallet with a new keypair and fund it in the background
         * @description JWT only, in the development environment (`X-Svc-Environment: development`, or {sandbox_base_url} without the header); a write (verified email). Answers at once with `funding: started`.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the new wallet */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SandboxWallet"];
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                503: components["responses"]["Unavailable"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dev/balances": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * ETH and USDC balances of an address on the Sandbox chain
         * @description JWT only, in the development environment (`X-Svc-Environment: development`, or {sandbox_base_url} without the header).
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        address: components["schemas"]["SandboxAddress"];
                    };
                };
            };
            responses: {
                /** @description the balances, hexadecimal quantities */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SandboxBalances"];
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                /** @description the Sandbox chain did not answer */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                503: components["responses"]["Unavailable"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dev/faucet": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Fund an address on the Sandbox chain with ETH, USDC or both
         * @description JWT only, in the development environment (`X-Svc-Environment: development`, or {sandbox_base_url} without
         *     the header); a write (verified email). Without `amount` the chain manager's defaults are sent; `amount`
         *     (whole units, e.g. "2.5") needs `asset` `eth` or `usdc`.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["SandboxFaucetRequest"];
                };
            };
            responses: {
                /** @description what was sent and the balances after it */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SandboxFaucetResult"];
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                /** @description the Sandbox chain could not fund the address */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                503: components["responses"]["Unavailable"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dev/snapshots": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The Sandbox's snapshots that can be reverted to, oldest first; the Sandbox's owner on {sandbox_base_url} only */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the snapshots */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            snapshots: components["schemas"]["Snapshot"][];
                        };
                    };
                };
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                503: components["responses"]["Unavailable"];
            };
        };
        put?: never;
        /**
         * Snapshot the whole Sandbox (chain and control-plane state together); the Sandbox's owner on {sandbox_base_url} only
         * @description Takes Anvil's snapshot and a copy of the database (accounts, keys, APIs, endpoints, wallets, settlements, counters, the settlement journal) and svc's clock offset, with paid requests held back meanwhile. Snapshots last as long as the chain process: a chain restart or svc's stop discards them.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the snapshot */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Snapshot"];
                    };
                };
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                409: components["responses"]["Conflict"];
                502: components["responses"]["ChainFailed"];
                503: components["responses"]["Unavailable"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dev/snapshots/{snapshotId}/revert": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Put the chain, the control plane's state and svc's clock back as they were at a snapshot; the Sandbox's owner on {sandbox_base_url} only (a seller's credential is a 403), told to every seller's event stream
         * @description Waits for paid requests under way (at most 10 s, then 409) and holds new ones back until it is done. The snapshot stays usable (the revert takes Anvil's snapshot again); snapshots taken after it are discarded.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    snapshotId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the snapshot reverted to */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Snapshot"] & {
                            /** @description how long the revert took */
                            took_ms: number;
                            /** @description snapshots taken after this one */
                            discarded: string[];
                        };
                    };
                };
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
                409: components["responses"]["Conflict"];
                502: components["responses"]["ChainFailed"];
                503: components["responses"]["Unavailable"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dev/time": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The chain's time and svc's own clock; on {sandbox_base_url}, the Sandbox's owner or any seller's credential */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description both clocks */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SandboxTime"];
                    };
                };
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                502: components["responses"]["ChainFailed"];
                503: components["responses"]["Unavailable"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dev/time/advance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Move the chain's time and svc's clock forward together; the Sandbox's owner on {sandbox_base_url} only (a seller's credential is a 403), told to every seller's event stream
         * @description The chain mines an empty block `seconds` later; svc's clock (ttl endpoints, session JWTs, verification tokens, the Sandbox facilitator's validBefore/validAfter check) moves by the same. The offset is kept with the chain: a restart that reloads the chain keeps it, a chain that starts empty starts at the machine's time.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        seconds: number;
                    };
                };
            };
            responses: {
                /** @description both clocks, moved */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SandboxTime"];
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                502: components["responses"]["ChainFailed"];
                503: components["responses"]["Unavailable"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dev/time/reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Move svc's clock back to the machine's as far as the chain allows; the Sandbox's owner on {sandbox_base_url} only (a seller's credential is a 403), told to every seller's event stream
         * @description svc's offset becomes 0, or, when the chain's latest block is ahead of the machine's time, just enough to keep svc's clock at that block: chain time never goes back, so after a time advance on the same chain the offset stays until a revert to a snapshot taken before it.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description both clocks */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SandboxTime"];
                    };
                };
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                502: components["responses"]["ChainFailed"];
                503: components["responses"]["Unavailable"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/apis/{apiId}/discovery": {
        parameters: {
            query?: never;
            header?: {
                /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                "X-Svc-Environment"?: components["parameters"]["Environment"];
            };
            path: {
                apiId: string;
            };
            cookie?: never;
        };
        /**
         * Where the API's discovery documents are published (scope apis:read)
         * @description hosts: the platform host (`{slug}.localhost`, `{slug}.dev.localhost` in Sandbox) first, then the verified custom
         *     domains in the order they were verified. primary_host: the first verified custom domain, else the platform host;
         *     openapi_url and well_known_url are its URLs. Every URL is `http://{host}:{port}` (one listener serves all hosts).
         *     endpoint_count counts all endpoints of the API; discoverable_endpoint_count leaves out disabled and ephemeral
         *     (ttl) endpoints, as the documents do. The documents themselves (GET /openapi.json, GET /.well-known/x402.json
         *     on a gateway host) are public and outside this contract.
         */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path: {
                    apiId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the discovery summary */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["DiscoverySummary"];
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/apis/{apiId}/domains": {
        parameters: {
            query?: never;
            header?: {
                /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                "X-Svc-Environment"?: components["parameters"]["Environment"];
            };
            path: {
                apiId: string;
            };
            cookie?: never;
        };
        /** The API's custom domains, oldest first (scope domains:read) */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path: {
                    apiId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the domains */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            domains: components["schemas"]["Domain"][];
                        };
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
            };
        };
        put?: never;
        /**
         * Add a custom domain (scope domains:write, verified email)
         * @description The hostname is trimmed, lower-cased and stripped of a final dot; it must be a fully qualified DNS name (not an
         *     IP address, not `localhost` or svc's own hosts or names under them) and unique across all APIs (409
         *     "hostname already exists"). The domain starts `pending`: publish `verification_record` as a DNS TXT record, point
         *     the hostname at `cname_target` (a CNAME), then POST .../verify.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path: {
                    apiId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["DomainCreate"];
                };
            };
            responses: {
                /** @description the new domain, pending */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Domain"];
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
                409: components["responses"]["Conflict"];
                413: components["responses"]["TooLarge"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/apis/{apiId}/domains/{domainId}": {
        parameters: {
            query?: never;
            header?: {
                /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                "X-Svc-Environment"?: components["parameters"]["Environment"];
            };
            path: {
                apiId: string;
                domainId: string;
            };
            cookie?: never;
        };
        /** One custom domain (scope domains:read) */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path: {
                    apiId: string;
                    domainId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the domain */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Domain"];
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
            };
        };
        put?: never;
        post?: never;
        /** Remove a custom domain (scope domains:write, verified email); the gateway stops serving it at once */
        delete: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path: {
                    apiId: string;
                    domainId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description deleted */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["DeletedResource"];
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/apis/{apiId}/domains/{domainId}/verify": {
        parameters: {
            query?: never;
            header?: {
                /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                "X-Svc-Environment"?: components["parameters"]["Environment"];
            };
            path: {
                apiId: string;
                domainId: string;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Verify a custom domain through its DNS TXT record (scope domains:write, verified email)
         * @description Looks up the TXT record `_svc-challenge.<hostname>` through real DNS (the servers of SVC_DNS_SERVERS, else the
         *     system's; one try, 2 s). A value equal to `svc-verification=<token>` → status `verified` (the gateway serves the
         *     API on that hostname from now on). No such value (no record, another value, a failed or timed-out lookup) →
         *     still 200, status `pending`, and a `reason`; the domain stays pending and can be verified again. A domain
         *     already verified → status `already verified`, without a lookup.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path: {
                    apiId: string;
                    domainId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the verification status and the domain */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["DomainVerification"];
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
                413: components["responses"]["TooLarge"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/stats/overview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Traffic and revenue of the caller's APIs over the last days (scope stats:read)
         * @description The caller's environment and APIs only. The range is `days` UTC days ending today (UTC), both ends included.
         *     Traffic counters come from the gateway's per-day counters (a request paid by a payment channel's voucher is a
         *     paid request); settlements from the settlements of the range; revenue and payers from those and from what
         *     payment channels' vouchers charged in the range (channel money is earned per request). Amounts are atomic units as decimal strings, summed exactly per network and asset.
         *     Unknown query parameters are a 400.
         */
        get: {
            parameters: {
                query?: {
                    /** @description number of UTC days, today included */
                    days?: number;
                    /** @description only this API (the caller's, of this environment; else 404 `api not found`) */
                    api_id?: string;
                };
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description totals, revenue per asset and one entry per day of the range (oldest first, zero-filled) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["StatsOverview"];
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/settlements": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's settlements, newest first (scope settlements:read)
         * @description The caller's environment and APIs only; ordered by `created_at` then `id`, newest first. Pages continue with
         *     `cursor` set to the previous page's `next_cursor` (null on the last page); keep the same filters.
         *     With `format=csv` (or `Accept: text/csv` and no `format`) the answer is a CSV file (RFC 4180, CRLF, a header
         *     row of the record's field names) with every matching row; `limit` and `cursor` are then refused.
         *     Unknown query parameters are a 400.
         */
        get: {
            parameters: {
                query?: {
                    /** @description only this API (the caller's, of this environment; else 404 `api not found`) */
                    api_id?: string;
                    endpoint_id?: string;
                    /** @description inclusive lower bound: an ISO 8601 timestamp with a time zone, or YYYY-MM-DD (from the start of that UTC day) */
                    from?: string;
                    /** @description inclusive upper bound: an ISO 8601 timestamp with a time zone, or YYYY-MM-DD (to the end of that UTC day) */
                    to?: string;
                    limit?: number;
                    /** @description the `next_cursor` of the previous page (opaque); a malformed one is a 400 `cursor: invalid` */
                    cursor?: string;
                    format?: "json" | "csv";
                };
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description a page of settlements, or the CSV export */
                200: {
                    headers: {
                        /** @description CSV only: `attachment; filename="settlements.csv"` */
                        "Content-Disposition"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SettlementPage"];
                        "text/csv": string;
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/channels": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's payment channels (x402 batch-settlement), newest first (scope settlements:read)
         * @description The channels buyers opened on the caller's APIs in the caller's environment: what was deposited, what the
         *     vouchers charged (`spent`), what the receiver claimed on chain and settled to its pay-to address, what went
         *     back by refunds or the buyer's withdrawal. `state`: open, withdrawing (the buyer asked to withdraw), closed (refunded
         *     or withdrawn). With
         *     `format=csv` (or `Accept: text/csv`) the answer is CSV (a header row of the record's field names).
         */
        get: {
            parameters: {
                query?: {
                    /** @description only this API (the caller's, of this environment; else 404 `api not found`) */
                    api_id?: string;
                    state?: "open" | "withdrawing" | "closed";
                    limit?: number;
                    format?: "json" | "csv";
                };
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the channels, or the CSV export */
                200: {
                    headers: {
                        /** @description CSV only: `attachment; filename="channels.csv"` */
                        "Content-Disposition"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            channels: components["schemas"]["Channel"][];
                        };
                        "text/csv": string;
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/channels/{channelId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One payment channel, the requests it paid and its transactions (scope settlements:read) */
        get: {
            parameters: {
                query?: {
                    /** @description how many of the newest paid requests to list */
                    vouchers?: number;
                };
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path: {
                    channelId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the channel */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            channel: components["schemas"]["Channel"];
                            /** @description the requests paid from the channel, newest first (the first by the deposit that opened it) */
                            vouchers: {
                                id: string;
                                api_id: string;
                                endpoint_id: string | null;
                                method: string;
                                path: string;
                                amount: components["schemas"]["AtomicAmount"];
                                /** @description the channel's charged total after this request */
                                cumulative: string;
                                /** Format: date-time */
                                created_at: string;
                            }[];
                            /** @description its deposits, refunds and the buyer's withdraw requests and withdrawals, and its receiver's claims and settles since it opened (a claim or settle covers every channel of the receiver), oldest first */
                            transactions: {
                                id: string;
                                /** @enum {unknown} */
                                kind: "deposit" | "claim" | "settle" | "refund" | "withdraw_request" | "withdraw";
                                amount: components["schemas"]["AtomicAmount"];
                                /** @description the vouchers a claim carried (0 for the other kinds) */
                                vouchers: number;
                                transaction: string;
                                /** Format: date-time */
                                created_at: string;
                            }[];
                        };
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's escrow payments (x402 auth-capture), newest first (scope settlements:read)
         * @description The auth-capture payments buyers made to the caller's APIs in the caller's environment: what the hold
         *     authorized, what was captured (less the fees), voided, refunded, or reclaimed by the buyer after the capture
         *     deadline, and what is still capturable and refundable (as last read on the chain). `state`: authorized (a hold
         *     with something left to capture), captured, charged (the authorization flow's terminal charge), voided,
         *     refunded (everything captured went back), reclaimed. With `format=csv` (or `Accept: text/csv`) the answer is
         *     CSV (a header row of the record's field names). Unknown query parameters are a 400.
         */
        get: {
            parameters: {
                query?: {
                    /** @description only this API (the caller's, of this environment; else 404 `api not found`) */
                    api_id?: string;
                    state?: components["schemas"]["EscrowPaymentState"];
                    limit?: number;
                    format?: "json" | "csv";
                };
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the payments, or the CSV export */
                200: {
                    headers: {
                        /** @description CSV only: `attachment; filename="payments.csv"` */
                        "Content-Disposition"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            payments: components["schemas"]["EscrowPayment"][];
                        };
                        "text/csv": string;
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payments/{paymentId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One escrow payment and its transactions (scope settlements:read) */
        get: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path: {
                    /** @description an escrow payment's `esc_…` id (the caller's, of this environment; else 404 `payment not found`) */
                    paymentId: components["parameters"]["PaymentId"];
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the payment, and every transaction that moved it, oldest first */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            payment: components["schemas"]["EscrowPayment"];
                            transactions: components["schemas"]["EscrowTransaction"][];
                        };
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payments/{paymentId}/capture": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Capture an escrow payment's hold, all of it or part (scope payments:write)
         * @description Sends the capture through svc's facilitator, signed by the key svc keeps for the seller. The payment's state is
         *     read from the chain first; a capture that cannot succeed is refused before anything is sent, as 409
         *     `{"error": "<what happened>: <reason code> (<detail>)"}`: above what is capturable
         *     (`invalid_auth_capture_evm_insufficient_authorization`), at or within 6 s of the capture deadline
         *     (`invalid_auth_capture_evm_capture_deadline_expired`), nothing held (`invalid_auth_capture_evm_zero_authorization`).
         *     One lifecycle call per payment at a time. What stays held can be captured later or voided.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path: {
                    /** @description an escrow payment's `esc_…` id (the caller's, of this environment; else 404 `payment not found`) */
                    paymentId: components["parameters"]["PaymentId"];
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": components["schemas"]["PaymentCapture"];
                };
            };
            responses: {
                200: components["responses"]["PaymentMoved"];
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
                409: components["responses"]["PaymentRefused"];
                502: components["responses"]["FacilitatorFailed"];
                503: components["responses"]["ChainRestarting"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payments/{paymentId}/void": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Void what an escrow payment still holds, back to the buyer (scope payments:write)
         * @description Sends the void through svc's facilitator. Refused as 409 when nothing is held (a second void:
         *     `invalid_auth_capture_evm_zero_authorization`) or the payment was a terminal charge.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path: {
                    /** @description an escrow payment's `esc_…` id (the caller's, of this environment; else 404 `payment not found`) */
                    paymentId: components["parameters"]["PaymentId"];
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": Record<string, unknown>;
                };
            };
            responses: {
                200: components["responses"]["PaymentMoved"];
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
                409: components["responses"]["PaymentRefused"];
                502: components["responses"]["FacilitatorFailed"];
                503: components["responses"]["ChainRestarting"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payments/{paymentId}/refund": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Refund part or all of what an escrow payment captured, to the buyer (scope payments:write)
         * @description The refund is funded by the pay-to address (its allowance to svc's operator, which svc makes itself for a
         *     Sandbox API). Refused as 409 at or after the refund deadline (`invalid_auth_capture_evm_refund_deadline_expired`),
         *     above what is refundable (`invalid_auth_capture_evm_refund_exceeds_capture`), or when the pay-to address cannot
         *     fund it (`invalid_auth_capture_evm_refund_funding_unavailable`, naming the approval to make).
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                };
                path: {
                    /** @description an escrow payment's `esc_…` id (the caller's, of this environment; else 404 `payment not found`) */
                    paymentId: components["parameters"]["PaymentId"];
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PaymentRefund"];
                };
            };
            responses: {
                200: components["responses"]["PaymentMoved"];
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
                409: components["responses"]["PaymentRefused"];
                502: components["responses"]["FacilitatorFailed"];
                503: components["responses"]["ChainRestarting"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's payment events as they happen, as Server-Sent Events (scope settlements:read)
         * @description The live stream of what the gateway does with the caller's APIs in the caller's environment (a JWT sees its
         *     own APIs; an API key needs settlements:read): `payment.required` (a 402 offered), `payment.verified`,
         *     `payment.settled`, `payment.failed` (with the x402 `reason` when the facilitator gave one) and
         *     `upstream.failed` (the upstream failed: nothing was settled, `charged` is false; on an endpoint paid upfront
         *     the settlement came first: `charged` is true, with its `transaction` and `settlement_id`). An escrow payment
         *     (auth-capture) adds `payment.authorized`, `payment.captured`, `payment.voided`, `payment.refunded` and
         *     `payment.reclaimed`, each with its `escrow` part. Each event is
         *     `id: evt_…`, `event: <type>`, `data: <PaymentEvent JSON>`. On the Sandbox, what changes every seller's APIs
         *     comes to every seller's stream (whatever `api_id`), saying who did it: `sandbox.reverted`,
         *     `sandbox.time_advanced`, `sandbox.time_reset`, `sandbox.chain_restarted` (`data: <SandboxEvent JSON>`). A client that reconnects with `Last-Event-ID`
         *     first gets what it missed (svc keeps the last 1,000 events, and builds a seller's events until a minute after
         *     its last listener left). A client more than 1 MiB behind is disconnected, never waited for. A comment line
         *     every 15 s keeps idle connections open.
         */
        get: {
            parameters: {
                query?: {
                    /** @description only this API (the caller's, of this environment; else 404 `api not found`) */
                    api_id?: string;
                };
                header?: {
                    /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
                    "X-Svc-Environment"?: components["parameters"]["Environment"];
                    /** @description the id of the last event received; the events after it that svc still keeps are sent first */
                    "Last-Event-ID"?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description an endless `text/event-stream`; each `data:` line is a PaymentEvent or a SandboxEvent */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/event-stream": string;
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
                429: components["responses"]["TooManyRequests"];
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dev/faults": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The faults injected into the Sandbox (a seller's credential - its own APIs' only)
         * @description On the Sandbox control plane ({sandbox_base_url}) only, never through the gateway. The Sandbox's owner (a
         *     direct caller on this machine without a credential on `svc up`, the admin token on `svc serve`) sees and
         *     changes every fault (on `svc up`, whatever credential it bears). On `svc serve`, a seller's credential (API
         *     key or session) makes the caller a tenant of a shared Sandbox: it sees, adds and clears the faults of its own
         *     APIs only (`api` is then required, one of its Sandbox APIs by slug or id), and another seller's API or fault
         *     is a 404. `reasons` lists every reason code a verify or
         *     settle fault may answer.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the faults in force, oldest first, and the reason codes */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            faults: components["schemas"]["Fault"][];
                            reasons: string[];
                        };
                    };
                };
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                503: components["responses"]["Unavailable"];
            };
        };
        put?: never;
        /**
         * Inject a fault into the Sandbox (a seller's credential - into one of its own APIs only)
         * @description `verify` with a `reason`: the facilitator refuses the next payments with that x402 reason before anything
         *     is simulated. `settle` with a `reason` and/or `delay_ms`: the settlement waits, then is refused without a
         *     transaction being sent (with a delay only, it then settles). `upstream` with one of `status` (the upstream
         *     answers that error), `delay_ms` (it answers that much later; past the gateway's 30 s deadline, a 504) or
         *     `drop` (it drops the connection): nothing is settled. `api` (a Sandbox API's slug) limits it to that API;
         *     without it, every API and every seller of svc's facilitator URL meets it. `times` strikes, then it is gone
         *     (default: until cleared).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["FaultCreate"];
                };
            };
            responses: {
                /** @description the fault, in force */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Fault"];
                    };
                };
                400: components["responses"]["BadRequest"];
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
                413: components["responses"]["TooLarge"];
                503: components["responses"]["Unavailable"];
            };
        };
        /** Clear every fault (a seller's credential - its own APIs' faults) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description how many were cleared */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["FaultsCleared"];
                    };
                };
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                503: components["responses"]["Unavailable"];
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dev/faults/{faultId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Clear one fault (a seller's credential - one of its own APIs', else 404) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    faultId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description cleared */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["FaultsCleared"];
                    };
                };
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                404: components["responses"]["NotFound"];
                503: components["responses"]["Unavailable"];
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dev/chain/restart": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Restart the Sandbox chain and its twins on the same URLs, keeping their state; the Sandbox's owner only
         * @description Each Anvil's state is dumped, the process stopped, a new one started on the same port and the state loaded
         *     into it: balances, contracts, nonces and settlements stand. The Sandbox chain and every twin (`svc up --twin`)
         *     restart together. Payments meanwhile are answered 503 with Retry-After. The Sandbox's owner only (a direct
         *     caller on this machine on `svc up`, the admin token on `svc serve`); on `svc serve` a seller's credential is a 403. Every
         *     seller's event stream gets `sandbox.chain_restarted` with who did it.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the chains are back */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            restarted: true;
                            rpc_url: string;
                            /** @description how long the Sandbox chain was away */
                            ms: number;
                            block_number: number;
                            /** @description each twin, restarted with the Sandbox chain (empty without twins) */
                            twins: {
                                /** @example base-sepolia */
                                name: string;
                                rpc_url: string;
                                /** @description how long the twin was away */
                                ms: number;
                                block_number: number;
                            }[];
                        };
                    };
                };
                401: components["responses"]["Unauthorized"];
                403: components["responses"]["Forbidden"];
                503: components["responses"]["Unavailable"];
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Error: {
            error: string;
        };
        /** @enum {unknown} */
        Environment: "production" | "development";
        /** @enum {unknown} */
        Scope: "apis:read" | "apis:write" | "endpoints:read" | "endpoints:write" | "domains:read" | "domains:write" | "stats:read" | "settlements:read" | "openapi:read" | "payments:write";
        Credentials: {
            /** Format: email */
            email: string;
            password: string;
        };
        User: {
            id: string;
            email: string;
            email_verified: boolean;
            /** Format: date-time */
            created_at: string;
        };
        Session: {
            /** @description a JWT (HS256), valid 7 days */
            token: string;
            user: components["schemas"]["User"];
        };
        ApiKey: {
            id: string;
            name: string;
            environment: components["schemas"]["Environment"];
            /** @description the first characters of the secret, to tell keys apart */
            prefix: string;
            scopes: components["schemas"]["Scope"][];
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            last_used_at: string | null;
            /** Format: date-time */
            revoked_at: string | null;
        };
        PaymentToken: {
            address: string;
            symbol: string;
            decimals: number;
            network: string;
            extra: {
                name: string;
                version: string;
                assetTransferMethod?: string;
            };
        };
        Api: {
            id: string;
            name: string;
            slug: string;
            environment: components["schemas"]["Environment"];
            /** Format: uri */
            upstream_base_url: string;
            /** @constant */
            pay_to_mode: "user_wallet";
            /** @description EIP-55 checksummed */
            pay_to_address: string | null;
            discovery_guidance: string | null;
            discovery_contact_email: string | null;
            openapi_version: string;
            /**
             * Format: uri
             * @description http://{slug}.{platform_domain}:PORT ({slug}.dev.{platform_domain} in Sandbox)
             */
            gateway_url: string;
            /**
             * Format: uri
             * @description the same gateway at an address that needs no name resolution: http://127.0.0.1:PORT/gateway/{gateway host} (svc up); null on svc serve
             */
            direct_url: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        ApiCreate: {
            name: string;
            /** @description a lower-case DNS label, unique per environment, not reserved */
            slug: string;
            /**
             * Format: uri
             * @description http or https, without query or fragment
             */
            upstream_base_url: string;
            /** @constant */
            pay_to_mode: "user_wallet";
            pay_to_address: string;
            discovery_guidance?: string | null;
            /** Format: email */
            discovery_contact_email?: string | null;
            /** @default 1.0.0 */
            openapi_version?: string;
        };
        ApiUpdate: {
            name?: string;
            slug?: string;
            /** Format: uri */
            upstream_base_url?: string;
            /** @constant */
            pay_to_mode?: "user_wallet";
            pay_to_address?: string;
            discovery_guidance?: string | null;
            /** Format: email */
            discovery_contact_email?: string | null;
            openapi_version?: string;
        };
        DeletedResource: {
            id: string;
            /** @constant */
            deleted: true;
        };
        /** @enum {unknown} */
        HttpMethod: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS";
        /**
         * @description Starts with `/`; segments are literal or a whole `{name}` parameter (name = [A-Za-z_][A-Za-z0-9_]*, no
         *     duplicates); an optional `*` as the last character matches any rest (`/files/*`, `/files*`).
         */
        PathPattern: string;
        Accept: {
            /**
             * @description exact: amount is the price; upto: amount is the maximum a buyer signs, and the upstream says what is charged (0 included) in its Settlement-Overrides response header, e.g. {"amount":"1000"}, {"amount":"50%"}, {"amount":"$0.05"}; svc strips the header; batch-settlement: amount is the price of a request, paid by an off-chain voucher on a channel the buyer deposited into once (x402 payment channels); auth-capture: amount is the most a buyer signs into an escrow hold (x402 escrow payments): captured when the upstream answers (sync; a Settlement-Overrides amount captures less and voids the rest) or later through /payments (deferred), voided on a failure, refundable until the refund deadline
             * @enum {unknown}
             */
            scheme: "exact" | "upto" | "batch-settlement" | "auth-capture";
            /** @description CAIP-2; eip155:845320402 on development APIs */
            network: string;
            /** @description token contract (checksummed); the Sandbox USDC on development APIs */
            asset: string;
            /** @description atomic units (USDC has 6 decimals: "100000" = 0.10 USDC), below 2^256 */
            amount: string;
            /** @default 300 */
            max_timeout_seconds: number;
            /** @description for the Sandbox USDC: name, version (filled in when missing); assetTransferMethod eip3009 (the default of exact) or permit2 (upto always pays through Permit2); gasSponsoring (svc's, Permit2 only): the one gas sponsoring extension the 402 declares, both when left out */
            extra?: {
                /** @enum {unknown} */
                assetTransferMethod?: "eip3009" | "permit2";
                /**
                 * @description authorization (the default): settle after the upstream answered below 400; upfront: settle, then call the upstream (not with upto); auth-capture: escrow (its default: a hold before the upstream is called, captured or voided after) or authorization (one terminal charge after the upstream answered below 400)
                 * @enum {unknown}
                 */
                paymentFlow?: "authorization" | "upfront" | "escrow";
                /**
                 * @description auth-capture, escrow flow: sync (the default) captures when the upstream answers; deferred keeps the hold for the seller to capture, void or let expire (POST /payments/{paymentId}/capture)
                 * @enum {unknown}
                 */
                captureMode?: "sync" | "deferred";
                /** @description auth-capture: how long after the 402 a hold can be captured (at least max_timeout_seconds + 120); after it the buyer can reclaim the hold; 86400 when left out */
                captureDeadlineSeconds?: number;
                /** @description auth-capture: how long after the 402 a captured payment can be refunded (at least captureDeadlineSeconds); 604800 when left out */
                refundDeadlineSeconds?: number;
                /** @description auth-capture: the least fee a capture takes, in basis points of what it captures; 0 when left out */
                minFeeBps?: number;
                /** @description auth-capture: the most fee a capture may take (at least minFeeBps); 0 when left out */
                maxFeeBps?: number;
                /** @description auth-capture: who receives the fee; required when maxFeeBps is above 0, left out otherwise */
                feeRecipient?: string;
                /** @enum {unknown} */
                gasSponsoring?: "eip2612GasSponsoring" | "erc20ApprovalGasSponsoring";
                /** @description batch-settlement: the smallest deposit that opens a channel (atomic units, at least amount); left out, 10 × amount */
                minDeposit?: string;
                /** @description batch-settlement: seconds a buyer waits between asking to withdraw and withdrawing (part of the channel); 900 when left out; the same on every batch-settlement accept of an endpoint */
                withdrawDelay?: number;
                /** @description batch-settlement (svc's): how often the seller's channel manager claims the vouchers received, in one transaction; 60 when left out */
                claimIntervalSeconds?: number;
                /** @description batch-settlement (svc's): how often it settles what it claimed to the pay-to address; 60 when left out */
                settleIntervalSeconds?: number;
            } & {
                [key: string]: unknown;
            };
        };
        Accepts: components["schemas"]["Accept"][];
        /** @description An accept option as a request gives it; `max_timeout_seconds` may be left out (300). */
        AcceptInput: {
            /**
             * @description exact: amount is the price; upto: amount is the maximum a buyer signs, and the upstream says what is charged (0 included) in its Settlement-Overrides response header, e.g. {"amount":"1000"}, {"amount":"50%"}, {"amount":"$0.05"}; svc strips the header; batch-settlement: amount is the price of a request, paid by an off-chain voucher on a channel the buyer deposited into once (x402 payment channels); auth-capture: amount is the most a buyer signs into an escrow hold (x402 escrow payments): captured when the upstream answers (sync; a Settlement-Overrides amount captures less and voids the rest) or later through /payments (deferred), voided on a failure, refundable until the refund deadline
             * @enum {unknown}
             */
            scheme: "exact" | "upto" | "batch-settlement" | "auth-capture";
            /** @description CAIP-2; eip155:845320402 on development APIs */
            network: string;
            /** @description token contract; the Sandbox USDC on development APIs */
            asset: string;
            /** @description atomic units (USDC has 6 decimals: "100000" = 0.10 USDC), below 2^256 */
            amount: string;
            /** @default 300 */
            max_timeout_seconds?: number;
            /** @description for the Sandbox USDC: name, version (filled in when missing); assetTransferMethod eip3009 (the default of exact) or permit2 (upto always pays through Permit2); gasSponsoring (svc's, Permit2 only): the one gas sponsoring extension the 402 declares, both when left out */
            extra?: {
                /** @enum {unknown} */
                assetTransferMethod?: "eip3009" | "permit2";
                /**
                 * @description authorization (the default): settle after the upstream answered below 400; upfront: settle, then call the upstream (not with upto); auth-capture: escrow (its default: a hold before the upstream is called, captured or voided after) or authorization (one terminal charge after the upstream answered below 400)
                 * @enum {unknown}
                 */
                paymentFlow?: "authorization" | "upfront" | "escrow";
                /**
                 * @description auth-capture, escrow flow: sync (the default) captures when the upstream answers; deferred keeps the hold for the seller to capture, void or let expire (POST /payments/{paymentId}/capture)
                 * @enum {unknown}
                 */
                captureMode?: "sync" | "deferred";
                /** @description auth-capture: how long after the 402 a hold can be captured (at least max_timeout_seconds + 120); after it the buyer can reclaim the hold; 86400 when left out */
                captureDeadlineSeconds?: number;
                /** @description auth-capture: how long after the 402 a captured payment can be refunded (at least captureDeadlineSeconds); 604800 when left out */
                refundDeadlineSeconds?: number;
                /** @description auth-capture: the least fee a capture takes, in basis points of what it captures; 0 when left out */
                minFeeBps?: number;
                /** @description auth-capture: the most fee a capture may take (at least minFeeBps); 0 when left out */
                maxFeeBps?: number;
                /** @description auth-capture: who receives the fee; required when maxFeeBps is above 0, left out otherwise */
                feeRecipient?: string;
                /** @enum {unknown} */
                gasSponsoring?: "eip2612GasSponsoring" | "erc20ApprovalGasSponsoring";
                /** @description batch-settlement: the smallest deposit that opens a channel (atomic units, at least amount); left out, 10 × amount */
                minDeposit?: string;
                /** @description batch-settlement: seconds a buyer waits between asking to withdraw and withdrawing (part of the channel); 900 when left out; the same on every batch-settlement accept of an endpoint */
                withdrawDelay?: number;
                /** @description batch-settlement (svc's): how often the seller's channel manager claims the vouchers received, in one transaction; 60 when left out */
                claimIntervalSeconds?: number;
                /** @description batch-settlement (svc's): how often it settles what it claimed to the pay-to address; 60 when left out */
                settleIntervalSeconds?: number;
            } & {
                [key: string]: unknown;
            };
        };
        AcceptsInput: components["schemas"]["AcceptInput"][];
        Endpoint: {
            id: string;
            api_id: string;
            method: components["schemas"]["HttpMethod"];
            path_pattern: components["schemas"]["PathPattern"];
            accepts: components["schemas"]["Accepts"];
            /**
             * @description JSON Schema of the request body (`openapi`, `manual`). When schema_source is `inferred` it is a request
             *     envelope (null for a method without body and a pattern without parameters), marked by its `$comment`:
             *     `{"type": "object", "$comment": "svc inferred request: …", "properties": {"path": {"type": "object",
             *     "properties": {"<name>": {"type": "string"}}, "required": ["<name>"], "additionalProperties": false},
             *     "body": {"type": "object"}}, "required": ["path", "body"]}`, with `path` when the pattern has `{name}`
             *     parameters and `body` for POST, PUT and PATCH.
             */
            request_schema: Record<string, unknown> | null;
            /**
             * @description JSON Schema of the 200 response. Inferred: for GET, from one probe of the upstream (upstream_base_url +
             *     path with parameters replaced by `1` and a trailing `*` dropped; 2 s, 256 KB; a JSON 2xx answer), else `{}`;
             *     `{}` for other methods; null for HEAD.
             */
            response_schema: Record<string, unknown> | null;
            /** @enum {unknown} */
            schema_source: "inferred" | "openapi" | "manual";
            enabled: boolean;
            description: string | null;
            /** @description buyers must send x402's payment-identifier extension with an id (its 402 declares it required); otherwise it is optional */
            payment_identifier_required: boolean;
            /** @description lifetime in seconds given at creation */
            ttl: number | null;
            /**
             * Format: date-time
             * @description present when ttl was set
             */
            expires_at: string | null;
            /** @description sign-in-with-x, null when off */
            siwx: components["schemas"]["Siwx"] | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        EndpointCreate: {
            /** @description one of GET POST PUT PATCH DELETE HEAD OPTIONS (any case) */
            method: string;
            path_pattern: components["schemas"]["PathPattern"];
            accepts: components["schemas"]["AcceptsInput"];
            /** @description a JSON Schema (2020-12, or draft-07/06 by $schema) */
            request_schema?: Record<string, unknown> | null;
            /** @description a JSON Schema (2020-12, or draft-07/06 by $schema) */
            response_schema?: Record<string, unknown> | null;
            /** @default true */
            enabled?: boolean;
            description?: string | null;
            /**
             * @description buyers must send a payment-identifier id
             * @default false
             */
            payment_identifier_required?: boolean;
            /** @description seconds; create only; sets expires_at */
            ttl?: number;
            /** @description sign-in-with-x (null or absent: off) */
            siwx?: components["schemas"]["Siwx"] | null;
        };
        /**
         * @description x402's `sign-in-with-x` extension on the endpoint: its 402 declares a challenge (domain: the gateway host,
         *     uri, nonce, issuedAt, expirationTime, supportedChains), and a wallet that paid for this endpoint in the last
         *     `access_seconds` (by svc's clock) sends a signed SIGN-IN-WITH-X header and is served without paying.
         */
        Siwx: {
            access_seconds: number;
        };
        EndpointUpdate: {
            method?: string;
            path_pattern?: components["schemas"]["PathPattern"];
            accepts?: components["schemas"]["AcceptsInput"];
            request_schema?: Record<string, unknown> | null;
            response_schema?: Record<string, unknown> | null;
            /** @description clear both schemas and infer again; not with schemas */
            clear_schemas?: boolean;
            enabled?: boolean;
            description?: string | null;
            /** @description sign-in-with-x (null turns it off) */
            siwx?: components["schemas"]["Siwx"] | null;
            /** @description buyers must send a payment-identifier id */
            payment_identifier_required?: boolean;
        };
        ParsedOperation: {
            method: components["schemas"]["HttpMethod"];
            /** @description the OpenAPI path as written (`{id}` stays `{id}`) */
            path_pattern: string;
            summary: string | null;
            description: string | null;
            operation_id: string | null;
            request_schema: Record<string, unknown> | null;
            response_schema: Record<string, unknown> | null;
        };
        ParsedOpenApi: {
            openapi_version: string;
            title: string | null;
            operations: components["schemas"]["ParsedOperation"][];
        };
        /** @description an operation as POST /openapi/parse answers it; method and path_pattern are enough */
        ImportOperation: {
            method: string;
            path_pattern: components["schemas"]["PathPattern"];
            summary?: string | null;
            description?: string | null;
            operation_id?: string | null;
            request_schema?: Record<string, unknown> | null;
            response_schema?: Record<string, unknown> | null;
        };
        DiscoveryHostUrls: {
            /** @description a hostname without port */
            host: string;
            /**
             * Format: uri
             * @description http://{host}:{port}/openapi.json
             */
            openapi_url: string;
            /**
             * Format: uri
             * @description http://{host}:{port}/.well-known/x402.json
             */
            well_known_url: string;
            is_primary: boolean;
        };
        DiscoverySummary: {
            /** @description the first verified custom domain, else the platform host */
            primary_host: string;
            /** @description every host serving the API, platform host first, then verified custom domains */
            hosts: string[];
            /**
             * Format: uri
             * @description of the primary host
             */
            openapi_url: string;
            /**
             * Format: uri
             * @description of the primary host
             */
            well_known_url: string;
            endpoint_count: number;
            /** @description endpoints listed by the documents: enabled and not ephemeral */
            discoverable_endpoint_count: number;
            host_urls: components["schemas"]["DiscoveryHostUrls"][];
        };
        DomainCreate: {
            /** @description a fully qualified DNS name, e.g. api.example.com (lower-cased) */
            hostname: string;
        };
        Domain: {
            id: string;
            api_id: string;
            hostname: string;
            /** @enum {unknown} */
            status: "pending" | "verified";
            /** @description the DNS record to publish */
            verification_record: {
                /** @constant */
                type: "TXT";
                /** @description _svc-challenge.<hostname> */
                name: string;
                value: string;
            };
            /** @description the platform host of the API: point the hostname at it */
            cname_target: string;
            verification_token: string;
            /** Format: date-time */
            verified_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        DomainVerification: {
            /**
             * @description `verified`: found now; `already verified`: verified before, nothing looked up; `pending`: not found (see reason)
             * @enum {unknown}
             */
            status: "verified" | "already verified" | "pending";
            domain: components["schemas"]["Domain"];
            /** @description present with status pending: why the record did not verify */
            reason?: string;
        };
        /** @description an amount in the token's atomic units (e.g. USDC base units, 6 decimals), a decimal string of any size */
        AtomicAmount: string;
        /** @description a UTC day, YYYY-MM-DD */
        StatsDay: string;
        StatsRevenue: {
            /** @description CAIP-2 network, e.g. eip155:845320402 */
            network: string;
            /** @description token address */
            asset: string;
            amount: components["schemas"]["AtomicAmount"];
            /** @description the token's decimals, when svc knows the token (USDC: 6) */
            decimals?: number;
            /** @description the token's symbol, when svc knows the token (e.g. USDC) */
            symbol?: string;
        };
        StatsOverview: {
            days: number;
            from: components["schemas"]["StatsDay"];
            /** @description today (UTC) */
            to: components["schemas"]["StatsDay"];
            /** @description the API asked for; null: all the caller's APIs */
            api_id: string | null;
            totals: {
                /** @description gateway requests */
                requests: number;
                /** @description 402 answers */
                payment_required: number;
                /** @description paid requests served */
                paid_requests: number;
                settlements: number;
                /** @description distinct payer addresses (case-insensitive) */
                unique_payers: number;
            };
            /** @description settled amounts per network and asset, sorted by network then asset */
            revenue: components["schemas"]["StatsRevenue"][];
            /** @description escrow payments (x402 auth-capture): what was held, captured, voided, refunded and reclaimed in the range, per network and asset */
            escrow?: components["schemas"]["StatsEscrow"][];
            /** @description one entry per day of the range, oldest first; days without traffic are zeros */
            daily: {
                day: components["schemas"]["StatsDay"];
                requests: number;
                payment_required: number;
                paid_requests: number;
                settlements: number;
                revenue: {
                    network: string;
                    asset: string;
                    amount: components["schemas"]["AtomicAmount"];
                }[];
            }[];
        };
        /**
         * @description authorized: a hold with something still capturable; captured: captured (all or part), nothing left held; charged: the authorization flow's terminal charge; voided: the hold went back without a capture; refunded: everything captured went back; reclaimed: the buyer took the hold back after the capture deadline
         * @enum {unknown}
         */
        EscrowPaymentState: "authorized" | "captured" | "charged" | "voided" | "refunded" | "reclaimed";
        /** @description an x402 auth-capture payment to one of the caller's APIs; amounts in atomic units of asset */
        EscrowPayment: {
            /** @description `esc_…` */
            id: string;
            api_id: string;
            endpoint_id: string | null;
            /** @description the settlement record whose amount is captured − refunded */
            settlement_id: string | null;
            environment: components["schemas"]["Environment"];
            /** @description CAIP-2 network */
            network: string;
            /** @description token address */
            asset: string;
            payer: string;
            pay_to: string;
            /** @description HTTP method of the paid request */
            method: string;
            /** @description path of the paid request */
            path: string;
            /** @enum {unknown} */
            flow: "escrow" | "authorization";
            /**
             * @description escrow flow only
             * @enum {unknown}
             */
            capture_mode: "sync" | "deferred" | null;
            /** @enum {unknown} */
            transfer_method: "eip3009" | "permit2";
            /** @description the AuthCaptureEscrow contract */
            escrow: string;
            /** @description svc's facilitator's operator (PaymentInfo.operator) */
            operator: string;
            /** @description the key svc keeps for the seller, which signs captures, voids and refunds */
            receiver_authorizer: string;
            /** @description the escrow's id of the payment (getHash) */
            payment_info_hash: string;
            /** @description the escrow's PaymentInfo struct (x402's wire spelling) */
            payment_info: {
                operator: string;
                payer: string;
                receiver: string;
                token: string;
                maxAmount: string;
                preApprovalExpiry: number;
                authorizationExpiry: number;
                refundExpiry: number;
                minFeeBps: number;
                maxFeeBps: number;
                feeReceiver: string;
                salt: string;
            };
            /** @description the buyer's saltNonce (bound salt) */
            salt_nonce: string | null;
            authorized: components["schemas"]["AtomicAmount"];
            captured: components["schemas"]["AtomicAmount"];
            fees: components["schemas"]["AtomicAmount"];
            voided: components["schemas"]["AtomicAmount"];
            refunded: components["schemas"]["AtomicAmount"];
            reclaimed: components["schemas"]["AtomicAmount"];
            capturable: components["schemas"]["AtomicAmount"];
            refundable: components["schemas"]["AtomicAmount"];
            state: components["schemas"]["EscrowPaymentState"];
            /** @description unix seconds */
            pre_approval_expiry: number;
            /** @description unix seconds: captures before it; the buyer can reclaim the hold from it */
            capture_deadline: number;
            /** @description unix seconds: refunds before it */
            refund_deadline: number;
            /** @description false when the buyer did not get the answer (a deferred hold after a crash stays authorized, for the seller to decide) */
            delivered: boolean;
            chain_epoch: string | null;
            /** @description made on an earlier Sandbox chain than the running one */
            old_chain: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        EscrowTransaction: {
            id: string;
            /** @enum {unknown} */
            kind: "authorize" | "charge" | "capture" | "void" | "refund" | "reclaim";
            amount: components["schemas"]["AtomicAmount"];
            fee_amount: components["schemas"]["AtomicAmount"];
            transaction: string;
            /**
             * @description who moved it: svc's gateway in the paid request, the seller (/payments), the buyer (reclaim), or svc's recovery at start
             * @enum {unknown}
             */
            actor: "gateway" | "seller" | "payer" | "recovery";
            /** Format: date-time */
            created_at: string;
        };
        EscrowPaymentMoved: {
            payment: components["schemas"]["EscrowPayment"];
            transaction: components["schemas"]["EscrowTransaction"];
        };
        PaymentCapture: {
            /** @description atomic units to capture; default everything capturable */
            amount?: string;
        };
        PaymentRefund: {
            /** @description atomic units to refund, at most what is refundable */
            amount: string;
        };
        /** @description an escrow payment's part of a settlement (x402 auth-capture): the settlement's amount is captured − refunded; null for other schemes */
        EscrowSummary: {
            /** @description `esc_…`: GET /payments/{paymentId} */
            id: string;
            state: components["schemas"]["EscrowPaymentState"];
            authorized: components["schemas"]["AtomicAmount"];
            captured: components["schemas"]["AtomicAmount"];
            voided: components["schemas"]["AtomicAmount"];
            refunded: components["schemas"]["AtomicAmount"];
            reclaimed: components["schemas"]["AtomicAmount"];
            capture_deadline: number;
            refund_deadline: number;
        } | null;
        /** @description escrow money moved in the range (sums of the escrow transactions), per network and asset */
        StatsEscrow: {
            network: string;
            asset: string;
            /** @description authorized and not yet captured */
            held: components["schemas"]["AtomicAmount"];
            captured: components["schemas"]["AtomicAmount"];
            voided: components["schemas"]["AtomicAmount"];
            refunded: components["schemas"]["AtomicAmount"];
            reclaimed: components["schemas"]["AtomicAmount"];
        };
        Channel: {
            /** @description the channel's id (bytes32 */
            channel_id: string;
            /** @description the API its first request paid */
            api_id: string;
            environment: components["schemas"]["Environment"];
            network: string;
            asset: string;
            payer: string;
            /** @description the receiver */
            pay_to: string;
            /** @description seconds between a buyer's withdraw request and its withdrawal */
            withdraw_delay: number;
            deposited: components["schemas"]["AtomicAmount"];
            /** @description the channel's balance on chain as last seen (claimed funds stay in it; what a buyer can take back is balance − claimed) */
            balance: string;
            /** @description what the vouchers charged */
            spent: string;
            /** @description what the receiver claimed on chain */
            claimed: string;
            /** @description what of the claimed was settled to the pay-to address */
            settled: string;
            /** @description what went back to the buyer by cooperative refunds */
            refunded: string;
            /** @description what went back to the buyer by its own withdrawal (initiateWithdraw, then finalizeWithdraw once the withdraw delay passed; read from the Sandbox chain) */
            withdrawn: string;
            /** @description requests paid from the channel */
            vouchers: number;
            /**
             * @description open; withdrawing (the buyer asked to withdraw on chain); closed (refunded, or withdrawn to the receiver's claimed part)
             * @enum {unknown}
             */
            state: "open" | "withdrawing" | "closed";
            chain_epoch: string | null;
            /** @description opened on an earlier Sandbox chain than the running one */
            old_chain: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        Settlement: {
            id: string;
            api_id: string;
            /** @description null once the endpoint is gone (ephemeral endpoints are removed after their first settlement) */
            endpoint_id: string | null;
            environment: components["schemas"]["Environment"];
            /** @description CAIP-2 network */
            network: string;
            /** @description token address */
            asset: string;
            amount: components["schemas"]["AtomicAmount"];
            payer: string;
            pay_to: string;
            /** @description transaction hash of the settlement */
            transaction: string;
            /** @description HTTP method of the paid request */
            method: string;
            /** @description path of the paid request */
            path: string;
            /** Format: date-time */
            created_at: string;
            /** @description the Sandbox chain it settled on (an id that stays while the chain's state is kept, new for a chain that started empty); null for production settlements and records from before epochs */
            chain_epoch: string | null;
            /** @description settled on an earlier Sandbox chain than the running one (svc up --fresh-chain, a reset, a restart that came back empty) — its transaction and the balances it moved are gone with that chain */
            old_chain: boolean;
            /** @description false when the buyer was charged but did not get the answer (the connection went away after the settlement, or svc stopped mid-payment and found the settlement on the chain at its next start) */
            delivered: boolean;
            /** @description the payment's builder-code extension (ERC-8021 attribution: a app code, w wallet code, s service codes); null without one */
            builder_code: {
                a?: string;
                w?: string;
                s?: string[];
            } | null;
            escrow?: components["schemas"]["EscrowSummary"];
        };
        SettlementPage: {
            settlements: components["schemas"]["Settlement"][];
            /** @description pass as `cursor` for the next page; null on the last page */
            next_cursor: string | null;
        };
        /** @description an EVM address; answers give it checksummed (EIP-55) */
        SandboxAddress: string;
        /** @description a hexadecimal quantity (wei or USDC base units), e.g. `0x0`, `0x3b9aca00` */
        SandboxHexQuantity: string;
        SandboxWallet: {
            address: components["schemas"]["SandboxAddress"];
            /** @description the full private key (the command line hides it in human output) */
            private_key: string;
            /** @description the private key redacted to its first 6 characters (`0x` and 4 hex digits), an ellipsis (U+2026) and its last 4 hex digits, e.g. `0x1234…abcd` */
            private_key_redacted: string;
            /**
             * @description `started`: the wallet is new and a faucet funding (ETH and USDC) runs in the background; `existing`: the wallet was already there
             * @enum {unknown}
             */
            funding: "started" | "existing";
            /**
             * Format: date-time
             * @description when this keypair was made (a reset makes a new one)
             */
            created_at: string;
        };
        SandboxBalances: {
            address: components["schemas"]["SandboxAddress"];
            eth_wei: components["schemas"]["SandboxHexQuantity"];
            usdc_base: components["schemas"]["SandboxHexQuantity"];
        };
        TwinChain: {
            /** @description svc's name of the twin (`base-sepolia`) */
            name: string;
            /** @description CAIP-2 network (x402 v2), e.g. eip155:84532 */
            network: string;
            /** @description the x402 v1 network name, e.g. base-sepolia */
            v1_network: string;
            chain_id: number;
            rpc_url: string;
            /** @enum {unknown} */
            mode: "offline" | "fork";
            /** @description the USDC address, the testnet's */
            usdc: string;
        };
        SandboxFaucetRequest: {
            /** @description the chain to fund: a twin's network (`eip155:84532`, or its v1 name `base-sepolia`); default: the Sandbox chain */
            network?: string;
            address: components["schemas"]["SandboxAddress"];
            /**
             * @default all
             * @enum {unknown}
             */
            asset?: "all" | "eth" | "usdc";
            /** @description whole units (ETH or USDC), e.g. "2.5"; needs asset `eth` or `usdc`; default: the chain manager's default amounts */
            amount?: string;
            /**
             * @description also approve Permit2 (0x000000000022D473030F116dDEE9F6B43aC78BA3) to spend the address's USDC, sent as the address on the Sandbox chain, for buyers paying through Permit2 (exact with assetTransferMethod permit2, upto) without a sponsored EIP-2612 permit; its gas is added when the address has too little ETH
             * @default false
             */
            approve_permit2?: boolean;
            /**
             * @description also approve the auth-capture operator (relayer account 1, 0x70997970C51812dc3A010C7d01b50e0d17dc79C8: the facilitator's `captureAuthorizer`) to spend the address's USDC, sent as the address: a seller's consent to fund the refunds of its escrow payments that the facilitator relays (without it a refund is refused with invalid_auth_capture_evm_refund_funding_unavailable); its gas is added when the address has too little ETH
             * @default false
             */
            approve_escrow_operator?: boolean;
        };
        SandboxFaucetResult: {
            address: components["schemas"]["SandboxAddress"];
            /** @enum {unknown} */
            asset: "all" | "eth" | "usdc";
            /** @description what this call sent */
            funded: {
                eth_wei?: components["schemas"]["SandboxHexQuantity"];
                usdc_base?: components["schemas"]["SandboxHexQuantity"];
            };
            /** @description the USDC transfer or mint transaction, when there was one; the Permit2 and escrow operator approvals, when asked for */
            transactions: {
                usdc?: string;
                permit2_approval?: string;
                escrow_operator_approval?: string;
            };
            /** @description the balances after the funding */
            balances: {
                eth_wei: components["schemas"]["SandboxHexQuantity"];
                usdc_base: components["schemas"]["SandboxHexQuantity"];
            };
        };
        Snapshot: {
            id: string;
            /**
             * Format: date-time
             * @description svc's time when it was taken
             */
            created_at: string;
            /** @description the chain's latest block when it was taken */
            chain_block: number;
        };
        SandboxTime: {
            /** @description the latest block's timestamp (seconds since the epoch) */
            chain_time: number;
            chain_block: number;
            /**
             * Format: date-time
             * @description svc's clock: the machine's plus the offset
             */
            svc_time: string;
            /** @description how far svc's clock is ahead of the machine's */
            offset_seconds: number;
        };
        Fault: {
            /** @description `flt_…` */
            id: string;
            /** @enum {unknown} */
            kind: "verify" | "settle" | "upstream";
            /** @description the x402 reason answered (verify */
            reason: string | null;
            delay_ms: number | null;
            /** @description the status the upstream answers (upstream) */
            status: number | null;
            /** @description the upstream drops the connection (upstream) */
            drop: boolean;
            /** @description the slug of the one API it strikes; null for every API */
            api: string | null;
            /** @description strikes it was given; null until cleared */
            times: number | null;
            /** @description strikes left; null until cleared */
            remaining: number | null;
            /** @description payments it struck so far */
            hits: number;
            /** Format: date-time */
            created_at: string;
        };
        FaultCreate: {
            /** @enum {unknown} */
            kind: "verify" | "settle" | "upstream";
            /** @description verify (required), settle: an x402 reason of the exact scheme (GET /dev/faults lists them) */
            reason?: string;
            /** @description settle: wait before settling; upstream: the upstream answers this much later */
            delay_ms?: number;
            /** @description upstream: the status the upstream answers */
            status?: number;
            /**
             * @description upstream: the upstream drops the connection
             * @constant
             */
            drop?: true;
            /** @description the slug of a Sandbox API; default every API */
            api?: string;
            /** @description how many payments it strikes; default: until cleared */
            times?: number;
        };
        FaultsCleared: {
            cleared: number;
        };
        /** @description one whole-Sandbox event of GET /events (its `data:` line): a change every seller's APIs meet, and who made it */
        SandboxEvent: {
            /** @description `evt_…`, in the same order as the payment events; the SSE id */
            id: string;
            /** @enum {unknown} */
            type: "sandbox.reverted" | "sandbox.time_advanced" | "sandbox.time_reset" | "sandbox.chain_restarted";
            /** Format: date-time */
            created_at: string;
            /** @constant */
            environment: "development";
            /**
             * @description who did it: svc serve's admin token, or a caller on svc up's machine
             * @enum {unknown}
             */
            actor: "admin" | "local";
            /** @description sandbox.reverted: the snapshot reverted to */
            snapshot_id: string | null;
            /** @description sandbox.time_advanced: by how many seconds */
            seconds: number | null;
        };
        /** @description one event of GET /events (its `data:` line) */
        PaymentEvent: {
            /** @description `evt_…`, increasing; the SSE id */
            id: string;
            /** @enum {unknown} */
            type: "payment.required" | "payment.verified" | "payment.settled" | "payment.failed" | "upstream.failed" | "channel.claimed" | "channel.settled" | "channel.refunded" | "channel.withdrawing" | "channel.withdrawn" | "payment.authorized" | "payment.captured" | "payment.voided" | "payment.refunded" | "payment.reclaimed";
            /** Format: date-time */
            created_at: string;
            environment: components["schemas"]["Environment"];
            api_id: string;
            api_slug: string;
            endpoint_id: string | null;
            method: string;
            path: string;
            /** @description what the route asks */
            amount: string | null;
            asset: string | null;
            network: string | null;
            pay_to: string | null;
            payer: string | null;
            /** @description payment.settled (and upstream.failed after an upfront settlement): the settlement transaction */
            transaction: string | null;
            /** @description payment.settled: the settlement record */
            settlement_id: string | null;
            /** @description payment.failed: the x402 reason, when the facilitator gave one */
            reason: string | null;
            /** @description payment.failed, upstream.failed: what the buyer was told */
            error: string | null;
            /** @description the HTTP status the buyer got */
            status: number;
            /** @description true for payment.settled, and for upstream.failed after an upfront settlement */
            charged: boolean;
            /** @description payment.settled: the payment's builder-code extension (ERC-8021 attribution); null without one */
            builder_code: {
                a?: string;
                w?: string;
                s?: string[];
            } | null;
            /** @description a payment channel's id (x402 batch-settlement, lowercase): on a voucher's or deposit's payment.settled and on channel.claimed, channel.settled (a channel's claimed vouchers reached the chain, then the receiver), channel.refunded (the refund request's), channel.withdrawing and channel.withdrawn (the buyer's withdraw request and withdrawal on chain); on those amount is what moved (withdrawing: what the buyer asked for), and channel.claimed, channel.settled, channel.withdrawing and channel.withdrawn have no request behind them (endpoint_id null, method and path empty, status 200) */
            channel_id: string | null;
            /** @description an escrow payment's events (x402 auth-capture): payment.authorized (the hold, before the upstream is called), payment.captured (a capture, or the authorization flow's charge), payment.voided, payment.refunded, payment.reclaimed (the buyer took the hold back after the capture deadline); those the seller or the buyer made carry the paid request's method and path and status 200; charged is captured > 0; null on other events */
            escrow?: {
                /** @description `esc_…`: GET /payments/{paymentId} */
                id: string;
                payment_info_hash: string;
                state: components["schemas"]["EscrowPaymentState"];
                /** @description what this step moved */
                moved: components["schemas"]["AtomicAmount"];
                /** @description the payment's captured total after it */
                captured: components["schemas"]["AtomicAmount"];
                /** @description the payment's refunded total after it */
                refunded: components["schemas"]["AtomicAmount"];
            } | null;
        };
    };
    responses: {
        /** @description the payment as it is after the transaction, and the transaction */
        PaymentMoved: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["EscrowPaymentMoved"];
            };
        };
        /** @description the chain's state refuses the operation: `<what happened>: <reason code> (<detail>)`; nothing was sent */
        PaymentRefused: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description the facilitator could not be reached, or its transaction failed */
        FacilitatorFailed: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description the Sandbox chain is restarting */
        ChainRestarting: {
            headers: {
                /** @description seconds to wait before retrying */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description malformed JSON, a wrong type, an unknown field, a bad value */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `unauthorized` (no or rejected credentials) or `invalid token` */
        Unauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `insufficient scope`, `email verification required`, `jwt required`, or a route of the other environment */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description not found (also another seller's or environment's resource) */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `email already registered`, `slug already exists`, `endpoint already exists` */
        Conflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description body over 1 MB */
        TooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description Sign-up, login and email verification are throttled per svc process (sliding windows, in memory):
         *     10 failed logins per email per 15 minutes (`too many failed logins for this email, try again later`; the
         *     right password is refused too until the window frees; successful logins never count), 10 sign-ups per
         *     email per 15 minutes (`too many sign-ups for this email, try again later`), and per client address 30
         *     failures (failed logins, sign-ups of a taken email, rejected verification tokens) or 600 requests to these
         *     routes per minute (`too many attempts from this address, try again later`). A refused request is not counted.
         */
        TooManyRequests: {
            headers: {
                /** @description seconds until the limit frees */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description the Sandbox chain did not do what was asked */
        ChainFailed: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description the Sandbox chain is not running */
        Unavailable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: {
        /** @description JWT requests only: the environment of the request, on either host. Without it a JWT request is in the environment of the host it came to ({base_url}: production, {sandbox_base_url}: development). API keys carry their environment in their prefix; a header naming the other environment is `invalid token`. */
        Environment: "production" | "development";
        /** @description an escrow payment's `esc_…` id (the caller's, of this environment; else 404 `payment not found`) */
        PaymentId: string;
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
