/**
 * The link-key set of the local stack (test/support/lambda-harness.ts serves it from its Secrets
 * Manager stub): fixed and public, so `npm run link -- --local` can sign links the local stack
 * accepts. Never used by a deployed stack, which generates its own key (infra/constructs/exporter-secrets.ts).
 */
export const LOCAL_LINK_KEYS = {
  current: { id: 'k2', secret: 'b'.repeat(48) },
  previous: { id: 'k1', secret: 'a'.repeat(48) },
} as const;

/** Where the local HTTP API listens when started for `--local` links. */
export const LOCAL_API_URL = 'http://127.0.0.1:8787';
