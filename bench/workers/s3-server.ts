/** s3rver (a local S3) in its own process, so its memory and CPU are not the exporter's. */
import { serveRequests } from '../lib/child';
import { startS3rver } from '../../test/support/s3rver';

const { bucket } = JSON.parse(process.argv[2] ?? '{}') as { bucket?: string };
const s3 = await startS3rver({ bucket: bucket ?? 'bench-reports' });
serveRequests({}, () => s3.close());
process.send?.({ type: 'ready', endpoint: s3.endpoint, bucket: s3.bucket });
