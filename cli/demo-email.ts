import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { renderReportEmail, type RenderedEmail } from '../shared/email/email-content';
import { manifestSchema } from '../shared/report/manifest';
import { summaryFromManifest } from '../shared/report/run-summary';
import { fileForPeople } from '../shared/report/registry';

/**
 * The e-mail the demo's run would send, written beside the run's files as `email.html` (open it in
 * a browser) and `email.eml` (open it in a mail client), with file links pointing at the files on
 * this machine instead of signed download links.
 */
export async function writeDemoEmail(out: string, report: string, timeZone: string): Promise<{ html: string; eml: string }> {
  const latest = JSON.parse(await readFile(join(out, report, 'latest.json'), 'utf8')) as { manifest: string };
  const manifest = manifestSchema.parse(JSON.parse(await readFile(join(out, latest.manifest), 'utf8')));
  const runDir = join(out, latest.manifest, '..');
  const email = renderReportEmail({
    reportName: manifest.report,
    generatedAt: new Date(manifest.generatedAt),
    timeZone,
    summary: summaryFromManifest(manifest),
    runId: manifest.runId,
    links: manifest.files.map((f) => ({ ...fileForPeople(f), url: pathToFileURL(join(runDir, f.path)).href, bytes: f.bytes })),
  });
  const html = join(runDir, 'email.html');
  const eml = join(runDir, 'email.eml');
  await writeFile(html, email.html);
  await writeFile(eml, mimeMessage(email, new Date(manifest.generatedAt)));
  return { html, eml };
}

/** A multipart/alternative message (text and HTML, base64) that mail clients open as sent. */
export function mimeMessage(email: RenderedEmail, date: Date): string {
  const boundary = `demo-${date.getTime().toString(36)}`;
  const base64 = (s: string) => Buffer.from(s, 'utf8').toString('base64').replace(/.{76}/g, '$&\r\n');
  const subject = `=?UTF-8?B?${Buffer.from(email.subject, 'utf8').toString('base64')}?=`;
  return [
    'From: Planning reports (demo) <reports@example.invalid>',
    'To: Release Train Engineer <rte@example.invalid>',
    `Subject: ${subject}`,
    `Date: ${date.toUTCString()}`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/alternative; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: base64',
    '',
    base64(email.text),
    `--${boundary}`,
    'Content-Type: text/html; charset=utf-8',
    'Content-Transfer-Encoding: base64',
    '',
    base64(email.html),
    `--${boundary}--`,
    '',
  ].join('\r\n');
}
