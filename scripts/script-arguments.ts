/**
 * The arguments of a script that writes tracked files (docs, schemas, pictures): `--help` prints its
 * usage and changes nothing, and any other argument is refused before anything is written, so a
 * person trying `npm run <script> -- --help` never regenerates files by surprise.
 */
export function refuseArgumentsBut(argv: readonly string[], usage: string): void {
  if (argv.some((a) => a === '--help' || a === '-h')) {
    process.stdout.write(usage);
    process.exit(0);
  }
  if (argv.length > 0) {
    process.stderr.write(`error: ${argv[0]} is not an argument of this script (it takes none)\n\n${usage}`);
    process.exit(2);
  }
}
