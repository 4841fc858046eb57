// dynalite ships no types; this declares the part of its API the test helper uses.
declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    /** Without a path dynalite keeps everything in memory. */
    path?: string;
  }

  export default function dynalite(options?: DynaliteOptions): Server;
}
