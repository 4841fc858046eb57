import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { renderReportEmail } from '../../../shared/email/email-content';
import { MAX_ATTACHMENT_BYTES, SesMailer, emailAddress, fitsAsAttachment } from '../../../shared/email/ses-mailer';
import { EmailDeliveryError } from '../../../shared/core/errors';
import { startSesLocal, type SesLocalHandle } from '../../support/ses-local';
import { readerFormat } from '../../../shared/core/format';

describe('SesMailer against aws-ses-v2-local', () => {
  let ses: SesLocalHandle;
  let mailer: SesMailer;

  beforeAll(async () => {
    ses = await startSesLocal();
    mailer = new SesMailer({ client: ses.client });
  });
  afterAll(async () => {
    await ses.close();
  });
  beforeEach(async () => {
    await fetch(`${ses.endpoint}/clear-store`, { method: 'POST' });
  });

  const rendered = renderReportEmail({
    reportName: 'Acme <weekly> & more',
    generatedAt: new Date('2024-05-06T05:00:00Z'),
    format: readerFormat('en-GB', 'UTC'),
    summary: { title: 'Acme weekly', sections: [{ heading: 'Rows', lines: [{ label: 'Risks', value: 12 }] }] },
    links: [
      { label: 'acme-weekly.xlsx', url: 'https://links.example.com/d/tok1.sig', bytes: 2048, kind: 'Excel', primary: true },
      { label: 'risks.csv', url: 'https://links.example.com/d/tok2.sig', bytes: 100, kind: 'CSV' },
    ],
  });

  it('sends subject, HTML and text; the store has them with the links', async () => {
    const result = await mailer.send({
      from: 'reports@example.com',
      to: ['a@example.com', 'b@example.com'],
      cc: ['c@example.com'],
      ...rendered,
    });
    expect(result.messageId).toBeTruthy();
    const mails = await ses.fetchStore();
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    expect(mail.messageId).toBe(result.messageId);
    expect(mail.from).toBe('reports@example.com');
    expect(mail.destination).toEqual({ to: ['a@example.com', 'b@example.com'], cc: ['c@example.com'], bcc: [] });
    expect(mail.subject).toBe('Acme <weekly> & more – 06/05/2024');
    expect(mail.body.html).toBe(rendered.html);
    expect(mail.body.text).toBe(rendered.text);
    expect(mail.body.html).toContain('<a href="https://links.example.com/d/tok1.sig"');
    expect(mail.body.html).toContain('<a href="https://links.example.com/d/tok2.sig"');
    expect(mail.body.html).toContain('Acme weekly');
    expect(mail.body.text).toContain('https://links.example.com/d/tok2.sig');
    expect(mail.attachments).toEqual([]);
  });

  it('attaches a small workbook', async () => {
    const workbook = new Uint8Array(Buffer.from('PK\u0003\u0004 pretend workbook'));
    await mailer.send({
      from: 'reports@example.com',
      to: ['a@example.com'],
      ...rendered,
      attachments: [
        {
          fileName: 'acme-weekly.xlsx',
          contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
          content: workbook,
        },
      ],
    });
    const [mail] = await ses.fetchStore();
    expect(mail!.attachments).toHaveLength(1);
    expect(mail!.attachments[0]).toMatchObject({
      filename: 'acme-weekly.xlsx',
      contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      size: workbook.byteLength,
    });
    expect(Buffer.from(mail!.attachments[0]!.content, 'base64')).toEqual(Buffer.from(workbook));
  });

  it('refuses invalid addresses, too many recipients and oversized attachments without sending', async () => {
    const message = { from: 'reports@example.com', to: ['a@example.com'], ...rendered };
    await expect(mailer.send({ ...message, to: ['not-an-address'] })).rejects.toThrow(/to\.0 must be a plain e-mail address/);
    await expect(mailer.send({ ...message, to: ['a@example.com, b@example.com'] })).rejects.toThrow(EmailDeliveryError);
    await expect(mailer.send({ ...message, from: 'Reports <reports@example.com>' })).rejects.toThrow(/from/);
    await expect(mailer.send({ ...message, to: [] })).rejects.toThrow(/at least one recipient/);
    const many = Array.from({ length: 51 }, (_, i) => `u${i}@example.com`);
    await expect(mailer.send({ ...message, to: many })).rejects.toThrow(/at most 50 recipients/);
    await expect(
      mailer.send({
        ...message,
        attachments: [{ fileName: 'big.xlsx', contentType: 'application/x', content: new Uint8Array(MAX_ATTACHMENT_BYTES + 1) }],
      }),
    ).rejects.toThrow(/link the file instead/);
    expect(await ses.fetchStore()).toEqual([]);
  });

  it('maps SES failures to EmailDeliveryError', async () => {
    // aws-ses-v2-local accepts every well-formed request, so a closed endpoint stands in for a failure.
    const closed = await startSesLocal();
    const client = closed.client;
    await closed.close();
    const offline = new SesMailer({ client });
    await expect(offline.send({ from: 'r@example.com', to: ['a@example.com'], ...rendered })).rejects.toThrow(
      /could not send "Acme <weekly> & more – 06\/05\/2024" to 1 recipient\(s\)/,
    );
  });
});

describe('emailAddress', () => {
  it.each(['team@example.com', 'first.last+tag@sub.example.co.uk', ' padded@example.com '])('accepts %j', (value) => {
    expect(emailAddress.safeParse(value).success).toBe(true);
  });
  it.each(['', 'plain', 'a@b', 'Name <a@example.com>', 'a@example.com,b@example.com', 'a b@example.com', 'a@exa\nmple.com'])(
    'refuses %j',
    (value) => {
      expect(emailAddress.safeParse(value).success).toBe(false);
    },
  );
  it('fitsAsAttachment follows MAX_ATTACHMENT_BYTES', () => {
    expect(fitsAsAttachment(MAX_ATTACHMENT_BYTES)).toBe(true);
    expect(fitsAsAttachment(MAX_ATTACHMENT_BYTES + 1)).toBe(false);
  });
});
