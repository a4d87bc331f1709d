/**
 * Issue 16 item 9: both ends of a relation, in the forms PHP-runtime applications and their UIs
 * send (docs/platform-forms.md §1.4, §1.5, table rows 8, 21, 24-27):
 * - gcalendar `calendar.php:86-102`: an event provisioned with a link to its calendar belongs in the
 *   calendar's `events` collection, as if provisioned through it; `getResources('', .../{id}/events)`;
 * - SpamExperts `context.php:926-931`: a new resource's extra links in `aps.links` (`\APS\Link`:
 *   `id`, `href`, `link`, `name` = the relation, as an application on GitHub fills one in by hand);
 * - SpamExperts `context.php:975`, `:1078`, `:1189`, UI `emails-view.js:214`: RQL on a relation
 *   listing (`in(name,(...))`, `sort(...)`, `limit(...)`), Range from dojo stores;
 * - gcalendar `calendar.edit.js:131-145` (`xhr.put('/aps/2/resources/{id}', getPlainValue(model))`),
 *   SpamExperts `service.php:311-330`: PUT of the resource as it was read, `aps` and links included;
 *   a changed `aps.type` (SpamExperts' upgrade by PUT, §4 Q9) is refused with a clear 409.
 * The UI's session token is a customer's APS-Token. In process, on PGlite and, with DATABASE_URL,
 * on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databases } from "../e2e/controller-harness.ts";
import { startInProcessController, type InProcessController } from "../fuzz/in-process-controller.ts";

const CALENDAR = "http://calendars.example/types/calendar/1.0";
const EVENT = "http://calendars.example/types/event/1.0";
const ACCOUNT = "http://aps-standard.org/types/core/account/1.0";

type Resource = Record<string, unknown> & { aps: { id: string; type: string; revision: number } };

describe.each(databases)("both ends of a relation on %s", (kind) => {
  let c: InProcessController;
  let customer = "";
  let cal = "";
  let other = "";

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const r = await c.request(path, {
      method,
      headers: { "aps-token": customer, "content-type": "application/json", ...headers },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    const text = await r.text();
    return { status: r.status, text, json: text ? JSON.parse(text) : undefined, range: r.headers.get("content-range") };
  };
  const provision = async (body: object) => {
    const r = await call("POST", "/aps/2/resources", body);
    expect(r.status, r.text).toBe(201);
    return (r.json as Resource).aps.id;
  };
  const titles = async (path: string, headers: Record<string, string> = {}) => {
    const r = await call("GET", path, undefined, headers);
    expect(r.status, r.text).toBe(200);
    return (r.json as { title: string }[]).map((e) => e.title);
  };

  beforeAll(async () => {
    c = await startInProcessController(kind, ["test/fixtures/controller/calendars"]);
    const account = await c.request("/aps/2/resources", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ aps: { type: ACCOUNT }, companyName: "Customer", addressPostal: {} }),
    });
    customer = await c.tokens.mint({ accountId: ((await account.json()) as Resource).aps.id });
    cal = await provision({ aps: { type: CALENDAR }, name: "work", region: "eu" });
    other = await provision({ aps: { type: CALENDAR }, name: "home", region: "us" });
  }, 60_000);
  afterAll(async () => c?.dispose());

  it("lists a resource provisioned with a link in the other type's collection, as one provisioned through it", async () => {
    await provision({ aps: { type: EVENT }, title: "standup", calendar: { aps: { id: cal } } });
    // gcalendar: provision through the collection, then link the event's own relation back (a no-op relink).
    const through = await call("POST", `/aps/2/resources/${cal}/events`, { aps: { type: EVENT }, title: "review" });
    expect(through.status, through.text).toBe(201);
    const relinked = await call("POST", `/aps/2/resources/${(through.json as Resource).aps.id}/calendar`, {
      aps: { id: cal },
    });
    expect(relinked.status, relinked.text).toBe(200);
    const listed = await call("GET", `/aps/2/resources/${cal}/events`);
    expect((listed.json as { title: string }[]).map((e) => e.title).sort()).toEqual(["review", "standup"]);
    expect(listed.range).toBe("items 0-1/2");
    expect(await titles(`/aps/2/resources/${other}/events`)).toEqual([]);
  });

  it("takes links a PHP application puts in aps.links of a new resource (SpamExperts context.php:926-931)", async () => {
    const link = { id: other, href: `/aps/2/resources/${other}`, link: "weak", name: "backup" };
    const r = await call("POST", `/aps/2/resources/${cal}/events`, {
      aps: { type: EVENT, links: [link] },
      title: "two calendars",
    });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({ calendar: { aps: { id: cal } }, backup: { aps: { id: other } } });
    expect(await titles(`/aps/2/resources/${other}/events`)).toContain("two calendars");
    const unknown = await call("POST", "/aps/2/resources", {
      aps: { type: EVENT, links: [{ ...link, name: "nothing" }] },
      title: "x",
      calendar: { aps: { id: cal } },
    });
    expect(unknown.status, unknown.text).toBe(400);
    expect(unknown.json.message).toMatch(/aps\.links\[0\] names "nothing"/);
    expect(
      (
        await call("POST", "/aps/2/resources", {
          aps: { type: EVENT, links: [{ id: other }] },
          title: "x",
          calendar: { aps: { id: cal } },
        })
      ).status,
    ).toBe(400);
    // Not stored: the titles listed are the same.
    expect(await titles(`/aps/2/resources/${cal}/events`)).not.toContain("x");
    // Leaves the rest of this suite as it expects the calendars' members.
    expect((await call("DELETE", `/aps/2/resources/${(r.json as Resource).aps.id}`)).status).toBe(204);
  });

  it("honours RQL and Range on a relation listing", async () => {
    expect(await titles(`/aps/2/resources/${cal}/events?eq(title,review)`)).toEqual(["review"]);
    expect(await titles(`/aps/2/resources/${cal}/events?in(title,(standup,nothing))`)).toEqual(["standup"]);
    expect(
      await titles(`/aps/2/resources/${cal}/events?implementing(${encodeURIComponent(EVENT)}),sort(-title)`),
    ).toEqual(["standup", "review"]);
    const page = await call("GET", `/aps/2/resources/${cal}/events?sort(+title),limit(1,1)`);
    expect((page.json as { title: string }[]).map((e) => e.title)).toEqual(["standup"]);
    expect(page.range).toBe("items 1-1/2");
    expect(await titles(`/aps/2/resources/${cal}/events?sort(+title)`, { Range: "items=0-0" })).toEqual(["review"]);
    expect((await call("GET", `/aps/2/resources/${cal}/events?eq(title`)).status).toBe(400);
  });

  it("unlinks from the collection's side a weak link the member holds, and refuses a strong one", async () => {
    const e = await provision({
      aps: { type: EVENT },
      title: "backup only",
      calendar: { aps: { id: other } },
      backup: { aps: { id: cal } },
    });
    expect(await titles(`/aps/2/resources/${cal}/events`)).toContain("backup only");
    expect((await call("DELETE", `/aps/2/resources/${cal}/events/${e}`)).status).toBe(204);
    expect(await titles(`/aps/2/resources/${cal}/events`)).not.toContain("backup only");
    expect((await call("GET", `/aps/2/resources/${e}`)).json.backup).toBeUndefined();
    // Its required calendar link it cannot be without.
    const strong = await call("DELETE", `/aps/2/resources/${other}/events/${e}`);
    expect(strong.status, strong.text).toBe(409);
    expect(strong.json.message).toMatch(/required relation "calendar"/);
    expect(await titles(`/aps/2/resources/${other}/events`)).toContain("backup only");
  });

  it("configures with the resource as read: aps, links and unchanged final values are accepted", async () => {
    const id = await provision({
      aps: { type: EVENT },
      title: "as read",
      start: "09:00",
      calendar: { aps: { id: cal } },
    });
    const read = (await call("GET", `/aps/2/resources/${id}`)).json as Resource;
    expect(read.calendar).toMatchObject({ aps: { link: "strong", id: cal } });
    const put = await call("PUT", `/aps/2/resources/${id}`, { ...read, title: "renamed" });
    expect(put.status, put.text).toBe(200);
    expect(put.json).toMatchObject({
      title: "renamed",
      start: "09:00",
      calendar: { aps: { id: cal } },
      aps: { revision: read.aps.revision + 1 },
    });
    // The collection side as read: its link form names no member and changes nothing.
    const calRead = (await call("GET", `/aps/2/resources/${cal}`)).json as Resource;
    const calPut = await call("PUT", `/aps/2/resources/${cal}`, { ...calRead, name: "office" });
    expect(calPut.status, calPut.text).toBe(200);
    // FallBall and Connect name the target by aps.id, with the whole resource (platform-forms §1.2, §1.3).
    const again = (await call("GET", `/aps/2/resources/${id}`)).json as Resource;
    const byBody = await call("PUT", "/aps/2/resources", { ...again, title: "by body" });
    expect(byBody.status, byBody.text).toBe(200);
    expect(byBody.json.title).toBe("by body");
  });

  it("follows the link rules for changed links: relinks, unlinks a weak one, keeps a required one", async () => {
    const id = await provision({
      aps: { type: EVENT },
      title: "moving",
      calendar: { aps: { id: cal } },
      backup: { aps: { id: cal } },
    });
    const read = (await call("GET", `/aps/2/resources/${id}`)).json as Resource;
    const moved = await call("PUT", `/aps/2/resources/${id}`, {
      ...read,
      calendar: { aps: { id: other, link: "strong", href: `/aps/2/resources/${other}` } },
      backup: null,
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.json.calendar).toMatchObject({ aps: { id: other } });
    expect(moved.json.backup).toBeUndefined();
    expect(await titles(`/aps/2/resources/${other}/events`)).toContain("moving");
    expect(await titles(`/aps/2/resources/${cal}/events`)).not.toContain("moving");
    const now = (await call("GET", `/aps/2/resources/${id}`)).json as Resource;
    const removed = await call("PUT", `/aps/2/resources/${id}`, { ...now, calendar: null });
    expect(removed.status, removed.text).toBe(409);
    expect(removed.json.message).toMatch(/"calendar" is a required relation/);
    // A link to what is not there, or not a calendar, changes nothing (not even the properties sent with it).
    const wrong = await call("PUT", `/aps/2/resources/${id}`, {
      ...now,
      title: "not stored",
      calendar: { aps: { id } },
    });
    expect(wrong.status, wrong.text).toBe(400);
    expect((await call("GET", `/aps/2/resources/${id}`)).json).toMatchObject({
      title: "moving",
      aps: { revision: now.aps.revision },
    });
  });

  it("still refuses changed values the caller may not change, a changed type or id, and a stale revision", async () => {
    const id = await provision({
      aps: { type: EVENT },
      title: "fixed",
      start: "10:00",
      calendar: { aps: { id: cal } },
    });
    const read = (await call("GET", `/aps/2/resources/${id}`)).json as Resource;
    const final = await call("PUT", `/aps/2/resources/${id}`, { ...read, start: "11:00" });
    expect(final.status, final.text).toBe(400);
    expect(final.text).toMatch(/final/);
    // SpamExperts upgrades a resource by PUTting it with the next type version (service.php:311-330).
    const upgrade = await call("PUT", `/aps/2/resources/${id}`, {
      ...read,
      aps: { ...read.aps, type: "http://calendars.example/types/event/2.0" },
    });
    expect(upgrade.status, upgrade.text).toBe(409);
    expect(upgrade.json.message).toMatch(/cannot change a resource's type/);
    const otherId = await call("PUT", `/aps/2/resources/${id}`, { ...read, aps: { ...read.aps, id: cal } });
    expect(otherId.status, otherId.text).toBe(400);
    expect((await call("PUT", `/aps/2/resources/${id}`, { ...read, title: "first" })).status).toBe(200);
    const stale = await call("PUT", `/aps/2/resources/${id}`, { ...read, title: "second" });
    expect(stale.status, stale.text).toBe(409);
    expect((await call("GET", `/aps/2/resources/${id}`)).json).toMatchObject({ title: "first", start: "10:00" });
  });
});
