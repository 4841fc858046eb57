import { localStackAddress } from '../cli/local-link-keys';
import { silenceSdkNodeNotice } from '../cli/main';
import { startLocalStack } from '../test/support/local-stack';

/**
 * `npm run local`: the whole stack on loopback for a person to click through — planning API
 * simulator (demo tenant), s3rver, dynalite, the AWS stubs, both Lambda handlers, and the HTTP API on
 * 127.0.0.1:8787 (as in the tests; LOCAL_STACK_PORT moves it). Report: examples/demo-report.json.
 * `npm run demo -- --local` writes its run here, so its e-mail's links open; `npm run link -- --report
 * demo-weekly --local` prints a run link. Ctrl-C stops it.
 */
if (process.argv.slice(2).some((a) => a === '--help' || a === '-h')) {
  process.stdout.write(
    'Usage: npm run local\n\nServes the whole stack on loopback (realistic demo tenant, report examples/demo-report.json)\n' +
      'with the HTTP API at http://127.0.0.1:8787, S3 on :8788 and DynamoDB on :8789 (LOCAL_STACK_PORT moves all three).\n' +
      'Then: npm run demo -- --local (its e-mail\'s links open here), or npm run link -- --report demo-weekly --local. Ctrl-C stops it.\n',
  );
  process.exit(0);
}
silenceSdkNodeNotice(process.env);
const address = localStackAddress(process.env);
const stack = await startLocalStack(address);
process.stdout.write(`local stack: HTTP API at ${stack.api.baseUrl}, S3 at ${stack.harness.s3.endpoint}, report "${stack.report}"\n`);
process.stdout.write(`write the demo's run here: npm run demo -- --local; open a run link from: npm run link -- --report ${stack.report} --local\n`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void stack.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
