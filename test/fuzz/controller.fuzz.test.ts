/**
 * Issue 15: property-based fuzzing of the controller, in process (`app.request`, no sockets), on
 * PGlite and, when DATABASE_URL is set, on PostgreSQL. RQL strings, paths, headers and bodies,
 * valid and broken: the controller never answers 5xx, and every 4xx is the one error shape of
 * runtime/controller/support/errors.ts. Fixed seeds, so a failure reproduces; fast-check prints the
 * shrunk counterexample (FUZZ_LOG=1 prints every request and its answer).
 *
 * Types that an application serves are left out on purpose: this controller runs without
 * applications, where they answer 502 by design (resources/applications.ts, `applicationsFor`).
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringifyJson } from "../../runtime/common/json-text.ts";
import { databases } from "../e2e/controller-harness.ts";
import { isErrorShape, startInProcessController, type InProcessController } from "./in-process-controller.ts";

const NOTE = "http://notes.example/types/note/1.0";
const TOPIC = "http://notes.example/types/topic/1.0";
const ACCOUNT = "http://aps-standard.org/types/core/account/1.0";
const USER = "http://aps-standard.org/types/core/user/1.0";
const SEED = 20_251_115;
const RUNS = 250;

/** Text that looks like what people (and attackers) put in URLs: RQL punctuation, escapes good and bad, NUL, non-ASCII. */
const urlText = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        "(",
        ")",
        ",",
        "&",
        "|",
        "=",
        "*",
        "?",
        ".",
        "-",
        "+",
        "/",
        "%",
        "%2",
        "%ZZ",
        "%E0%A4%A",
        "%00",
        "%25",
        "%2C",
        "%28",
        "%29",
        "%FF",
        "%C3%A9",
        "é",
        "😀",
        "\\",
        "'",
        '"',
        " ",
      ),
      fc.constantFrom(
        "title",
        "size",
        "score",
        "done",
        "tags",
        "meta.lang",
        "aps.id",
        "aps.type",
        "aps.status",
        "aps.revision",
        "aps.modified",
        "x",
      ),
      fc.constantFrom(
        "1",
        "-0",
        "0.5",
        "1e1000000",
        "1e-1000000",
        "-1e400",
        "9223372036854775808",
        "99999999999999999999999999",
        "NaN",
        "Infinity",
        "true",
        "null",
        "",
      ),
      fc.string({ maxLength: 6 }),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(""));

/** RQL built from its grammar (so most of it parses and reaches SQL), with broken values inside. */
const rqlValue = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9 _.-]{0,8}$/).map(encodeURIComponent) },
  { weight: 3, arbitrary: fc.oneof(fc.double(), fc.integer(), fc.bigInt()).map(String) },
  { weight: 3, arbitrary: fc.constantFrom("alpha", "seed", "1", "2.5", "true", "null", "en") },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "1e1000000",
      "-1e400",
      "1e-1000000",
      "0.000000000000000000000000000000000000000000001e-400",
      "%00",
      "a%00b",
      "%E0%A4%A",
      "%ED%A0%80",
      `1${"0".repeat(400)}`,
    ),
  },
  { weight: 1, arbitrary: urlText },
);
const rqlProp = fc.constantFrom(
  "title",
  "size",
  "score",
  "done",
  "tags",
  "meta",
  "meta.lang",
  "aps.id",
  "aps.type",
  "aps.status",
  "aps.revision",
  "aps.modified",
  "aps.subscription",
  "title",
  "size",
  "score",
  "nope",
  "a.b.c.d",
);
const rqlTerm: fc.Arbitrary<string> = fc.letrec<{ term: string }>((tie) => ({
  term: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc
      .tuple(fc.constantFrom("eq", "ne", "lt", "gt", "le", "ge", "like"), rqlProp, rqlValue)
      .map(([op, p, v]) => `${op}(${p},${v})`),
    fc
      .tuple(fc.constantFrom("in", "out"), rqlProp, fc.array(rqlValue, { maxLength: 30 }))
      .map(([op, p, vs]) => `${op}(${p},(${vs.join(",")}))`),
    fc.tuple(rqlProp, fc.constantFrom("eq", "ne", "lt", "ge", "xx"), rqlValue).map(([p, op, v]) => `${p}=${op}=${v}`),
    fc
      .tuple(
        fc.constantFrom("implementing", "composing", "linkedWith"),
        fc.oneof(fc.constantFrom(encodeURIComponent(NOTE), encodeURIComponent(ACCOUNT)), rqlValue),
      )
      .map(([op, v]) => `${op}(${v})`),
    fc
      .tuple(fc.constantFrom("and", "or"), fc.array(tie("term"), { minLength: 1, maxLength: 3 }))
      .map(([op, ts]) => `${op}(${ts.join(",")})`),
    tie("term").map((t) => `not(${t})`),
    fc.array(tie("term"), { minLength: 1, maxLength: 3 }).map((ts) => `(${ts.join("|")})`),
  ),
})).term;
const rqlQuery = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.array(rqlTerm, { maxLength: 3 }),
        fc.option(
          fc.tuple(
            fc.oneof(fc.nat({ max: 5 }), fc.nat({ max: 2_000_000_000 })),
            fc.oneof(fc.nat({ max: 20 }), fc.nat({ max: 2_000_000_000 })),
          ),
        ),
        fc.option(
          fc.array(fc.constantFrom("+title", "-size", "aps.modified", "meta.lang", "%00", "-"), { maxLength: 3 }),
        ),
      )
      .map(([terms, limit, sort]) =>
        [
          ...terms,
          ...(limit ? [`limit(${limit[0]},${limit[1]})`] : []),
          ...(sort ? [`sort(${sort.join(",")})`] : []),
          "select(title,aps.id)",
        ].join("&"),
      ),
  },
  { weight: 1, arbitrary: urlText },
);

/** JSON values with the shapes that break parsers and databases: deep nesting, NUL, huge numbers, long integers. */
const hostileJsonText = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  fc.nat({ max: 6000 }).map((n) => `${"[".repeat(n)}${"]".repeat(n)}`),
  fc.nat({ max: 6000 }).map((n) => `${'{"a":'.repeat(n)}12345678901234567890${"}".repeat(n)}`),
  fc.constantFrom(
    "1e1000000",
    "-1e1000000",
    "123456789012345678901234567890",
    '"\\u0000"',
    '{"\\u0000":1}',
    '"\\ud800"',
    "",
    " ",
    "nul",
    "{",
    '{"a":1,"a":2}',
    "[1,]",
    "\u0000",
  ),
  fc.string({ maxLength: 40 }),
);
const noteProperty = fc.constantFrom(
  "title",
  "body",
  "pin",
  "size",
  "score",
  "done",
  "tags",
  "meta",
  "region",
  "stamp",
  "adminNote",
  "shared",
  "topic",
  "aps",
  "unknown",
);
/** Notes with values of the declared types (so they reach validation and storage), text of any code units. */
const anyText = fc.string({
  unit: fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom("\u0000", "\ud800", "\udfff", "\ud83d\ude00", "'", "\\", '"', "%") },
    { weight: 30, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
  ),
  maxLength: 12,
});
const storableNote = fc
  .record(
    {
      title: anyText,
      body: anyText,
      size: fc.oneof(
        { weight: 5, arbitrary: fc.integer() },
        { weight: 3, arbitrary: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }) },
        { weight: 1, arbitrary: fc.bigInt() },
      ),
      score: fc.oneof(
        { weight: 5, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
        { weight: 1, arbitrary: fc.double() },
      ),
      done: fc.boolean(),
      tags: fc.array(anyText, { maxLength: 3 }),
      meta: fc.dictionary(anyText, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    },
    { requiredKeys: ["title"] },
  )
  .map((note) => stringifyJson({ aps: { type: NOTE }, ...note }));
const resourceBody = fc.oneof(
  { weight: 2, arbitrary: storableNote },
  fc
    .tuple(
      fc.constantFrom(NOTE, TOPIC, ACCOUNT, USER, "http://nowhere.example/x/1.0", ""),
      fc.dictionary(noteProperty, hostileJsonText, { maxKeys: 4 }),
      fc.option(hostileJsonText),
    )
    .map(
      ([type, props, aps]) =>
        `{"aps":${aps ?? JSON.stringify({ type })},${Object.entries(props)
          .map(([k, v]) => `${JSON.stringify(k)}:${v || "null"},`)
          .join("")}"title":"t"}`,
    ),
  hostileJsonText,
);

const headerValue = fc.string({ maxLength: 30 }).filter((s) => /^[\t\x20-\x7e]*$/.test(s));

describe.each(databases)("controller fuzz on %s", (kind) => {
  let c: InProcessController;
  let noteId: string;
  let packageId: string;
  const seen = new Map<number, number>();

  beforeAll(async () => {
    c = await startInProcessController(kind, ["test/fixtures/controller/notes", "types/examples/cloudmail"]);
    const r = await c.request("/aps/2/resources", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ aps: { type: NOTE }, title: "seed", size: 1, tags: ["a"], meta: { lang: "en" } }),
    });
    noteId = ((await r.json()) as { aps: { id: string } }).aps.id;
    packageId = ((await (await c.request("/aps/2/packages")).json()) as { id: string }[])[0]!.id;
  }, 60_000);
  afterAll(async () => {
    console.log(`${kind}: statuses seen ${JSON.stringify(Object.fromEntries([...seen].sort(([a], [b]) => a - b)))}`);
    await c?.dispose();
  });

  /** Sends a request and checks the two promises: no 5xx, errors in the one shape. */
  async function holds(path: string, init: RequestInit = {}): Promise<void> {
    let response: Response;
    try {
      response = await c.request(path, init);
    } catch (error) {
      // The Request itself could not be built (an invalid URL or header): nothing reached the controller.
      if (error instanceof TypeError) return;
      throw error;
    }
    seen.set(response.status, (seen.get(response.status) ?? 0) + 1);
    const text = await response.text();
    const what = `${init.method ?? "GET"} ${path.slice(0, 300)} -> ${response.status} ${text.slice(0, 300)}`;
    if (process.env.FUZZ_LOG) console.log(what.slice(0, 240));
    expect(response.status, what).toBeLessThan(500);
    if (response.status >= 400 && init.method !== "HEAD") {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      expect(isErrorShape(response.status, body), what).toBe(true);
    }
  }

  it("RQL on lists of resources and of types", async () => {
    await fc.assert(
      fc.asyncProperty(rqlQuery, fc.constantFrom("/aps/2/resources", "/aps/2/types"), async (query, list) =>
        holds(`${list}?${query}`),
      ),
      { seed: SEED, numRuns: RUNS * 2 },
    );
  }, 60_000);

  it("paths and methods", async () => {
    const prefixes = [
      "/aps/2/types/",
      "/aps/2/static/",
      `/aps/2/static/${encodeURIComponent(NOTE)}/`,
      "/aps/2/packages/",
      `/aps/2/packages/${packageId}/`,
      "/aps/2/resources/",
      `/aps/2/resources/${noteId}/`,
      `/aps/2/resources/${noteId}/topic/`,
      "/aps/2/",
      "/",
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...prefixes),
        fc.array(urlText, { maxLength: 3 }),
        fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"),
        async (prefix, segments, method) => {
          await holds(`${prefix}${segments.join("/")}`, {
            method,
            ...(method === "POST" || method === "PUT" || method === "PATCH"
              ? { headers: { "content-type": "application/json" }, body: "{}" }
              : {}),
          });
        },
      ),
      { seed: SEED, numRuns: RUNS * 2 },
    );
  }, 60_000);

  it("headers", async () => {
    const token = fc.oneof(
      fc.constant(undefined),
      fc.constant(""),
      headerValue,
      fc.constant("eyJhbGciOiJub25lIn0.eyJhY2MiOiJ4In0."),
      fc.constant("admin"),
    );
    await fc.assert(
      fc.asyncProperty(
        token,
        fc.option(
          fc.oneof(
            headerValue,
            fc.constantFrom(
              "application/json",
              "application/json; charset=latin1",
              "application/zip",
              "text/plain",
              "multipart/form-data; boundary=x",
              "application/vnd.x+json",
            ),
          ),
        ),
        fc.option(fc.oneof(headerValue, fc.constantFrom("-1", "1e3", "99999999999999999999", "0x10", "2", "0"))),
        fc.constantFrom(
          "/aps/2/resources",
          `/aps/2/resources/${noteId}`,
          "/aps/2/packages",
          `/aps/2/static/${encodeURIComponent(NOTE)}/op`,
          `/aps/2/resources/${noteId}/op`,
        ),
        fc.constantFrom("POST", "PUT", "GET"),
        async (apsToken, contentType, contentLength, path, method) => {
          const headers: Record<string, string> = {};
          headers["aps-token"] = apsToken === "admin" ? c.adminToken : (apsToken ?? "");
          if (contentType !== null) headers["content-type"] = contentType;
          if (contentLength !== null) headers["content-length"] = contentLength;
          await holds(path, {
            method,
            headers,
            ...(method === "GET" ? {} : { body: JSON.stringify({ aps: { type: NOTE }, title: "h" }) }),
          });
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  }, 60_000);

  it("bodies", async () => {
    await fc.assert(
      fc.asyncProperty(
        resourceBody,
        fc.constantFrom("POST /aps/2/resources", "PUT note", "POST note/topic", "POST note/op", "POST /aps/2/packages"),
        async (body, target) => {
          const [method, where] = target.split(" ") as [string, string];
          const path =
            where === "note"
              ? `/aps/2/resources/${noteId}`
              : where.startsWith("note/")
                ? `/aps/2/resources/${noteId}/${where.slice(5)}`
                : where;
          await holds(path, {
            method,
            headers: { "content-type": where === "/aps/2/packages" ? "application/zip" : "application/json" },
            body,
          });
        },
      ),
      { seed: SEED, numRuns: RUNS * 2 },
    );
  }, 60_000);
});
