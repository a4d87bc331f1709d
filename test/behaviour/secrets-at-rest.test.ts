import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnectorApp } from "../../runtime/connector/app.ts";
import { fileCredentialStore } from "../../runtime/connector/credentials.ts";
import { accepted } from "../../runtime/connector/replies.ts";
import { startConnector, type RunningConnector } from "../../runtime/connector/serve.ts";
import { ensureControllerTls } from "../../runtime/common/certificate-authority.ts";
import { until } from "../helpers/until.ts";
import { cloudmailCustomer } from "./cloudmail-customer.ts";
import { databases, startBehaviourController, type BehaviourController } from "./harness.ts";

const T = "http://cloudmail.example.com/types";

/** Every file under `dir` (recursively), with its path. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? [join(dir, e.name), ...filesUnder(join(dir, e.name))] : [join(dir, e.name)],
  );
}

/**
 * Issue 15 items 1-3: an encrypted property is never stored or logged in clear. An asynchronous
 * provisioning (202) keeps the call to repeat in the task table: sealed, and dropped when the
 * task ends; the PGlite files (tables and WAL) are private to the owner and hold no secret; a
 * database error does not put the statement's parameters (the body) into the log.
 */
describe.each(databases)("secrets at rest on %s", (kind) => {
  let t: BehaviourController;
  let connector: RunningConnector;
  let customer = "";
  let tenant = "";
  let domain = "";
  const dir = mkdtempSync(join(tmpdir(), "aps-secrets-"));
  const password = "pw-SECRET-4d1f0c7a92";
  const apiSecret = "api-SECRET-8b2e6a51c3";
  /** While true, the application keeps answering 202 to the mailbox provisioning. */
  let holding = true;
  const received: { phase: string; password: string }[] = [];

  beforeAll(async () => {
    t = await startBehaviourController(kind, ["types/examples/cloudmail"]);
    const tls = await ensureControllerTls(join(dir, "endpoint"), ["127.0.0.1"]);
    const app = createConnectorApp({
      credentials: fileCredentialStore(join(dir, "credentials")),
      services: {
        cloudmail: { provision: () => ({}) },
        tenants: { provision: () => ({ organizationId: "org-1" }) },
        domains: { provision: () => ({ verified: true }) },
        mailboxes: {
          provision: (ctx: { phase: string }, r: { localPart: string; password: string }) => {
            received.push({ phase: ctx.phase, password: r.password });
            return holding ? accepted("creating the mailbox", 0) : { address: `${r.localPart}@example.com`, used: 0 };
          },
        },
      },
    });
    connector = await startConnector(app, tls.server);
    ({ customer, tenant, domain } = await cloudmailCustomer(t, { url: connector.url, ca: tls.ca.cert }, apiSecret));
  }, 60_000);
  afterAll(async () => {
    await connector?.close();
    await t?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  let mailbox = "";

  it("keeps the body of an accepted provisioning sealed while its task runs, and drops it when it ends", async () => {
    const created = await t.call("POST", "/aps/2/resources", {
      token: customer,
      body: {
        aps: { type: `${T}/mailbox/1.0` },
        localPart: "ann",
        password,
        tenant: { aps: { id: tenant } },
        domain: { aps: { id: domain } },
      },
    });
    expect(created.status, created.text).toBe(202);
    mailbox = created.json.aps.id;
    const pending = await t.sql(`select state, body from tasks where resource_id = '${mailbox}'`);
    expect(pending).toHaveLength(1);
    expect(pending[0]!.state).toBe("pending");
    expect(String(pending[0]!.body)).toMatch(/^sealed:v1:/);
    expect(JSON.stringify(await t.sql("select * from tasks"))).not.toContain(password);
    holding = false;
    await until(
      "the mailbox is ready",
      async () =>
        (await t.call("GET", `/aps/2/resources/${mailbox}`, { token: customer })).json.aps.status === "aps:ready",
    );
    const done = await t.sql(`select state, body from tasks where resource_id = '${mailbox}'`);
    expect(done).toEqual([{ state: "done", body: null }]);
    // The task repeated the call with the body it had: the application got the password each time.
    expect(received.filter((c) => c.phase === "async").length).toBeGreaterThan(0);
    expect(received.every((c) => c.password === password)).toBe(true);
  });

  it.runIf(kind === "postgres")("leaves no secret in a pg_dump of the database", () => {
    const dump = execFileSync("pg_dump", ["--data-only", t.databaseUrl!], { maxBuffer: 64 << 20 }).toString("latin1");
    expect(dump).toContain("ann"); // the dump is readable: the check below can find what is in clear
    expect(dump).not.toContain(password);
    expect(dump).not.toContain(apiSecret);
  });

  it.runIf(kind === "pglite")(
    "keeps the PGlite folder private and free of secrets, in its tables and its WAL",
    async () => {
      // Activity that makes PostgreSQL create files while it runs (new relation pages, WAL).
      for (let i = 0; i < 20; i++)
        await t.call("POST", "/aps/2/resources", {
          token: customer,
          body: { aps: { type: `${T}/domain/1.0` }, name: `d${i}.example.com`, tenant: { aps: { id: tenant } } },
        });
      const exposed = (root: string) =>
        filesUnder(root)
          .filter((p) => p !== t.logFile)
          .map((p) => ({ p: relative(root, p), mode: statSync(p).mode & 0o777, dir: statSync(p).isDirectory() }))
          .filter((f) => (f.dir ? f.mode !== 0o700 : (f.mode & 0o077) !== 0));
      expect(exposed(t.dataDir)).toEqual([]);
      expect(statSync(join(t.dataDir, "pgdata")).mode & 0o777).toBe(0o700);
      await t.stop();
      try {
        expect(exposed(t.dataDir)).toEqual([]);
        const files = filesUnder(join(t.dataDir, "pgdata")).filter((p) => statSync(p).isFile());
        const holding = (text: string) => files.filter((p) => readFileSync(p).includes(Buffer.from(text)));
        expect(holding("ann@example.com").length).toBeGreaterThan(0); // what is in clear is found
        expect(holding(password)).toEqual([]);
        expect(holding(apiSecret)).toEqual([]);
      } finally {
        await t.restart();
      }
    },
  );

  it("does not log the parameters of a statement that fails, nor the body they hold", async () => {
    const marker = "MARKER-6c0f2b9e";
    // A database error for a body no input check rejects: a constraint the controller does not know.
    await t.sql(
      `alter table resources add constraint refuse_marker check (body->>'companyName' is distinct from 'refused ${marker}')`,
    );
    const r = await t.call("POST", "/aps/2/resources", {
      token: t.adminToken,
      body: {
        aps: { type: "http://aps-standard.org/types/core/account/1.0" },
        companyName: `refused ${marker}`,
        addressPostal: { streetAddress: `street ${marker}` },
      },
    });
    expect(r.status).toBe(500);
    expect(r.text).not.toContain(marker);
    const log = readFileSync(t.logFile, "utf8");
    expect(log).not.toContain(marker);
    expect(log).not.toMatch(/params:|Failed query/);
    const line = log.split("\n").find((l) => l.includes('"unexpected error"'));
    expect(line, "the error is logged").toBeDefined();
    // drizzle wraps the driver's error (PGlite), or the driver's comes as it is (postgres.js prepared statements).
    const logged = JSON.parse(line!).error;
    expect(logged.cause ?? logged).toMatchObject({ code: "23514", constraint: "refuse_marker" });
    expect(log).not.toContain(marker);
    expect(log).not.toMatch(/params:|Failed query/);
    expect(log).not.toContain(password);
    expect(log).not.toContain(apiSecret);
  });
});
