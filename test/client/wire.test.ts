/**
 * Wire tests of the generated client SDK: the exact method, URL, headers and body each call
 * sends, captured by a `fetch` that records the request and answers a canned reply (no server).
 * The RQL round trip checks that what the builder writes is what the controller's parser reads.
 */
import { describe, expect, it } from "vitest";
import {
  configureMailbox,
  disableMailbox,
  enableMailbox,
  getMailbox,
  linkMailboxTenant,
  listMailboxes,
  listMailboxPages,
  listMailboxTenant,
  mailboxChangePassword,
  mailboxCheckAvailability,
  mailboxPurgeArchive,
  mailboxQuery,
  provisionMailbox,
  unlinkMailboxTenant,
  unprovisionMailbox,
} from "../../generated/client/examples/cloudmail/index.gen.ts";
import { domainQuery } from "../../generated/client/examples/cloudmail/index.gen.ts";
import {
  linkTenantDomains,
  listTenantEventSubscriptions,
  subscribeTenant,
  tenantExportMailboxes,
  tenantImportMailboxes,
  tenantUsage,
  unsubscribeTenant,
} from "../../generated/client/examples/cloudmail/index.gen.ts";
import { type Mailbox, MailboxTypeId } from "../../generated/types/examples/cloudmail/index.gen.ts";
import { ApsError } from "../../runtime/client/aps-error.ts";
import { createClient, type ApsClient, type ApsClientOptions } from "../../runtime/client/client.ts";
import { queryText, type ListQuery, type RqlFilter } from "../../runtime/client/rql.ts";
import { parseRql } from "../../runtime/common/rql.ts";
import { parseJsonText } from "../../runtime/common/json-text.ts";

const BASE = "https://controller.test";
/** `implementing(<Mailbox type id>)` as the client writes it: the whole type id percent-encoded. */
const IMPLEMENTING_MAILBOX = "implementing(http%3A%2F%2Fcloudmail.example.com%2Ftypes%2Fmailbox%2F1.0)";
const JSON_HEADERS = { accept: "application/json" };

/** One request as the client handed it to fetch, with header names lower-cased. */
interface Sent {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: unknown;
  readonly init: RequestInit;
}

/** A reply with a JSON body given as text (so integers beyond 2^53 can be written exactly). */
function reply(text: string | null, status = 200, headers: Record<string, string> = {}, statusText?: string): Response {
  return new Response(text, {
    status,
    ...(statusText ? { statusText } : {}),
    headers: text === null ? headers : { "content-type": "application/json", ...headers },
  });
}

/** A client whose fetch records every request and answers the next canned reply (204 when none are left). */
function fakeController(
  replies: Response[] = [],
  options: Partial<ApsClientOptions> = {},
): { client: ApsClient; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetch = async (input: string | URL | Request, init: RequestInit = {}) => {
    sent.push({
      url: String(input),
      method: init.method ?? "GET",
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      body: init.body,
      init,
    });
    return replies.shift() ?? new Response(null, { status: 204 });
  };
  return { client: createClient({ baseUrl: BASE, ...options, fetch: fetch as typeof globalThis.fetch }), sent };
}

const MAILBOX: Mailbox = { aps: { id: "m-1", type: MailboxTypeId, status: "aps:ready" }, localPart: "anna" };

describe("resources: provision, get, configure, unprovision, disable, enable", () => {
  it("provision POSTs the resource to /aps/2/resources with aps.type filled in", async () => {
    const { client, sent } = fakeController([reply(JSON.stringify(MAILBOX))], { token: "tok-1" });
    const stored = await provisionMailbox(client, {
      localPart: "anna",
      password: "0123456789",
      quota: 10,
      tenant: { aps: { id: "t-1" } },
      domain: { aps: { id: "d-1" } },
    });
    expect(stored).toEqual(MAILBOX);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.method).toBe("POST");
    expect(sent[0]!.url).toBe(`${BASE}/aps/2/resources`);
    expect(sent[0]!.headers).toEqual({
      accept: "application/json",
      "content-type": "application/json",
      "aps-token": "tok-1",
    });
    expect(JSON.parse(sent[0]!.body as string)).toStrictEqual({
      localPart: "anna",
      password: "0123456789",
      quota: 10,
      tenant: { aps: { id: "t-1" } },
      domain: { aps: { id: "d-1" } },
      aps: { type: MailboxTypeId },
    });
  });

  it("provision keeps the caller's aps.id/status and overrides a wrong aps.type", async () => {
    const { client, sent } = fakeController([reply(JSON.stringify(MAILBOX))]);
    const links = { tenant: { aps: { id: "t-1" } }, domain: { aps: { id: "d-1" } } };
    await provisionMailbox(client, {
      aps: { id: "own-id", status: "aps:provisioning", type: "http://other/1.0" },
      localPart: "anna",
      password: "0123456789",
      ...links,
    });
    expect(JSON.parse(sent[0]!.body as string)).toStrictEqual({
      aps: { id: "own-id", status: "aps:provisioning", type: MailboxTypeId },
      localPart: "anna",
      password: "0123456789",
      ...links,
    });
  });

  it("64-bit integers: bigints in a body are written as exact JSON integers", async () => {
    const { client, sent } = fakeController([reply(JSON.stringify(MAILBOX)), reply(JSON.stringify(MAILBOX))]);
    await provisionMailbox(client, {
      localPart: "anna",
      password: "0123456789",
      archiveQuota: 9223372036854775807n,
      quota: 9007199254740993n,
      maxMessageSize: 25600,
      tenant: { aps: { id: "t-1" } },
      domain: { aps: { id: "d-1" } },
    });
    const body = sent[0]!.body as string;
    expect(body).toContain('"archiveQuota":9223372036854775807');
    expect(body).toContain('"quota":9007199254740993');
    expect(body).toContain('"maxMessageSize":25600');
    expect(parseJsonText(body)).toEqual({
      localPart: "anna",
      password: "0123456789",
      archiveQuota: 9223372036854775807n,
      quota: 9007199254740993n,
      maxMessageSize: 25600,
      tenant: { aps: { id: "t-1" } },
      domain: { aps: { id: "d-1" } },
      aps: { type: MailboxTypeId },
    });
    // A string that looks like an internal bigint marker stays a string.
    await configureMailbox(client, "m-1", { archiveQuota: -9223372036854775808n, supportNote: "\u0000aps-bigint:12" });
    expect(sent[1]!.body).toBe('{"archiveQuota":-9223372036854775808,"supportNote":"\\u0000aps-bigint:12"}');
  });

  it("64-bit integers: integers beyond 2^53 in a reply arrive exact, as bigint", async () => {
    const { client } = fakeController([
      reply('{"aps":{"id":"m-1","type":"t"},"localPart":"anna","archiveQuota":9007199254740993,"quota":5120}'),
    ]);
    const mailbox = await getMailbox(client, "m-1");
    expect(mailbox.archiveQuota).toBe(9007199254740993n);
    expect(mailbox.quota).toBe(5120);
  });

  it("get: GET /aps/2/resources/{id}, the id escaped as a path segment, no body", async () => {
    const { client, sent } = fakeController([reply(JSON.stringify(MAILBOX))], { token: "tok-1" });
    expect(await getMailbox(client, "a/b c?d#e%")).toEqual(MAILBOX);
    expect(sent[0]!.method).toBe("GET");
    expect(sent[0]!.url).toBe(`${BASE}/aps/2/resources/a%2Fb%20c%3Fd%23e%25`);
    expect(sent[0]!.headers).toEqual({ accept: "application/json", "aps-token": "tok-1" });
    expect(sent[0]!.body).toBeUndefined();
  });

  it("configure PUTs only the changes", async () => {
    const { client, sent } = fakeController([reply(JSON.stringify({ ...MAILBOX, quota: 20 }))]);
    const updated = await configureMailbox(client, "m-1", { quota: 20, displayName: null, plan: "business" });
    expect(updated.quota).toBe(20);
    expect(sent[0]!.method).toBe("PUT");
    expect(sent[0]!.url).toBe(`${BASE}/aps/2/resources/m-1`);
    expect(sent[0]!.headers).toEqual({ accept: "application/json", "content-type": "application/json" });
    expect(sent[0]!.body).toBe('{"quota":20,"displayName":null,"plan":"business"}');
  });

  it("unprovision DELETEs without a body and resolves with nothing", async () => {
    const { client, sent } = fakeController([new Response(null, { status: 204 })]);
    await expect(unprovisionMailbox(client, "m-1")).resolves.toBeUndefined();
    expect(sent.map((s) => [s.method, s.url, s.body])).toEqual([["DELETE", `${BASE}/aps/2/resources/m-1`, undefined]]);
    expect(sent[0]!.headers).toEqual(JSON_HEADERS);
  });

  it("disable and enable PUT to /disable and /enable without a body", async () => {
    const { client, sent } = fakeController([
      reply(JSON.stringify({ ...MAILBOX, aps: { ...MAILBOX.aps, status: "aps:disabled" } })),
      reply(JSON.stringify(MAILBOX)),
    ]);
    expect((await disableMailbox(client, "m-1")).aps.status).toBe("aps:disabled");
    expect((await enableMailbox(client, "m-1")).aps.status).toBe("aps:ready");
    expect(sent.map((s) => [s.method, s.url, s.body, s.headers])).toEqual([
      ["PUT", `${BASE}/aps/2/resources/m-1/disable`, undefined, JSON_HEADERS],
      ["PUT", `${BASE}/aps/2/resources/m-1/enable`, undefined, JSON_HEADERS],
    ]);
  });
});

describe("headers and base URL", () => {
  it("APS-Token only when a token is set; APS-Transaction-ID and APS-Resource-ID when set", async () => {
    const anonymous = fakeController([reply(JSON.stringify(MAILBOX))]);
    await getMailbox(anonymous.client, "m-1");
    expect(anonymous.sent[0]!.headers).toEqual({ accept: "application/json" });

    const app = fakeController([reply(JSON.stringify(MAILBOX))], {
      token: "tok-2",
      transactionId: "tx-9",
      resourceId: "r-7",
    });
    await configureMailbox(app.client, "m-1", { quota: 1 });
    expect(app.sent[0]!.headers).toEqual({
      accept: "application/json",
      "content-type": "application/json",
      "aps-token": "tok-2",
      "aps-transaction-id": "tx-9",
      "aps-resource-id": "r-7",
    });
  });

  it("a trailing slash of the base URL is dropped; a path prefix is kept", async () => {
    const { sent, client } = fakeController([reply(JSON.stringify(MAILBOX))], {
      baseUrl: "https://proxy.test/aps-controller//",
    });
    await getMailbox(client, "m-1");
    expect(sent[0]!.url).toBe("https://proxy.test/aps-controller/aps/2/resources/m-1");
  });
});

describe("lists and RQL on the wire", () => {
  /** Reserved characters of RQL and URLs, and non-ASCII, all in one value. */
  const NASTY = "O'Brien (Sales), R&D = 50% *off* Zoë/東京?!#";
  const NASTY_ENCODED =
    "O%27Brien%20%28Sales%29%2C%20R%26D%20%3D%2050%25%20%2Aoff%2A%20Zo%C3%AB%2F%E6%9D%B1%E4%BA%AC%3F%21%23";

  it("filter values are escaped; sort, select and limit are written as RQL", async () => {
    const items = [MAILBOX, { ...MAILBOX, aps: { ...MAILBOX.aps, id: "m-2" }, localPart: "bob" }];
    const { client, sent } = fakeController(
      [reply(JSON.stringify(items), 200, { "content-range": "items 20-21/22" })],
      { token: "t" },
    );
    const page = await listMailboxes(client, {
      filter: mailboxQuery.and(
        mailboxQuery.eq("displayName", NASTY),
        mailboxQuery.in("plan", ["basic", "business"]),
        mailboxQuery.ge("archiveQuota", 9223372036854775807n),
        mailboxQuery.ne("aps.status", "aps:disabled"),
      ),
      sort: ["-quota", "localPart", "+aps.id"],
      select: ["localPart", "quota", "tenant"],
      limit: [20, 10],
    });
    expect(page).toEqual({ items, range: { first: 20, last: 21, total: 22 } });
    expect(sent[0]!.method).toBe("GET");
    expect(sent[0]!.headers).toEqual({ accept: "application/json", "aps-token": "t" });
    expect(sent[0]!.body).toBeUndefined();
    expect(sent[0]!.url).toBe(
      `${BASE}/aps/2/resources?${IMPLEMENTING_MAILBOX}` +
        `&and(eq(displayName,${NASTY_ENCODED}),in(plan,(basic,business)),ge(archiveQuota,9223372036854775807),ne(aps.status,aps%3Adisabled))` +
        "&sort(-quota,%2BlocalPart,%2Baps.id)&select(localPart,quota,tenant)&limit(20,10)",
    );
    // fetch's URL parser leaves the query as written (nothing left for it to escape or normalise).
    expect(new Request(sent[0]!.url).url).toBe(sent[0]!.url);
  });

  it("a list without a query asks for the type only; limit may omit the count", async () => {
    const { client, sent } = fakeController([
      reply("[]", 200, { "content-range": "items */0" }),
      reply("[]", 200, { "content-range": "items */0" }),
    ]);
    expect(await listMailboxes(client)).toEqual({ items: [], range: { total: 0 } });
    await listMailboxes(client, { limit: [5] });
    expect(sent.map((s) => s.url)).toEqual([
      `${BASE}/aps/2/resources?${IMPLEMENTING_MAILBOX}`,
      `${BASE}/aps/2/resources?${IMPLEMENTING_MAILBOX}&limit(5)`,
    ]);
  });

  it("like keeps * and ? as wildcards and escapes everything else", async () => {
    const { client, sent } = fakeController([reply("[]", 200, { "content-range": "items */0" })]);
    await listMailboxes(client, { filter: mailboxQuery.like("address", "o'b*(x)?_%,&=@ex.com*") });
    expect(sent[0]!.url).toBe(
      `${BASE}/aps/2/resources?${IMPLEMENTING_MAILBOX}&like(address,o%27b*%28x%29?_%25%2C%26%3D%40ex.com*)`,
    );
  });

  it("or, not, out and linkedWith", async () => {
    const { client, sent } = fakeController([reply("[]", 200, { "content-range": "items */0" })]);
    await listMailboxes(client, {
      filter: mailboxQuery.or(
        mailboxQuery.not(mailboxQuery.out("quota", [1, 2n])),
        mailboxQuery.linkedWith("t/1 (x)"),
        mailboxQuery.lt("spamThreshold", -0.5),
      ),
    });
    expect(sent[0]!.url).toBe(
      `${BASE}/aps/2/resources?${IMPLEMENTING_MAILBOX}&or(not(out(quota,(1,2))),linkedWith(t%2F1%20%28x%29),lt(spamThreshold,-0.5))`,
    );
  });
});

describe("RQL round trip: what the builder writes is what the controller's parser reads", () => {
  const values = [
    "O'Brien (Sales), R&D = 50% *off* Zoë/東京?!#",
    "a,b",
    "(",
    ")",
    "()",
    "&",
    "=",
    "a=eq=b",
    "|",
    "*",
    "?",
    "'",
    "%",
    "%2C",
    "+plus",
    "-minus",
    "~tilde_.",
    " leading and trailing ",
    'semi;colon [brackets] {braces} <angle> "quoted" back\\slash',
    "ünïcødé 日本語 🎉",
    "tab\tnew\nline",
    "",
  ];

  const parse = (filter: RqlFilter<Mailbox>) => parseRql(queryText({ filter }, MailboxTypeId));

  it.each(values)("eq/ne/lt/gt/le/ge keep the name and the value %j", (value) => {
    for (const op of ["eq", "ne", "lt", "gt", "le", "ge"] as const) {
      const q = parse(mailboxQuery[op]("displayName", value));
      expect(q.filter).toEqual({
        op: "and",
        args: [
          { op: "implementing", typeId: MailboxTypeId },
          { op, prop: "displayName", value },
        ],
      });
    }
  });

  it("in/out keep every value, whatever characters it has", () => {
    const all = values.filter((v) => v !== "");
    expect(parse(mailboxQuery.in("localPart", all)).filter).toEqual({
      op: "and",
      args: [
        { op: "implementing", typeId: MailboxTypeId },
        { op: "in", prop: "localPart", values: all },
      ],
    });
    expect(parse(mailboxQuery.out("localPart", ["", "x"])).filter).toEqual({
      op: "and",
      args: [
        { op: "implementing", typeId: MailboxTypeId },
        { op: "out", prop: "localPart", values: ["", "x"] },
      ],
    });
  });

  it("in/out with the empty string as the only value is not read as an empty list", () => {
    // `in(displayName,())` is an empty list to the parser (and `false` to the store), so [""] must be written otherwise.
    for (const op of ["in", "out"] as const) {
      const filter = parseRql(queryText({ filter: mailboxQuery[op]("displayName", [""]) })).filter;
      expect(filter).toMatchObject({ op, prop: "displayName" });
      const values = filter && "values" in filter ? filter.values : [];
      expect(values.length).toBeGreaterThan(0);
      expect(new Set(values)).toEqual(new Set([""]));
    }
  });

  it("numbers, bigints, booleans and aps fields", () => {
    const q = parseRql(
      queryText({
        filter: mailboxQuery.and(
          mailboxQuery.ge("archiveQuota", -9223372036854775808n),
          mailboxQuery.lt("spamThreshold", 5.5),
          mailboxQuery.eq("aps.id", "a/b"),
          mailboxQuery.eq("aps.type", MailboxTypeId),
        ),
      }),
    );
    expect(q.filter).toEqual({
      op: "and",
      args: [
        { op: "ge", prop: "archiveQuota", value: "-9223372036854775808" },
        { op: "lt", prop: "spamThreshold", value: "5.5" },
        { op: "eq", prop: "aps.id", value: "a/b" },
        { op: "eq", prop: "aps.type", value: MailboxTypeId },
      ],
    });
    expect(parseRql(queryText({ filter: domainQuery.eq("verified", true) })).filter).toEqual({
      op: "eq",
      prop: "verified",
      value: "true",
    });
  });

  it("like: wildcards stay wildcards, every other character is literal text", () => {
    const q = parse(mailboxQuery.like("address", "o'b*(x)?_%,&=@ex.com*"));
    expect(q.filter).toEqual({
      op: "and",
      args: [
        { op: "implementing", typeId: MailboxTypeId },
        {
          op: "like",
          prop: "address",
          pattern: [
            { text: "o'b" },
            { any: "many" },
            { text: "(x)" },
            { any: "one" },
            { text: "_%,&=@ex.com" },
            { any: "many" },
          ],
        },
      ],
    });
    expect(parse(mailboxQuery.like("address", "%2A 日本*")).filter).toEqual({
      op: "and",
      args: [
        { op: "implementing", typeId: MailboxTypeId },
        { op: "like", prop: "address", pattern: [{ text: "%2A 日本" }, { any: "many" }] },
      ],
    });
  });

  it("and/or/not nest; linkedWith keeps the id", () => {
    const q = parseRql(
      queryText({
        filter: mailboxQuery.or(
          mailboxQuery.not(mailboxQuery.eq("plan", "basic")),
          mailboxQuery.and(mailboxQuery.linkedWith("t,1 (x)"), mailboxQuery.eq("quota", 5)),
        ),
      }),
    );
    expect(q.filter).toEqual({
      op: "or",
      args: [
        { op: "not", arg: { op: "eq", prop: "plan", value: "basic" } },
        {
          op: "and",
          args: [
            { op: "linkedWith", id: "t,1 (x)" },
            { op: "eq", prop: "quota", value: "5" },
          ],
        },
      ],
    });
  });

  it("sort directions, select and limit", () => {
    const query: ListQuery<Mailbox> = {
      sort: ["-quota", "localPart", "+aps.status"],
      select: ["localPart", "tenant"],
      limit: [40, 20],
    };
    const q = parseRql(queryText(query, MailboxTypeId));
    expect(q.filter).toEqual({ op: "implementing", typeId: MailboxTypeId });
    expect(q.sort).toEqual([
      { prop: "quota", descending: true },
      { prop: "localPart", descending: false },
      { prop: "aps.status", descending: false },
    ]);
    expect(q.select).toEqual(["localPart", "tenant"]);
    expect(q.limit).toEqual({ start: 40, count: 20 });
  });
});

describe("custom operations", () => {
  it("path and query parameters are escaped; absent query parameters are left out", async () => {
    const report = { period: "2024/01 Q1&x=1", trafficIn: 1 };
    const { client, sent } = fakeController([reply(JSON.stringify(report)), reply(JSON.stringify(report))]);
    expect(
      await tenantUsage(client, "t 1", { period: "2024/01 Q1&x=1", top: 9223372036854775807n, detailed: false }),
    ).toEqual(report);
    await tenantUsage(client, "t1", { period: "p" });
    expect(sent.map((s) => [s.method, s.url, s.body, s.headers])).toEqual([
      [
        "GET",
        `${BASE}/aps/2/resources/t%201/usage/2024%2F01%20Q1%26x%3D1?top=9223372036854775807&detailed=false`,
        undefined,
        JSON_HEADERS,
      ],
      ["GET", `${BASE}/aps/2/resources/t1/usage/p`, undefined, JSON_HEADERS],
    ]);
  });

  it("a POST with query parameters only sends no body", async () => {
    const { client, sent } = fakeController([reply('{"messages":3,"freed":9007199254740993}')]);
    expect(await mailboxPurgeArchive(client, "m-1", { olderThanDays: 30, dryRun: true })).toEqual({
      messages: 3,
      freed: 9007199254740993n,
    });
    expect(sent[0]!.method).toBe("POST");
    expect(sent[0]!.url).toBe(`${BASE}/aps/2/resources/m-1/purgeArchive?olderThanDays=30&dryRun=true`);
    expect(sent[0]!.headers).toEqual(JSON_HEADERS);
    expect(sent[0]!.body).toBeUndefined();
  });

  it("a JSON body parameter is sent as the body itself", async () => {
    const { client, sent } = fakeController([reply("true")]);
    expect(
      await mailboxChangePassword(client, "m-1", {
        request: { newPassword: "correct horse ✓", signOutEverywhere: false },
      }),
    ).toBe(true);
    expect(sent[0]!.method).toBe("POST");
    expect(sent[0]!.url).toBe(`${BASE}/aps/2/resources/m-1/changePassword`);
    expect(sent[0]!.headers).toEqual({ accept: "application/json", "content-type": "application/json" });
    expect(sent[0]!.body).toBe('{"newPassword":"correct horse ✓","signOutEverywhere":false}');
  });

  it("a static operation goes to /aps/2/static/<type id> without a resource id", async () => {
    const { client, sent } = fakeController([reply('{"available":false,"suggestions":["anna1"]}')]);
    expect(await mailboxCheckAvailability(client, { query: { localPart: "anna", domain: "example.com" } })).toEqual({
      available: false,
      suggestions: ["anna1"],
    });
    expect(sent[0]!.method).toBe("POST");
    expect(sent[0]!.url).toBe(
      `${BASE}/aps/2/static/http%3A%2F%2Fcloudmail.example.com%2Ftypes%2Fmailbox%2F1.0/checkAvailability`,
    );
    expect(sent[0]!.body).toBe('{"localPart":"anna","domain":"example.com"}');
  });

  it("a contentType body is sent as raw bytes with its content type", async () => {
    const bytes = new Uint8Array([0x61, 0x2c, 0x62, 0x0a, 0xff, 0x00, 0xc3, 0xa9]);
    const { client, sent } = fakeController([reply('{"created":2}'), reply('{"created":1,"skipped":["x"]}')], {
      token: "tok",
    });
    expect(await tenantImportMailboxes(client, "t-1", { file: bytes })).toEqual({ created: 2 });
    await tenantImportMailboxes(client, "t-1", { file: "address,quota\nzoë@example.com,10\n" });
    expect(sent.map((s) => [s.method, s.url, s.headers])).toEqual([
      [
        "POST",
        `${BASE}/aps/2/resources/t-1/importMailboxes`,
        { accept: "application/json", "content-type": "text/csv", "aps-token": "tok" },
      ],
      [
        "POST",
        `${BASE}/aps/2/resources/t-1/importMailboxes`,
        { accept: "application/json", "content-type": "text/csv", "aps-token": "tok" },
      ],
    ]);
    // What fetch would put on the wire: the same bytes, and the declared content type.
    const first = new Request(sent[0]!.url, sent[0]!.init);
    expect(first.headers.get("content-type")).toBe("text/csv");
    expect(new Uint8Array(await first.arrayBuffer())).toEqual(bytes);
    const second = new Request(sent[1]!.url, sent[1]!.init);
    expect(second.headers.get("content-type")).toBe("text/csv");
    expect(Buffer.from(await second.arrayBuffer()).toString("hex")).toBe(
      Buffer.from("address,quota\nzoë@example.com,10\n", "utf8").toString("hex"),
    );
  });

  it("a contentType response is handed back as the Response, body unread", async () => {
    const csv = "address,quota\nanna@example.com,5120\n";
    const { client, sent } = fakeController([
      new Response(csv, { status: 200, headers: { "content-type": "text/csv" } }),
    ]);
    const response = await tenantExportMailboxes(client, "t-1");
    expect(response.headers.get("content-type")).toBe("text/csv");
    expect(response.bodyUsed).toBe(false);
    expect(await response.text()).toBe(csv);
    expect(sent[0]!.method).toBe("GET");
    expect(sent[0]!.url).toBe(`${BASE}/aps/2/resources/t-1/exportMailboxes`);
    expect(sent[0]!.body).toBeUndefined();
  });
});

describe("relations and subscriptions", () => {
  it("link POSTs { aps: { id } } to the relation; unlink DELETEs the target; list GETs the relation", async () => {
    const tenant = { aps: { id: "t 1", type: "http://cloudmail.example.com/types/tenant/1.0" } };
    const { client, sent } = fakeController([
      new Response(null, { status: 200 }),
      new Response(null, { status: 204 }),
      reply(JSON.stringify([tenant])),
      new Response(null, { status: 200 }),
    ]);
    await expect(linkMailboxTenant(client, "m-1", "t 1")).resolves.toBeUndefined();
    await expect(unlinkMailboxTenant(client, "m-1", "t 1")).resolves.toBeUndefined();
    expect(await listMailboxTenant(client, "m-1")).toEqual([tenant]);
    await linkTenantDomains(client, "t-1", "d/1");
    expect(sent.map((s) => [s.method, s.url, s.body])).toEqual([
      ["POST", `${BASE}/aps/2/resources/m-1/tenant`, '{"aps":{"id":"t 1"}}'],
      ["DELETE", `${BASE}/aps/2/resources/m-1/tenant/t%201`, undefined],
      ["GET", `${BASE}/aps/2/resources/m-1/tenant`, undefined],
      ["POST", `${BASE}/aps/2/resources/t-1/domains`, '{"aps":{"id":"d/1"}}'],
    ]);
    expect(sent[0]!.headers).toEqual({ accept: "application/json", "content-type": "application/json" });
    expect(sent[1]!.headers).toEqual(JSON_HEADERS);
  });

  it("subscribe, list and unsubscribe use /aps/2/resources/{id}/aps/subscriptions", async () => {
    const request = {
      event: "http://aps-standard.org/types/core/resource/1.0#Linked",
      source: { type: "http://cloudmail.example.com/types/domain/1.0" },
      handler: "onDomainLinked",
      relation: "tenant",
    } as const;
    const stored = { ...request, id: "s 1" };
    const { client, sent } = fakeController([
      reply(JSON.stringify(stored)),
      reply(JSON.stringify([stored])),
      new Response(null, { status: 204 }),
    ]);
    expect(await subscribeTenant(client, "t-1", request)).toEqual(stored);
    expect(await listTenantEventSubscriptions(client, "t-1")).toEqual([stored]);
    await expect(unsubscribeTenant(client, "t-1", "s 1")).resolves.toBeUndefined();
    expect(sent.map((s) => [s.method, s.url])).toEqual([
      ["POST", `${BASE}/aps/2/resources/t-1/aps/subscriptions`],
      ["GET", `${BASE}/aps/2/resources/t-1/aps/subscriptions`],
      ["DELETE", `${BASE}/aps/2/resources/t-1/aps/subscriptions/s%201`],
    ]);
    expect(JSON.parse(sent[0]!.body as string)).toStrictEqual(request);
    expect(sent[0]!.headers).toEqual({ accept: "application/json", "content-type": "application/json" });
    expect(sent[1]!.body).toBeUndefined();
    expect(sent[2]!.body).toBeUndefined();
  });
});

describe("errors", () => {
  const notFound = {
    code: 404,
    type: "NotFound",
    error: "NotFound",
    message: "Resource m-9 not found.",
    details: [{ path: "/aps/id", code: "missing", message: "no such resource" }],
  };

  it("a controller error reply rejects with an ApsError carrying status, type, message and details", async () => {
    const { client } = fakeController([reply(JSON.stringify(notFound), 404, {}, "Not Found")]);
    const error = await getMailbox(client, "m-9").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApsError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      name: "ApsError",
      status: 404,
      type: "NotFound",
      message: "Resource m-9 not found.",
      details: notFound.details,
    });
  });

  it("the error class comes from `error` when `type` is missing", async () => {
    const { client } = fakeController([reply('{"code":409,"error":"Conflict","message":"revision 3 is stale"}', 409)]);
    await expect(configureMailbox(client, "m-1", { quota: 1 })).rejects.toMatchObject({
      status: 409,
      type: "Conflict",
      message: "revision 3 is stale",
      details: [],
    });
  });

  it("a non-JSON error body (a proxy's 502) still rejects with an ApsError that keeps the status", async () => {
    const { client } = fakeController([
      new Response("upstream connect error", {
        status: 502,
        statusText: "Bad Gateway",
        headers: { "content-type": "text/plain" },
      }),
    ]);
    const error = await unprovisionMailbox(client, "m-1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApsError);
    expect(error).toMatchObject({ status: 502, type: "Bad Gateway", message: "upstream connect error", details: [] });
  });

  it("an empty error body gives a message naming the status", async () => {
    const { client } = fakeController([new Response(null, { status: 503 })]);
    await expect(listMailboxes(client)).rejects.toMatchObject({ status: 503, type: "Error", message: "HTTP 503" });
  });

  it("errors of relation, subscription and raw calls are ApsErrors too", async () => {
    const { client } = fakeController([
      reply(JSON.stringify(notFound), 404),
      reply(JSON.stringify({ ...notFound, code: 403, type: "Forbidden", error: "Forbidden", message: "no" }), 403),
      reply(JSON.stringify({ code: 400, type: "BadRequest", message: "not CSV" }), 400),
      reply(JSON.stringify(notFound), 404),
    ]);
    await expect(linkMailboxTenant(client, "m-1", "t-9")).rejects.toMatchObject({ status: 404, type: "NotFound" });
    await expect(
      subscribeTenant(client, "t-1", { event: "e", source: { id: "x" }, handler: "onMailboxChanged" }),
    ).rejects.toMatchObject({ status: 403, type: "Forbidden", message: "no" });
    await expect(tenantImportMailboxes(client, "t-1", { file: "x" })).rejects.toMatchObject({
      status: 400,
      type: "BadRequest",
      message: "not CSV",
    });
    await expect(tenantExportMailboxes(client, "t-1")).rejects.toBeInstanceOf(ApsError);
  });
});

describe("paging with Content-Range", () => {
  const mailbox = (n: number): Mailbox => ({ aps: { id: `m-${n}`, type: MailboxTypeId }, localPart: `user${n}` });

  it("listPages follows Content-Range: items 0-1/5, 2-3/5, 4-4/5 give three pages", async () => {
    const { client, sent } = fakeController([
      reply(JSON.stringify([mailbox(0), mailbox(1)]), 200, { "content-range": "items 0-1/5" }),
      reply(JSON.stringify([mailbox(2), mailbox(3)]), 200, { "content-range": "items 2-3/5" }),
      reply(JSON.stringify([mailbox(4)]), 200, { "content-range": "items 4-4/5" }),
    ]);
    const pages: Mailbox[][] = [];
    for await (const page of listMailboxPages(
      client,
      { filter: mailboxQuery.eq("plan", "basic"), sort: ["localPart"] },
      2,
    ))
      pages.push(page);
    expect(pages).toEqual([[mailbox(0), mailbox(1)], [mailbox(2), mailbox(3)], [mailbox(4)]]);
    const query = `${IMPLEMENTING_MAILBOX}&eq(plan,basic)&sort(%2BlocalPart)`;
    expect(sent.map((s) => [s.method, s.url])).toEqual([
      ["GET", `${BASE}/aps/2/resources?${query}&limit(0,2)`],
      ["GET", `${BASE}/aps/2/resources?${query}&limit(2,2)`],
      ["GET", `${BASE}/aps/2/resources?${query}&limit(4,2)`],
    ]);
  });

  it("an empty list (items */0) yields nothing after one request", async () => {
    const { client, sent } = fakeController([reply("[]", 200, { "content-range": "items */0" })]);
    const pages: Mailbox[][] = [];
    for await (const page of listMailboxPages(client)) pages.push(page);
    expect(pages).toEqual([]);
    expect(sent.map((s) => s.url)).toEqual([`${BASE}/aps/2/resources?${IMPLEMENTING_MAILBOX}&limit(0,100)`]);
  });

  it("a failing page rejects the iteration with an ApsError", async () => {
    const { client, sent } = fakeController([
      reply(JSON.stringify([mailbox(0)]), 200, { "content-range": "items 0-0/3" }),
      new Response("gateway timeout", { status: 504 }),
    ]);
    const pages: Mailbox[][] = [];
    const run = async () => {
      for await (const page of listMailboxPages(client, undefined, 1)) pages.push(page);
    };
    await expect(run()).rejects.toMatchObject({ status: 504, message: "gateway timeout" });
    expect(pages).toEqual([[mailbox(0)]]);
    expect(sent).toHaveLength(2);
  });
});
