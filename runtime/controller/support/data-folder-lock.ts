import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ControllerStartError } from "./start-errors.ts";

const LOCK_FILE = "controller.pid";

/**
 * Holds the data folder for this process while it serves from the embedded database: PGlite
 * files opened by two processes at once are corrupted, so a second `serve` on the same folder
 * is refused, naming the process that holds it. The lock is a file with the holder's pid,
 * created exclusively; one left by a process that is gone (killed) is taken over. Returns the
 * release function (also run when the process exits).
 */
export function lockDataFolder(dataDir: string): () => void {
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off("exit", release);
        try {
          if (readFileSync(path, "utf8").trim() === String(process.pid)) unlinkSync(path);
        } catch {
          // Already gone: nothing to release.
        }
      };
      process.on("exit", release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number.parseInt(readText(path), 10);
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
        throw new ControllerStartError(
          `the data folder ${dataDir} is in use by process ${holder} (another controller on its embedded database); stop that one, or give this one another --data`,
          "data-folder-in-use",
        );
      }
      // Left by a process that is gone (or by this one, restarting in process): take it over.
      try {
        unlinkSync(path);
      } catch {
        // Someone else removed it first; try again.
      }
    }
  }
  throw new ControllerStartError(
    `the data folder ${dataDir} is being taken by another process at this moment; try again`,
    "data-folder-in-use",
  );
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
