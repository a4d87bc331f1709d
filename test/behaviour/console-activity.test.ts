import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MASKED_VALUE, type EndpointCallEntry } from "../../runtime/common/endpoint-call-entry.ts";
import { createConnectorApp } from "../../runtime/connector/app.ts";
import { fileCredentialStore } from "../../runtime/connector/credentials.ts";
import { accepted, ConnectorError } from "../../runtime/connector/replies.ts";
import { startConnector, type RunningConnector } from "../../runtime/connector/serve.ts";
import { ensureControllerTls } from "../../runtime/common/certificate-authority.ts";
import { until } from "../helpers/until.ts";
import { cloudmailCustomer } from "./cloudmail-customer.ts";
import { startBehaviourController, type BehaviourController } from "./harness.ts";

const T = "http://cloudmail.example.com/types";

/** Reads server-sent events from `reply` until `enough` says so (or `ms` pass), then closes the stream. */
async function readEvents(
  reply: Response,
  enough: (events: EndpointCallEntry[]) => boolean,
  ms = 15_000,
): Promise<EndpointCallEntry[]> {
  const reader = reply.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: EndpointCallEntry[] = [];
  let buffer = "";
  const deadline = Date.now() + ms;
  try {
    while (!enough(events)) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `timed out with ${events.length} events: ${JSON.stringify(events.map((e) => `${e.method} ${e.path}`))}`,
        );
      const next = await Promise.race([reader.read(), new Promise<"late">((r) => setTimeout(() => r("late"), left))]);
      if (next === "late") continue;
      if (next.done) break;
      buffer += next.value;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event.split("\n").find((l) => l.startsWith("data: "));
        const id = event.split("\n").find((l) => l.startsWith("id: "));
        if (data) {
          const entry = JSON.parse(data.slice(6)) as EndpointCallEntry;
          expect(id).toBe(`id: ${entry.id}`);
          events.push(entry);
        }
      }
    }
  } finally {
    await reader.cancel();
  }
  return events;
}

/**
 * The console's Activity endpoints: the live log of the calls made to applications
 * (`GET /aps/2/console/calls`, server-sent events) and the retry of a failed task
 * (`POST /aps/2/tasks/{id}/retry`), with an application that takes its time and may fail.
 */
describe("console activity", () => {
  let t: BehaviourController;
  let connector: RunningConnector;
  let customer = "";
  let tenant = "";
  let domain = "";
  const dir = mkdtempSync(join(tmpdir(), "aps-console-activity-"));
  const password = "pw-SECRET-71c2e9a0b4";
  const apiSecret = "api-SECRET-5f3d8c21e7";
  /** What the application answers to the repeats of a mailbox provisioning. */
  let repeat: "accept" | "fail" | "finish" = "accept";

  beforeAll(async () => {
    t = await startBehaviourController("pglite", ["types/examples/cloudmail"]);
    const tls = await ensureControllerTls(join(dir, "endpoint"), ["127.0.0.1"]);
    const app = createConnectorApp({
      credentials: fileCredentialStore(join(dir, "credentials")),
      services: {
        cloudmail: { provision: () => ({}) },
        tenants: { provision: () => ({ organizationId: "org-1" }) },
        domains: { provision: () => ({ verified: true }) },
        mailboxes: {
          provision: (ctx: { phase: string }, r: { localPart: string }) => {
            if (ctx.phase === "sync" || repeat === "accept") return accepted("creating the mailbox", 0);
            if (repeat === "fail") throw new ConnectorError(500, "the mail backend is down");
            return { address: `${r.localPart}@example.com`, used: 0 };
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

  const provisionMailbox = async (localPart: string): Promise<string> => {
    const created = await t.call("POST", "/aps/2/resources", {
      token: customer,
      body: {
        aps: { type: `${T}/mailbox/1.0` },
        localPart,
        password,
        tenant: { aps: { id: tenant } },
        domain: { aps: { id: domain } },
      },
    });
    expect(created.status, created.text).toBe(202);
    return created.json.aps.id;
  };
  const taskOf = async (resource: string) =>
    (await t.call("GET", "/aps/2/tasks", { token: t.adminToken })).json.find(
      (task: { resource: string }) => task.resource === resource,
    );

  describe("GET /aps/2/console/calls", () => {
    it("is for provider administrators only", async () => {
      expect((await t.request("/aps/2/console/calls", { headers: { "aps-token": "" } })).status).toBe(401);
      const reply = await t.request("/aps/2/console/calls", { headers: { "aps-token": customer } });
      expect(reply.status).toBe(403);
      expect(await reply.json()).toMatchObject({ code: 403, type: "Forbidden" });
    });

    it("streams each call with no credential header and every encrypted value masked, replaying what it keeps to a new subscriber", async () => {
      const reply = await t.request("/aps/2/console/calls");
      expect(reply.status).toBe(200);
      expect(reply.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      expect(reply.headers.get("cache-control")).toBe("no-store");
      repeat = "finish";
      const mailbox = await provisionMailbox("live");
      // Replayed first: the install (with the API secret in its settings), then this provisioning live.
      const events = await readEvents(reply, (seen) =>
        seen.some((e) => e.requestBody?.includes(mailbox) && e.requestHeaders["APS-Request-Phase"] === "async"),
      );
      const install = events.find((e) => e.requestBody?.includes("apiSecret"));
      expect(install, "the install call, replayed").toBeDefined();
      expect(install!.requestBody).toContain(`"apiSecret":"${MASKED_VALUE}"`);
      const provisioning = events.filter((e) => e.requestBody?.includes(mailbox));
      expect(provisioning.map((e) => [e.method, e.status, e.outcome])).toEqual([
        ["POST", 202, "2xx"],
        ["POST", 200, "2xx"],
      ]);
      for (const e of provisioning) {
        expect(e.path).toMatch(/^\/mailboxes/);
        expect(e.requestBody).toContain(`"password":"${MASKED_VALUE}"`);
        expect(e.ms).toBeGreaterThanOrEqual(0);
        expect(e.instance).toMatch(/^[0-9a-f-]{36}$/);
        expect(e.requestHeaders["APS-Transaction-ID"]).toBeTruthy();
      }
      const everything = JSON.stringify(events);
      expect(everything).not.toContain(password);
      expect(everything).not.toContain(apiSecret);
      for (const e of events)
        expect(Object.keys(e.requestHeaders).filter((h) => /token|authorization|cookie|secret|key/i.test(h))).toEqual(
          [],
        );
      expect(events.map((e) => e.id)).toEqual([...events.map((e) => e.id)].sort((a, b) => a - b));

      // A second subscriber gets the same calls at once, from memory.
      const again = await readEvents(await t.request("/aps/2/console/calls"), (seen) => seen.length >= events.length);
      expect(again.slice(0, events.length)).toEqual(events);
      await until(
        "the mailbox is ready",
        async () =>
          (await t.call("GET", `/aps/2/resources/${mailbox}`, { token: customer })).json.aps.status === "aps:ready",
      );
    });
  });

  describe("POST /aps/2/tasks/{id}/retry", () => {
    it("answers 404 for a task that is not there, and 403 to anyone but the provider's administrators", async () => {
      for (const id of ["00000000-0000-4000-8000-00000000dead", "not-a-uuid"]) {
        const reply = await t.call("POST", `/aps/2/tasks/${id}/retry`, { token: t.adminToken });
        expect(reply.status, id).toBe(404);
        expect(reply.json).toMatchObject({ code: 404, type: "NotFound" });
      }
      expect(
        (await t.call("POST", "/aps/2/tasks/00000000-0000-4000-8000-00000000dead/retry", { token: customer })).status,
      ).toBe(403);
    });

    it("refuses a pending task (409), puts a failed one back to pending (200) and the resource through, then refuses the finished one (409)", async () => {
      repeat = "accept";
      const mailbox = await provisionMailbox("retried");
      const pending = await until("the task", () => taskOf(mailbox));
      expect(pending.state).toBe("pending");
      // Times in ISO 8601, as everywhere in the API.
      for (const time of [pending.created, pending.retryAt]) expect(time).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
      const early = await t.call("POST", `/aps/2/tasks/${pending.id}/retry`, { token: t.adminToken });
      expect(early.status, early.text).toBe(409);
      expect(early.json.message).toMatch(/pending/);

      repeat = "fail";
      const failed = await until("the task to fail", async () => {
        const task = await taskOf(mailbox);
        return task.state === "failed" && task;
      });
      expect(failed.lastError).toMatch(/500/);
      expect((await t.call("GET", `/aps/2/resources/${mailbox}`, { token: customer })).json.aps.status).toBe(
        "aps:provisioning",
      );

      repeat = "finish";
      const retried = await t.call("POST", `/aps/2/tasks/${failed.id}/retry`, { token: t.adminToken });
      expect(retried.status, retried.text).toBe(200);
      expect(retried.json).toMatchObject({ id: failed.id, resource: mailbox, state: "pending", lastError: null });
      expect(Date.parse(retried.json.retryAt)).toBeLessThanOrEqual(Date.now());
      const ready = await until("the mailbox is ready", async () => {
        const r = await t.call("GET", `/aps/2/resources/${mailbox}`, { token: customer });
        return r.json.aps.status === "aps:ready" && r.json;
      });
      // The repeat carried the resource as it is (the task's own body was dropped when it failed).
      expect(ready.address).toBe("retried@example.com");
      expect((await taskOf(mailbox)).state).toBe("done");
      const late = await t.call("POST", `/aps/2/tasks/${failed.id}/retry`, { token: t.adminToken });
      expect(late.status).toBe(409);
      expect(late.json.message).toMatch(/finished/);
    });
  });
});
