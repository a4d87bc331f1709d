/**
 * A database that cannot be reached is told apart from a statement that failed, in one place
 * (store/database-unavailable.ts), and answered 503 with Retry-After in the error shape, where
 * anything unexpected is a 500. The codes are those postgres.js, Node's sockets and PostgreSQL
 * give when the server is stopped, restarting, crashed or out of reach (test/e2e/database-outage.test.ts
 * sees them come from a real server).
 */
import { describe, expect, it } from "vitest";
import {
  DATABASE_RETRY_AFTER_SECONDS,
  isDatabaseUnavailable,
  unavailabilityCode,
} from "../../runtime/controller/store/database-unavailable.ts";
import { isStatementTimeout } from "../../runtime/controller/store/statement-timeout.ts";
import { isErrorShape, startInProcessController } from "../fuzz/in-process-controller.ts";

/** An error with a code, as drizzle raises it: its own "Failed query" error, the driver's as its cause. */
const wrapped = (code: string, message = "the driver's message") =>
  Object.assign(new Error("Failed query: select ...\nparams: "), {
    cause: Object.assign(new Error(message), { code }),
  });

describe("a database that cannot be reached", () => {
  it.each([
    ["ECONNREFUSED", "nothing listens: the server is stopped or was killed"],
    ["ECONNRESET", "the connection was cut"],
    ["ETIMEDOUT", "the network does not answer"],
    ["CONNECT_TIMEOUT", "postgres.js: no connection within connect_timeout"],
    ["CONNECTION_CLOSED", "postgres.js: the server closed the connection with a query in flight"],
    ["CONNECTION_ENDED", "postgres.js: the pool was ended"],
    ["CONNECTION_DESTROYED", "postgres.js: the pool was destroyed"],
    ["57P01", "admin_shutdown: a fast shutdown ended the session"],
    ["57P02", "crash_shutdown: another server process crashed"],
    ["57P03", "cannot_connect_now: the server is starting or shutting down"],
    ["08006", "connection_failure"],
    ["08001", "sqlclient_unable_to_establish_sqlconnection"],
    ["53300", "too_many_connections"],
  ])("%s (%s) is one, bare or wrapped", (code) => {
    expect(isDatabaseUnavailable(Object.assign(new Error("x"), { code }))).toBe(true);
    expect(isDatabaseUnavailable(wrapped(code))).toBe(true);
    expect(unavailabilityCode(wrapped(code))).toBe(code);
  });

  it.each([
    ["23505", "a unique violation"],
    ["57014", "a statement time-out (its own 503, statement-timeout.ts)"],
    ["42P01", "a missing table"],
    ["55000", "object not in prerequisite state"],
    ["ERR_INVALID_ARG_TYPE", "a Node error of another kind"],
  ])("%s (%s) is not", (code) => {
    expect(isDatabaseUnavailable(wrapped(code))).toBe(false);
  });

  it("is not an error without a code, nor a thrown value that is not an error", () => {
    expect(isDatabaseUnavailable(new Error("connect ECONNREFUSED"))).toBe(false);
    expect(isDatabaseUnavailable("ECONNREFUSED")).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
    expect(isStatementTimeout(wrapped("ECONNREFUSED"))).toBe(false);
  });

  it("is answered 503 with Retry-After in the error shape, where another failure is a 500", async () => {
    const c = await startInProcessController("pglite", ["test/fixtures/controller/notes"]);
    try {
      const refresh = c.catalog.refresh.bind(c.catalog);
      c.catalog.refresh = () => Promise.reject(wrapped("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432"));
      const r = await c.request("/aps/2/packages");
      const body = await r.json();
      expect(r.status).toBe(503);
      expect(r.headers.get("retry-after")).toBe(String(DATABASE_RETRY_AFTER_SECONDS));
      expect(isErrorShape(503, body)).toBe(true);
      expect((body as { message: string }).message).toMatch(/database cannot be reached right now; try again in 5 s/);
      // Nothing of the driver's error reaches the caller.
      expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|Failed query/);

      c.catalog.refresh = () => Promise.reject(wrapped("42P01", 'relation "packages" does not exist'));
      const other = await c.request("/aps/2/packages");
      expect(other.status).toBe(500);
      expect(other.headers.get("retry-after")).toBeNull();
      c.catalog.refresh = refresh;
      expect((await c.request("/aps/2/packages")).status).toBe(200);
    } finally {
      await c.dispose();
    }
  });
});
