import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The name of every run folder starts with this. */
const RUN_FOLDER_PREFIX = "aps-gen-test-";
/** In a run folder: the process id of the vitest run that owns it. */
const OWNER_FILE = "owner.pid";
/** A RAM disk with less free than this is not used (a run's files peaked at 260 MB). */
const RAM_DISK_MIN_FREE = 2 * 1024 ** 3;

/**
 * Where a test run keeps its temporary files: one folder per run, removed when the run ends, and
 * the temporary folder of everything the run starts (its test files, the controllers, npm,
 * Python endpoints) through TMPDIR. Test files still remove what they make; this catches what a
 * stopped test could not, and takes the run's files away from another run on the same machine.
 *
 * On Linux, when TMPDIR is not set and /dev/shm (a RAM disk) is writable with room to spare, the
 * folder is made there: a run creates tens of thousands of files (embedded databases copied from
 * the template, the packed install's ~7000, emitted packages), and on this project's 2-core
 * virtual machine with an ext4 disk the kernel time for that was 63 s of a 183 s run, against
 * 39 s of a 159 s run on the RAM disk (`npm test` on PGlite, fresh clone). A TMPDIR that is set
 * is where the user wants temporary files, and is kept as the base.
 *
 * Folders left by a run that was killed (their owner process is gone) are removed first.
 */
export function makeRunFolder(run: string, env: NodeJS.ProcessEnv = process.env): string {
  const base = env.TMPDIR || env.TEMP || env.TMP || ramDisk() || tmpdir();
  removeAbandoned(base);
  const folder = join(base, `${RUN_FOLDER_PREFIX}${run}`);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  writeFileSync(join(folder, OWNER_FILE), String(process.pid));
  // os.tmpdir() reads TMPDIR on Unix and TEMP/TMP on Windows.
  env.TMPDIR = env.TMP = env.TEMP = folder;
  return folder;
}

function ramDisk(): string | undefined {
  if (process.platform !== "linux") return undefined;
  const shm = "/dev/shm";
  try {
    accessSync(shm, constants.W_OK);
    const fs = statfsSync(shm);
    return fs.bavail * fs.bsize >= RAM_DISK_MIN_FREE ? shm : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the run folders under `base` whose run has ended without removing them. */
function removeAbandoned(base: string): void {
  for (const name of readdirSync(base)) {
    if (!name.startsWith(RUN_FOLDER_PREFIX)) continue;
    const folder = join(base, name);
    if (!ownerGone(folder)) continue;
    rmSync(folder, { recursive: true, force: true });
  }
}

function ownerGone(folder: string): boolean {
  const owner = join(folder, OWNER_FILE);
  // A folder being made has no owner file for a moment: only an old one without it is abandoned.
  if (!existsSync(owner)) return Date.now() - statSync(folder).mtimeMs > 3_600_000;
  try {
    process.kill(Number(readFileSync(owner, "utf8")), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
