/**
 * What the Lambda bundles put in place of `@aws-sdk/credential-provider-node`, the SDK clients' default
 * credential chain, through an esbuild alias in infra/constructs/exporter-function.ts
 * (SDK_CREDENTIAL_CHAIN). A function's credentials are its execution role's, which Lambda hands over in
 * the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), or, where it serves them
 * over HTTP instead (AWS_CONTAINER_CREDENTIALS_FULL_URI), from that endpoint: the default chain's first
 * link and its container link, in that order, as the chain tries them. Its other links (SSO, the shared
 * ini files, credential processes, web identity tokens, EC2 instance metadata) are never reached in a
 * Lambda, and with the STS, SSO and sign-in clients they build they were about 96 kB of every bundle.
 * The CLI, the demo and the tests run unbundled, with the whole chain.
 *
 * The clients memoize what this returns and ask again before an expiration, as they do with the default
 * chain's (the SDK's identity memoization), so nothing is cached here.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { fromHttp } from '@aws-sdk/credential-provider-http';
import { chain, CredentialsProviderError } from '@smithy/core/config';
import type { AwsCredentialIdentityProvider } from '@smithy/types';

/** What the clients hand the default chain; the options the two links read are all it uses. */
type ChainInit = Parameters<typeof fromEnv>[0] & Parameters<typeof fromHttp>[0];

const NO_CREDENTIALS =
  'No AWS credentials: a Lambda function gets its execution role\'s in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, ' +
  'or from AWS_CONTAINER_CREDENTIALS_FULL_URI, and neither is set. This bundle is built for Lambda ' +
  '(infra/constructs/exporter-function.ts); elsewhere run the unbundled code, which has the SDK\'s whole default chain.';

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The default chain as a Lambda reaches it: the environment, then the container endpoint, then a clear error. */
export function defaultProvider(init: ChainInit = {}): AwsCredentialIdentityProvider {
  return chain(
    fromEnv(init),
    // fromHttp throws at once when no endpoint is set: built when the environment had nothing.
    async () => {
      try {
        return await fromHttp(init)();
      } catch (error) {
        // No endpoint set: on to the last link. An endpoint set but failing is that link's failure, told as such.
        if (/^No HTTP credential provider host provided/.test(errorMessage(error))) throw error;
        throw new CredentialsProviderError(
          `No AWS credentials: the container credentials endpoint (AWS_CONTAINER_CREDENTIALS_FULL_URI) is set, but it gave no credentials: ${errorMessage(error)}`,
          { tryNextLink: false, ...(init.logger && { logger: init.logger }) },
        );
      }
    },
    () => Promise.reject(new CredentialsProviderError(NO_CREDENTIALS, { tryNextLink: false, ...(init.logger && { logger: init.logger }) })),
  );
}
