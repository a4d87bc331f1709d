import { mkdirSync } from "node:fs";
import { lockDataFolder } from "../support/data-folder-lock.ts";
import { holdPrivateUmask } from "../support/private-files.ts";
import type { HeldResources } from "./held-resources.ts";

/**
 * Makes the data folder ready and holds it: everything the controller writes from here on is
 * private to its user (keys, database files), and the folder is locked against a second
 * controller, unless the database is a PostgreSQL server, which several controllers may share
 * (the embedded one is one process's).
 */
export function holdDataFolder(dataDir: string, sharedDatabase: boolean, held: HeldResources): void {
  held.hold(holdPrivateUmask());
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (!sharedDatabase) held.hold(lockDataFolder(dataDir));
}
