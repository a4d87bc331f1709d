/**
 * Keeps what the controller writes private to the user it runs as (issue 15 item 2): the embedded
 * database holds every resource, sealed secrets and the task table, and its files must not be
 * readable by other users of the machine.
 *
 * Two measures, because neither is enough alone (measured on PGlite 0.5): the files PGlite's
 * initdb lays down are explicitly chmodded 0666 and a few it rewrites at each start
 * (pg_internal.init) come out 0644 whatever the umask, so they are chmodded after the database
 * opens; the files PostgreSQL creates while it runs (new relations, WAL segments, vacuum) go
 * through Node's `fs` with PostgreSQL's modes, which the process umask does narrow, so the umask
 * is 0077 while a controller runs. The umask is process-wide; a controller is the main thing of
 * its process, and whatever else the process writes meanwhile becomes private too, which errs on
 * the safe side. It is put back when the last controller of the process stops.
 */
import { chmodSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { isMainThread } from "node:worker_threads";

let holders = 0;
let saved: number | undefined;

/**
 * Sets the process umask to 0077 (added to the current one) until the returned function is
 * called. Worker threads cannot change the umask (Node refuses): there only the sweep of
 * {@link makePrivate} applies.
 */
export function holdPrivateUmask(): () => void {
  if (!isMainThread) return () => {};
  if (holders++ === 0) {
    saved = process.umask(0o077);
    process.umask(saved | 0o077);
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--holders === 0 && saved !== undefined) process.umask(saved);
  };
}

/** Makes `path` and everything under it private: folders 0700, files 0600 (symbolic links are left alone). */
export function makePrivate(path: string): void {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    if (stat.isDirectory()) {
      if ((stat.mode & 0o777) !== 0o700) chmodSync(path, 0o700);
      for (const name of readdirSync(path)) makePrivate(join(path, name));
    } else if ((stat.mode & 0o077) !== 0) chmodSync(path, stat.mode & 0o700);
  } catch (error) {
    // A running database removes files of its own (temporary ones, old WAL segments) at any time.
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}
