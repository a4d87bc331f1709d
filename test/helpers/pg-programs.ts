import { execFile, execFileSync, spawnSync } from "node:child_process";
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * How a test process runs PostgreSQL's own programs (initdb, pg_ctl, pg_basebackup, psql) on
 * servers of its own: the replica of helpers/pg-replica.ts and the private cluster of
 * helpers/pg-cluster.ts.
 *
 * PostgreSQL refuses to run as root, and a data directory must belong to the user its server
 * runs as: a test process running as root runs the programs as the `postgres` OS user (runuser)
 * and puts the directory where that user can reach it (the test run's own temporary folder is
 * root's alone, so /dev/shm or /tmp). Any other user runs them as itself.
 *
 * Each server's directory holds the pid of the test process that made it (OWNER_FILE), so that
 * a later run can stop and remove the servers of a test process that died before it cleaned up.
 */
export interface PgPrograms {
  /** Where the programs of the wanted major version are. */
  readonly bin: string;
  /** The command prefix that runs a program as the owner of the server's files ([] for this process's own user). */
  readonly asOwner: readonly string[];
  /** The owner's uid and gid, when it is another user than this process's. */
  readonly owner: { readonly uid: number; readonly gid: number } | undefined;
}

/** In a server's directory: the process id of the test process that made it. */
const OWNER_FILE = "owner.pid";

/**
 * The programs of PostgreSQL `major` (the highest installed under /usr/lib/postgresql when
 * undefined) and how to run them, or why they cannot be run here.
 */
export function findPgPrograms(major: number | undefined, programs: readonly string[]): PgPrograms | string {
  if (process.platform !== "linux")
    return `PostgreSQL servers of a test's own are only made on Linux (this is ${process.platform})`;
  const versions = major !== undefined ? [major] : installedMajors();
  const candidates = [...versions.map((v) => `/usr/lib/postgresql/${v}/bin`), pgConfigBindir()];
  const bin = candidates.find((dir) => dir && programs.every((p) => existsSync(join(dir, p))));
  const where = major !== undefined ? `PostgreSQL ${major}` : "PostgreSQL";
  if (!bin)
    return `${programs.join(", ")} of ${where} were not found (looked in ${candidates.filter(Boolean).join(", ") || "/usr/lib/postgresql/*/bin and pg_config --bindir"})`;

  let asOwner: string[] = [];
  let owner: PgPrograms["owner"];
  if (process.getuid?.() === 0) {
    const runuser = ["/usr/sbin/runuser", "/sbin/runuser"].find((p) => existsSync(p));
    const account = passwdEntry("postgres");
    if (!runuser || !account)
      return `running as root, and PostgreSQL does not run as root: ${!runuser ? "runuser is missing" : "there is no postgres OS user"} to run it as another user`;
    asOwner = [runuser, "-u", "postgres", "--"];
    owner = account;
    if (spawnSync(runuser, ["-u", "postgres", "--", "true"], { stdio: "ignore" }).status !== 0)
      return "running as root, but `runuser -u postgres` failed: cannot run PostgreSQL as the postgres OS user";
  }
  return { bin, asOwner, owner };
}

/** Runs one of the programs as the owner, in `cwd` (a directory of the owner's). */
export function runPgProgram(
  programs: PgPrograms,
  program: string,
  args: readonly string[],
  cwd: string,
): Promise<string> {
  const command = [...programs.asOwner, join(programs.bin, program), ...args];
  return new Promise((resolve, reject) => {
    // cwd: the owner's own directory (runuser keeps the caller's, which postgres may not be able to enter).
    execFile(command[0]!, command.slice(1), { cwd, encoding: "utf8", timeout: 120_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${program} ${args.join(" ")} failed: ${(stderr || error.message).trim()}`));
      else resolve(stdout);
    });
  });
}

/**
 * A new directory named `<prefix>XXXXXX` the owner can write in: the first of the temporary
 * folders it can reach (created as that user, so a folder it cannot enter is passed over). The
 * directory records this process as its maker (OWNER_FILE).
 */
export function makeOwnedDirectory(programs: PgPrograms, prefix: string): string {
  let directory: string | undefined;
  if (!programs.owner) directory = mkdtempSync(join(tmpdir(), prefix));
  else {
    for (const base of directoryBases()) {
      const made = spawnSync(
        programs.asOwner[0]!,
        [...programs.asOwner.slice(1), "mktemp", "-d", "-p", base, `${prefix}XXXXXX`],
        { encoding: "utf8" },
      );
      if (made.status === 0) {
        directory = made.stdout.trim();
        break;
      }
    }
  }
  if (!directory)
    throw new Error(`the postgres OS user can create a directory in none of ${directoryBases().join(", ")}`);
  writeFileSync(join(directory, OWNER_FILE), String(process.pid));
  return directory;
}

/** Writes a file of the server's into a directory of its owner's, owned by that user too. */
export function writeOwned(programs: PgPrograms, path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  if (programs.owner) chownSync(path, programs.owner.uid, programs.owner.gid);
}

/**
 * Synchronous, for process exit and for leftovers: stops the server of `dataDirectory` at once
 * (immediate shutdown) if it runs, and removes `directory`.
 */
export function stopServerSync(programs: PgPrograms, dataDirectory: string, directory: string): void {
  if (existsSync(join(dataDirectory, "postmaster.pid"))) {
    const command = [
      ...programs.asOwner,
      join(programs.bin, "pg_ctl"),
      "stop",
      "-D",
      dataDirectory,
      "-m",
      "immediate",
      "-w",
      "-t",
      "10",
      "-s",
    ];
    spawnSync(command[0]!, command.slice(1), { cwd: directory, stdio: "ignore", timeout: 15_000 });
  }
  try {
    rmSync(directory, { recursive: true, force: true });
  } catch {
    // Another user's directory: left to that user's next run.
  }
}

/**
 * Stops and removes the servers under directories named `<prefix>...` whose test process is gone
 * (killed before it cleaned up); a directory without an owner file is removed after an hour.
 * The server's data directory is `<directory>/data`.
 */
export function removeAbandonedServers(programs: PgPrograms, prefix: string): void {
  for (const base of directoryBases()) {
    for (const name of readdirSync(base)) {
      if (!name.startsWith(prefix)) continue;
      const directory = join(base, name);
      const ownerFile = join(directory, OWNER_FILE);
      try {
        const gone = existsSync(ownerFile)
          ? !processAlive(Number(readFileSync(ownerFile, "utf8")))
          : Date.now() - statSync(directory).mtimeMs > 3_600_000;
        if (gone) stopServerSync(programs, join(directory, "data"), directory);
      } catch {
        // Removed meanwhile by its own process.
      }
    }
  }
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/** The last lines of a server's log file, "" when there is none. */
export function tail(file: string, lines = 15): string {
  try {
    return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n").trim();
  } catch {
    return "";
  }
}

function directoryBases(): string[] {
  return [...new Set([tmpdir(), "/dev/shm", "/tmp"])].filter((d) => existsSync(d));
}

/** Major versions under /usr/lib/postgresql (Debian's layout), highest first. */
function installedMajors(): number[] {
  try {
    return readdirSync("/usr/lib/postgresql")
      .map(Number)
      .filter((n) => Number.isInteger(n) && n > 0)
      .sort((a, b) => b - a);
  } catch {
    return [];
  }
}

function pgConfigBindir(): string | undefined {
  try {
    return execFileSync("pg_config", ["--bindir"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return undefined;
  }
}

function passwdEntry(user: string): { uid: number; gid: number } | undefined {
  try {
    const fields = execFileSync("getent", ["passwd", user], { encoding: "utf8" }).trim().split(":");
    return { uid: Number(fields[2]), gid: Number(fields[3]) };
  } catch {
    return undefined;
  }
}
