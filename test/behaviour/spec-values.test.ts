/**
 * Issue 16 item 12: values as the spec defines them.
 * - `default` is a "hint for clients preparing data for a new resource" (docs/aps/resources.md): a required
 *   property missing from a provisioning body is a 400 even when it declares a default (the
 *   controller used to fill it in, so a resource could hold a value nobody chose), and an optional
 *   one with a default is stored absent when not sent.
 * - A number beyond the double range (`1e309`) is a 400 in any body; `JSON.parse` made it
 *   `Infinity`, which was then stored as `null`.
 * In process, on PGlite and, with DATABASE_URL, on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databases, startBehaviourController, type BehaviourController } from "./harness.ts";

const CALENDAR = "http://calendars.example/types/calendar/1.0";

describe.each(databases)("values as the spec defines them on %s", (kind) => {
  let c: BehaviourController;

  const call = async (method: string, path: string, body?: string) => {
    const r = await c.request(path, {
      method,
      headers: { "content-type": "application/json" },
      ...(body === undefined ? {} : { body }),
    });
    const text = await r.text();
    return { status: r.status, text, json: text ? JSON.parse(text) : undefined };
  };
  const count = async () =>
    (await call("GET", `/aps/2/resources?implementing(${encodeURIComponent(CALENDAR)})`)).json.length as number;

  beforeAll(async () => {
    c = await startBehaviourController(kind, ["test/fixtures/controller/calendars"]);
  }, 60_000);
  afterAll(async () => c?.dispose());

  it("refuses a provisioning without a required property that declares a default, and fills in no default", async () => {
    const missing = await call(
      "POST",
      "/aps/2/resources",
      JSON.stringify({ aps: { type: CALENDAR }, name: "no region" }),
    );
    expect(missing.status, missing.text).toBe(400);
    expect(missing.text).toMatch(/\/region/);
    expect(await count()).toBe(0);
    const chosen = await call(
      "POST",
      "/aps/2/resources",
      JSON.stringify({ aps: { type: CALENDAR }, name: "eu", region: "eu" }),
    );
    expect(chosen.status, chosen.text).toBe(201);
    const read = (await call("GET", `/aps/2/resources/${chosen.json.aps.id}`)).json;
    expect(read.region).toBe("eu");
    // Optional with a default: not sent, not stored.
    expect("colour" in read).toBe(false);
    // The default stays offered to clients preparing a new resource.
    const type = await call("GET", `/aps/2/types/${encodeURIComponent(CALENDAR)}`);
    expect(type.text).toMatch(/"default":\s*"eu"/);
  });

  it("refuses a number beyond the double range in a body instead of storing null", async () => {
    const before = await count();
    for (const huge of ["1e309", "-1.5E+400", `${"9".repeat(400)}.5`]) {
      const r = await call(
        "POST",
        "/aps/2/resources",
        `{"aps": {"type": "${CALENDAR}"}, "name": "huge", "region": "us", "quota": ${huge}}`,
      );
      expect(r.status, r.text).toBe(400);
      expect(r.json.message).toMatch(/beyond the range of a double/);
    }
    expect(await count()).toBe(before);
    const ok = await call(
      "POST",
      "/aps/2/resources",
      `{"aps": {"type": "${CALENDAR}"}, "name": "fits", "region": "us", "quota": 1.7976931348623157e308}`,
    );
    expect(ok.status, ok.text).toBe(201);
    const id = ok.json.aps.id as string;
    const put = await call("PUT", `/aps/2/resources/${id}`, `{"quota": 1e309}`);
    expect(put.status, put.text).toBe(400);
    expect((await call("GET", `/aps/2/resources/${id}`)).json.quota).toBe(1.7976931348623157e308);
  });

  it("stores a property sent as null as absent, on provisioning as on configure (one null rule for every writer)", async () => {
    const made = await call(
      "POST",
      "/aps/2/resources",
      JSON.stringify({ aps: { type: CALENDAR }, name: "nulls", region: "us", quota: null, colour: null }),
    );
    expect(made.status, made.text).toBe(201);
    expect("quota" in made.json, made.text).toBe(false);
    expect("colour" in made.json, made.text).toBe(false);
    const id = made.json.aps.id as string;
    const read = (await call("GET", `/aps/2/resources/${id}`)).json;
    expect("quota" in read || "colour" in read, JSON.stringify(read)).toBe(false);
    // A value set and then cleared is absent too, and an RQL test for it finds no stored null.
    expect((await call("PUT", `/aps/2/resources/${id}`, JSON.stringify({ quota: 5 }))).status).toBe(200);
    expect((await call("PUT", `/aps/2/resources/${id}`, JSON.stringify({ quota: null }))).status).toBe(200);
    expect("quota" in (await call("GET", `/aps/2/resources/${id}`)).json).toBe(false);
  });
});
