#!/usr/bin/env node
/**
 * Guards postgres.js (3.4.x) against a write to a connection whose socket is gone, which crashes
 * the whole process. Upstream: https://github.com/porsager/postgres/issues/1154 and #1208 (open,
 * no release fixes it yet; fixes proposed in pull requests #1168, #1176 and #1209).
 *
 * How it happens (src/connection.js): a write under 1 KiB is deferred to a `setImmediate`; when
 * the connection closes, `closed()` sets `socket = null` and cancels the deferred write but
 * leaves `nextWriteTimer` and `chunk` set. A query sent on that connection afterwards (a
 * transaction's ROLLBACK after its connection died, any query on a reserved connection) then
 * either runs `socket.write` on null in an immediate, an exception no caller can catch (the
 * worker ends: seen here when PostgreSQL restarts under load), or is never written at all
 * (its caller waits forever).
 *
 * The guard: a write with no socket rejects the queries waiting on the connection with
 * CONNECTION_CLOSED, as a closed connection does, and both teardown paths forget the cancelled
 * write.
 *
 * A second defect ends the process the same way: every new connection first asks the server for
 * its array types (`fetch_types`, on by default), and `ReadyForQuery` drops the promise of that
 * internal query (`return fetchArrayTypes()`). When the query fails, its rejection is unhandled:
 * a pool ended with a time-out while a connection was starting (CONNECTION_DESTROYED; seen here
 * when the read replica's poll timed out on a loaded machine and the controller closed its poll
 * connection), or the query cancelled or its backend terminated. Upstream:
 * https://github.com/porsager/postgres/issues/1192, #1205 and #1223 (open). The guard catches it:
 * the connection's own error path has already rejected the query that opened it, and the next
 * connection asks for the types again. Applied to node_modules/postgres in a checkout (`npm ci` runs it as `prepare`) and to the
 * copy the published package carries (scripts/build-package.mjs, dist/vendor/postgres/).
 * test/controller/postgres-write-guard.test.ts shows the crash is gone.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const MARK = "/* aps-gen write guard */";

const EDITS = [
  {
    what: "nextWrite with no socket",
    from: "  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)",
    to: `  function nextWrite(fn) {\n    ${MARK}\n    if (!socket) {\n      nextWriteTimer !== null && clearImmediate(nextWriteTimer)\n      chunk = nextWriteTimer = null\n      error(Errors.connection('CONNECTION_CLOSED', options))\n      return false\n    }\n    const x = socket.write(chunk, fn)`,
  },
  {
    what: "terminate() forgets the cancelled write",
    from: "    terminated = true\n    if (stream || query || initial || sent.length)\n      error(Errors.connection('CONNECTION_DESTROYED', options))\n\n    clearImmediate(nextWriteTimer)\n",
    to: "    terminated = true\n    if (stream || query || initial || sent.length)\n      error(Errors.connection('CONNECTION_DESTROYED', options))\n\n    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n",
  },
  {
    what: "closed() forgets the cancelled write",
    from: "    incomings = null\n    clearImmediate(nextWriteTimer)\n",
    to: "    incomings = null\n    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n",
  },
  {
    what: "the array-types query's failure handled",
    from: "        return fetchArrayTypes()\n",
    to: "        return fetchArrayTypes().catch(noop) // aps-gen guard (scripts/postgres-write-guard.mjs)\n",
  },
];

/** The guarded text of a postgres.js connection.js; the same text when it is guarded already. Throws when it is not a version the guard knows. */
export function guardConnectionSource(text) {
  let out = text;
  for (const edit of EDITS) {
    // Each edit on its own: a driver guarded by an earlier version of this script gets the edits it lacks.
    if (out.includes(edit.to)) continue;
    if (out.split(edit.from).length !== 2)
      throw new Error(
        `postgres.js connection.js has changed (${edit.what} not found once): check whether upstream fixed it and update scripts/postgres-write-guard.mjs`,
      );
    out = out.replace(edit.from, edit.to);
  }
  return out;
}

export function isGuarded(text) {
  return EDITS.every((edit) => text.includes(edit.to));
}

/** Guards the installed postgres.js (its ESM and CommonJS builds) found from `from`. */
export function guardInstalled(from = dirname(fileURLToPath(import.meta.url))) {
  // Its package.json is not exported: climb from its entry to the folder that holds it.
  let root = dirname(createRequire(join(from, "noop.js")).resolve("postgres"));
  while (
    !existsSync(join(root, "package.json")) ||
    JSON.parse(readFileSync(join(root, "package.json"), "utf8")).name !== "postgres"
  ) {
    if (dirname(root) === root) throw new Error("postgres.js is not installed");
    root = dirname(root);
  }
  const changed = [];
  for (const file of ["src/connection.js", "cjs/src/connection.js"]) {
    const path = join(root, file);
    const text = readFileSync(path, "utf8");
    const guarded = guardConnectionSource(text);
    if (guarded !== text) {
      writeFileSync(path, guarded);
      changed.push(file);
    }
  }
  return { root, changed };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const { root, changed } = guardInstalled();
    console.log(
      changed.length
        ? `postgres-write-guard: guarded ${changed.join(", ")} in ${root}`
        : `postgres-write-guard: ${root} is guarded already`,
    );
  } catch (error) {
    console.error(`postgres-write-guard: ${error.message}`);
    process.exitCode = 1;
  }
}
