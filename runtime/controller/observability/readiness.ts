/**
 * Whether the controller can serve (GET /readyz, issue 18): its database answers a trivial query
 * and has every migration this controller has. Liveness (/healthz) asks nothing of the database:
 * a database outage must take the controller out of a load balancer, not get it restarted.
 */
import { sql } from "drizzle-orm";
import type { DatabaseOutageLog } from "./database-outage-log.ts";
import { migrationState } from "../store/migration-state.ts";
import type { Db } from "../store/open-database.ts";
import { TimedOut, withinMs } from "./time-bound.ts";

/**
 * How long each check may take. A Kubernetes probe gives up after 1 s unless told otherwise
 * (it then fails, the same verdict, without the reason); a probe with a longer time-out gets the
 * reason in the body.
 */
const CHECK_MS = 2_000;

/** The body of /readyz; `ready` decides 200 or 503. */
export type Readiness =
  | {
      readonly status: "ready";
      readonly database: "ok";
      readonly migrations: { readonly applied: number; readonly total: number };
    }
  | { readonly status: "not ready"; readonly database: "unreachable"; readonly message: string }
  | {
      readonly status: "not ready";
      readonly database: "ok";
      readonly migrations: { readonly applied: number; readonly total: number; readonly pending: number };
      readonly message: string;
    };

/**
 * `outage` logs the first failed check of an outage and the first passed one after it: a load
 * balancer probes every second or two, and a line per probe would bury the two that matter.
 */
export async function readiness(db: Db, outage: DatabaseOutageLog): Promise<Readiness> {
  try {
    await withinMs(db.execute(sql`select 1`), CHECK_MS);
    const state = await withinMs(migrationState(db), CHECK_MS);
    outage.succeeded();
    const applied = state.total - state.pending;
    if (state.pending > 0) {
      return {
        status: "not ready",
        database: "ok",
        migrations: { applied, total: state.total, pending: state.pending },
        message: `migrations pending: ${state.pending} of ${state.total} are not applied; run the migrations (aps-gen migrate) or start serve without --no-migrate`,
      };
    }
    return { status: "ready", database: "ok", migrations: { applied, total: state.total } };
  } catch (error) {
    // The cause goes to the log, not to the unauthenticated caller (it may name hosts and users).
    outage.failed(error, true);
    return {
      status: "not ready",
      database: "unreachable",
      message:
        error instanceof TimedOut
          ? `database unreachable: no answer within ${CHECK_MS / 1000} s`
          : "database unreachable: the query failed (the cause is in the controller's log)",
    };
  }
}
