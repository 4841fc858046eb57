import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterEach, describe, expect, it } from 'vitest';
import { directoryOutbox, outboxRecorder } from '../../../shared/messages/outbox';
import { makeTempDir, type TempDir } from '../../support/temp-dir';

const RUN = { report: 'train-a', runId: 's-1', runFolder: 'train-a/dt=2026-11-23/run=s-1' };
const email = (to: string) => ({ from: 'reports@example.com', to: [to], subject: `For ${to}`, html: `<p>${to}</p>`, text: to });
const slack = (key: string) => ({ type: 'slack', webhook: { secretId: 'hooks', key } });
const teams = { type: 'teams', webhook: { secretId: 'hooks', key: 'teams' } };

describe('the outbox recorder (deliver and alert stages)', () => {
  let dir: TempDir | undefined;
  afterEach(() => dir?.remove());

  it('names the report\'s files and the alert\'s by one rule and records where each went', async () => {
    dir = makeTempDir('outbox');
    const outbox = directoryOutbox(dir.root);
    const at = new Date('2026-11-23T07:00:00Z');
    const report = outboxRecorder(outbox, RUN, 'report');
    await report.mailer(at, 'rte@example.com').send(email('rte@example.com'));
    const writeReport = report.channelWriter([slack('a'), slack('b/c'), teams]);
    await writeReport(slack('b/c'), '{"text":"b"}');
    await writeReport(teams, '{"type":"message"}');
    const alert = outboxRecorder(outbox, RUN, 'alert');
    await alert.mailer(at, undefined).send(email('PO+1@Example.com'));
    await alert.channelWriter([teams])(teams, '{"alert":true}');

    const folder = join(dir.root, ...RUN.runFolder.split('/'));
    expect((await readdir(folder)).sort()).toEqual([
      'alert-po-1@example.com.eml', 'alert-po-1@example.com.html', 'alert-teams.json',
      'email.eml', 'email.html', 'slack-b-c.json', 'teams.json',
    ]);
    expect(report.written).toEqual(['email.html', 'email.eml', 'slack-b-c.json', 'teams.json'].map((name) => join(folder, name)));
    expect(alert.written).toEqual(['alert-po-1@example.com.html', 'alert-po-1@example.com.eml', 'alert-teams.json'].map((name) => join(folder, name)));
    const mail = await simpleParser(await readFile(join(folder, 'email.eml')));
    expect({ subject: mail.subject, html: await readFile(join(folder, 'email.html'), 'utf8') })
      .toEqual({ subject: 'For rte@example.com', html: '<p>rte@example.com</p>' });
    expect(await readFile(join(folder, 'alert-teams.json'), 'utf8')).toBe('{"alert":true}');
  });
});
