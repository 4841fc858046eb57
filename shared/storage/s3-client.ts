import { S3Client } from '@aws-sdk/client-s3';

/**
 * An S3 client for the configured endpoint (in `region` when given, else the SDK's). With AWS_ENDPOINT_URL_S3 set (a local S3 such as
 * s3rver in tests, MinIO on a laptop) it uses path-style addresses and sends checksums only when
 * required, since local servers store streamed uploads with chunk framing otherwise.
 */
export function createS3Client(endpoint: string | undefined, region?: string): S3Client {
  const inRegion = region === undefined ? {} : { region };
  return endpoint
    ? new S3Client({
        endpoint,
        forcePathStyle: true,
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        ...inRegion,
      })
    : new S3Client(inRegion);
}
