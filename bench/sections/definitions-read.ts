import { GetObjectCommand } from '@aws-sdk/client-s3';
import { storedReports } from '../../test/support/door-settings';
import { storedDefinitionText } from '../../shared/definitions/stored-definition';
import { S3Storage } from '../../shared/storage/s3-storage';
import { startS3rver } from '../../test/support/s3rver';
import { median, millis, ratio, table, type TargetCheck } from '../lib/common';

/**
 * What a run pays to read its definition from the definitions bucket holding 500 reports, with a
 * new client each time (a cold Lambda): the store (Powertools provider, parse, validate) against a
 * bare GetObject of the same object, interleaved so drift hits both. And the run list's one
 * listing of all 500 names.
 */
const REPORTS = 500;
const MAX_READ_RATIO = 1.5;

export async function measureDefinitionsRead(repeat: number): Promise<{ markdown: string; targets: TargetCheck[] }> {
  const s3 = await startS3rver({ bucket: 'definitions' });
  try {
    const seed = storedReports(new S3Storage({ client: s3.client, bucket: s3.bucket, prefix: '' }));
    const report = (i: number) => ({
      definition: {
        name: `train-${String(i).padStart(3, '0')}`,
        title: `Train ${i}`,
        timeZone: 'Europe/Berlin',
        datasets: { risks: {}, okrs: {}, piObjectives: {}, boardItems: {} },
        email: { to: [`rte-${i}@example.com`] },
      },
      schedule: { cron: 'cron(0 7 ? * MON *)', timeZone: 'Europe/Berlin' },
    });
    for (let i = 0; i < REPORTS; i++) await seed.put(report(i));
    const bytes = Buffer.byteLength(storedDefinitionText(report(250)));
    const store: number[] = [];
    const bare: number[] = [];
    const list: number[] = [];
    for (let i = 0; i < Math.max(repeat, 5) * 2; i++) {
      const client = s3.createClient();
      const t0 = performance.now();
      if (i % 2 === 0) {
        const definitions = storedReports(new S3Storage({ client, bucket: s3.bucket, prefix: '' }));
        await definitions.get('train-250');
        store.push(performance.now() - t0);
        const t1 = performance.now();
        await definitions.names();
        list.push(performance.now() - t1);
      } else {
        const answer = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: 'definitions/train-250.json' }));
        JSON.parse(await answer.Body!.transformToString());
        bare.push(performance.now() - t0);
      }
      client.destroy();
    }
    const storeMs = median(store);
    const bareMs = median(bare);
    const markdown = [
      `Reading one report's definition from a definitions bucket of ${REPORTS} reports (s3rver on this machine; about ${bytes} bytes an object), each time with a new S3 client as a cold Lambda has, median of ${store.length}:`,
      '',
      table(
        ['read', 'time', '÷ bare GetObject'],
        [
          ['bare GetObject + JSON.parse (reference)', millis(bareMs), ratio(1)],
          ['DefinitionStore.get (provider, parse, validate)', millis(storeMs), ratio(storeMs / bareMs)],
          [`DefinitionStore.names(): all ${REPORTS} (the run list)`, millis(median(list)), ratio(median(list) / bareMs)],
        ],
      ),
      '',
      'A run reads only the report it runs: the time does not grow with the number of reports. A warm Lambda reuses the definition for 60 s.',
    ].join('\n');
    const targets: TargetCheck[] = [
      {
        target: `Cold start: reading one definition among ${REPORTS} ≤ ${MAX_READ_RATIO}× a bare GetObject`,
        measured: `${millis(storeMs)} vs ${millis(bareMs)} (${ratio(storeMs / bareMs)})`,
        met: storeMs <= MAX_READ_RATIO * bareMs,
        gap: storeMs <= MAX_READ_RATIO * bareMs ? '' : `${ratio(storeMs / bareMs)} > ${MAX_READ_RATIO}×`,
      },
    ];
    return { markdown, targets };
  } finally {
    await s3.close();
  }
}
