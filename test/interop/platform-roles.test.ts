/**
 * Issue 16 item 10: the roles the platform has (docs/aps/security.md;
 * https://docs.cloudblue.com/cbc/sdk/7.4/api/types/type-definition/access).
 * - Admin is the administrator of the resource's owner; the provider has none above it, so it is
 *   admin of what it provisioned itself too: it can `disable` its own Suspendable resources
 *   (core/suspendable's enable and disable allow only admin, docs/aps/lifecycle.md). A customer is not admin
 *   of its own resources.
 * - Referrer is the owner of a linked resource, in both directions of the link: the platform's
 *   example has a customer's VPS linking to the provider's offer, which makes the customer a
 *   referrer on the offer and the provider a referrer on the VPS.
 * In process, on PGlite and, with DATABASE_URL, on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databases } from "../e2e/controller-harness.ts";
import { startInProcessController, type InProcessController } from "../fuzz/in-process-controller.ts";

const CALENDAR = "http://calendars.example/types/calendar/1.0";
const EVENT = "http://calendars.example/types/event/1.0";
const ACCOUNT = "http://aps-standard.org/types/core/account/1.0";

describe.each(databases)("platform roles on %s", (kind) => {
  let c: InProcessController;
  let customer = "";
  let stranger = "";

  const call = async (token: string, method: string, path: string, body?: unknown) => {
    const r = await c.request(path, {
      method,
      headers: { "aps-token": token, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await r.text();
    return { status: r.status, text, json: text ? JSON.parse(text) : undefined };
  };
  const provision = async (token: string, body: object) => {
    const r = await call(token, "POST", "/aps/2/resources", body);
    expect(r.status, r.text).toBe(201);
    return r.json.aps.id as string;
  };

  beforeAll(async () => {
    c = await startInProcessController(kind, ["test/fixtures/controller/calendars"]);
    for (const [name, set] of [
      ["customer", (t: string) => (customer = t)],
      ["stranger", (t: string) => (stranger = t)],
    ] as const) {
      set(
        await c.tokens.mint({
          accountId: await provision(c.adminToken, { aps: { type: ACCOUNT }, companyName: name, addressPostal: {} }),
        }),
      );
    }
  }, 60_000);
  afterAll(async () => c?.dispose());

  it("makes the provider admin of what it provisioned itself: it disables and enables it", async () => {
    const own = await provision(c.adminToken, { aps: { type: CALENDAR }, name: "provider's", region: "eu" });
    const disabled = await call(c.adminToken, "PUT", `/aps/2/resources/${own}/disable`);
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.json.aps.status).toBe("aps:disabled");
    expect((await call(c.adminToken, "PUT", `/aps/2/resources/${own}/enable`)).status).toBe(200);
    // Lists agree with single reads: the provider's admin-only view includes its own resources.
    const listed = await call(c.adminToken, "GET", `/aps/2/resources?implementing(${encodeURIComponent(CALENDAR)})`);
    expect(listed.json.map((r: { aps: { id: string } }) => r.aps.id)).toContain(own);
    // A customer stays owner, not admin, of its own resources; the provider administers them.
    const theirs = await provision(customer, { aps: { type: CALENDAR }, name: "customer's", region: "eu" });
    const refused = await call(customer, "PUT", `/aps/2/resources/${theirs}/disable`);
    expect(refused.status, refused.text).toBe(403);
    expect((await call(c.adminToken, "PUT", `/aps/2/resources/${theirs}/disable`)).status).toBe(200);
  });

  it("makes the owner of a link's target a referrer on its source, as the source's owner is on the target", async () => {
    const calendar = await provision(customer, { aps: { type: CALENDAR }, name: "shared with provider", region: "us" });
    // The provider's event links to the customer's calendar.
    const event = await provision(c.adminToken, {
      aps: { type: EVENT },
      title: "provider's event",
      shared: "for referrers",
      calendar: { aps: { id: calendar } },
    });
    const read = await call(customer, "GET", `/aps/2/resources/${event}`);
    expect(read.status, read.text).toBe(200);
    // What its access opens to referrers, and nothing else (title allows admin and owner).
    expect(read.json.shared).toBe("for referrers");
    expect(read.json.title).toBeUndefined();
    const listed = await call(customer, "GET", `/aps/2/resources?implementing(${encodeURIComponent(EVENT)})`);
    expect(listed.json.map((r: { aps: { id: string } }) => r.aps.id)).toContain(event);
    // Referrer only: configure allows admin and owner.
    expect((await call(customer, "PUT", `/aps/2/resources/${event}`, { title: "changed" })).status).toBe(403);
    // Who owns neither end sees nothing.
    expect((await call(stranger, "GET", `/aps/2/resources/${event}`)).status).toBe(404);
    // The link gone, the role goes.
    await call(c.adminToken, "PUT", `/aps/2/resources/${event}`, {
      calendar: {
        aps: { id: await provision(c.adminToken, { aps: { type: CALENDAR }, name: "provider's other", region: "eu" }) },
      },
    });
    expect((await call(customer, "GET", `/aps/2/resources/${event}`)).status).toBe(404);
  });
});
