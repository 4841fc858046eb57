import type { Credentials } from '../../shared/planning-api/credentials';

/** Credentials of a made-up tenant; `apiKey` is what a test then searches for in every error and log. */
export function testCredentials(apiKey: string): Credentials {
  return {
    email: 'api-user@acme.example.com',
    apiKey,
    baseUrl: 'https://acme.example.com',
    legacyBaseUrl: 'https://legacy.example.com',
    companyPrefix: 'acme',
  };
}
