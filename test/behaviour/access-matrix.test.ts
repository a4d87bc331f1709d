import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";
import { repoRoot } from "../helpers/paths.ts";
import { databases, startBehaviourController, type BehaviourController } from "./harness.ts";

/**
 * Every combination of admin/owner/referrer/public allowed or denied (16 access objects), for
 * properties (read and write) and for the base operations retrieve, configure and unprovision,
 * against each role a caller can hold (docs/aps/resources.md, the access object;
 * docs/aps/security.md; docs/aps/rest-api.md, errors).
 */
const ROLES = ["admin", "owner", "referrer", "public"] as const;
type Role = (typeof ROLES)[number];
const PATTERNS = Array.from({ length: 16 }, (_, n) => n);
const access = (n: number) => Object.fromEntries(ROLES.map((r, i) => [r, (n & (1 << i)) !== 0]));
const allows = (n: number, role: Role) => (n & (1 << ROLES.indexOf(role))) !== 0 || (n & 8) !== 0;
const ALL = access(15);
const RESOURCE = "http://aps-standard.org/types/core/resource/1.0";
const ACCOUNT = "http://aps-standard.org/types/core/account/1.0";
const id = (name: string) => `http://matrix.example/types/${name}/1.0`;
const base = (retrieve: object, write: object) => ({
  provision: {
    verb: "POST",
    path: "/",
    static: true,
    access: ALL,
    response: { type: "self" },
    errorResponse: { type: "object" },
  },
  retrieve: { verb: "GET", path: "/", access: retrieve, response: { type: "self" }, errorResponse: { type: "object" } },
  configure: {
    verb: "PUT",
    path: "/",
    access: write,
    parameters: { new: { kind: "body", type: "self", required: true } },
    response: { type: "self" },
    errorResponse: { type: "object" },
  },
  unprovision: {
    verb: "DELETE",
    path: "/",
    access: write,
    response: { type: "object" },
    errorResponse: { type: "object" },
  },
});

function writeFixture(dir: string): void {
  const decl = (name: string, body: object) =>
    writeFileSync(
      join(dir, `${name}.schema`),
      JSON.stringify({ apsVersion: "2.0", name, id: id(name), implements: [RESOURCE], ...body }, null, 2),
    );
  decl("board", {
    properties: Object.fromEntries(PATTERNS.map((n) => [`p${n}`, { type: "string", access: access(n) }])),
    operations: base(ALL, ALL),
  });
  for (const n of PATTERNS) {
    decl(`ops${n}`, { properties: { x: { type: "string", access: ALL } }, operations: base(ALL, access(n)) });
    decl(`ret${n}`, { properties: { x: { type: "string", access: ALL } }, operations: base(access(n), ALL) });
  }
  decl("pin", {
    properties: {},
    relations: { target: { type: RESOURCE, collection: true } },
    operations: base(ALL, ALL),
  });
}

describe.each(databases)("role x access matrix on %s", (kind) => {
  const dir = mkdtempSync(join(tmpdir(), "aps-matrix-"));
  let t: BehaviourController;
  const tokens: Record<Role, string> = { admin: "", owner: "", referrer: "", public: "" };
  let board = "";
  const ops: string[] = [];
  const rets: string[] = [];

  beforeAll(async () => {
    mkdirSync(dir, { recursive: true });
    writeFixture(dir);
    t = await startBehaviourController(kind, [relative(repoRoot, dir)]);
    const mint = new TokenService(loadKeys(t.dataDir).token);
    const account = async (name: string) =>
      (
        await t.call("POST", "/aps/2/resources", {
          token: t.adminToken,
          body: { aps: { type: ACCOUNT }, companyName: name, addressPostal: {} },
        })
      ).json.aps.id as string;
    const ownerAccount = await account("owner");
    const referrerAccount = await account("referrer");
    const publicAccount = await account("public");
    tokens.admin = t.adminToken;
    tokens.owner = await mint.mint({ accountId: ownerAccount });
    tokens.referrer = await mint.mint({ accountId: referrerAccount });
    tokens.public = await mint.mint({ accountId: publicAccount });
    const make = async (type: string, body: object = {}) => {
      const r = await t.call("POST", "/aps/2/resources", {
        token: tokens.owner,
        body: { aps: { type: id(type) }, ...body },
      });
      expect(r.status, r.text).toBe(201);
      return r.json.aps.id as string;
    };
    board = await make("board");
    for (const n of PATTERNS) ops.push(await make(`ops${n}`, { x: "x" }));
    for (const n of PATTERNS) rets.push(await make(`ret${n}`, { x: "x" }));
    // The referrer account owns a pin linked to every resource above. Links are arranged in the
    // database directly: a caller can only link what it can already see.
    const pin = await t.call("POST", "/aps/2/resources", {
      token: tokens.referrer,
      body: { aps: { type: id("pin") } },
    });
    const targets = [board, ...ops, ...rets]
      .map((target) => `('${pin.json.aps.id}', 'target', '${target}')`)
      .join(", ");
    await t.sql(`insert into links (source_id, relation, target_id) values ${targets}`);
    // Each role fills in the properties it may write, so every property but p0 has a value.
    for (const role of ROLES) {
      const body = Object.fromEntries(PATTERNS.filter((n) => allows(n, role)).map((n) => [`p${n}`, `v${n}`]));
      expect((await t.call("PUT", `/aps/2/resources/${board}`, { token: tokens[role], body })).status, role).toBe(200);
    }
  }, 120_000);
  afterAll(async () => {
    await t?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(ROLES)("properties: %s reads exactly the properties whose access allows it", async (role) => {
    const r = await t.call("GET", `/aps/2/resources/${board}`, { token: tokens[role] });
    expect(r.status).toBe(200);
    const shown = PATTERNS.filter((n) => `p${n}` in r.json);
    expect(shown).toEqual(PATTERNS.filter((n) => n !== 0 && allows(n, role)));
  });

  it.each(ROLES)("properties: %s writes exactly the properties whose access allows it", async (role) => {
    for (const n of PATTERNS) {
      const r = await t.call("PUT", `/aps/2/resources/${board}`, {
        token: tokens[role],
        body: { [`p${n}`]: `${role}` },
      });
      if (allows(n, role)) expect(r.status, `p${n} ${r.text}`).toBe(200);
      else {
        expect(r.status, `p${n}`).toBe(400);
        expect(r.json.details).toEqual([expect.objectContaining({ path: `/p${n}`, code: "access" })]);
      }
    }
  });

  it.each(ROLES)(
    "operations: %s may retrieve exactly where retrieve's access allows it (404 otherwise)",
    async (role) => {
      const seen = [];
      for (const n of PATTERNS)
        if ((await t.call("GET", `/aps/2/resources/${rets[n]}`, { token: tokens[role] })).status === 200) seen.push(n);
      expect(seen).toEqual(PATTERNS.filter((n) => allows(n, role)));
    },
  );

  it.each(ROLES)(
    "operations: %s may configure exactly where configure's access allows it (403 otherwise)",
    async (role) => {
      for (const n of PATTERNS) {
        const r = await t.call("PUT", `/aps/2/resources/${ops[n]}`, { token: tokens[role], body: { x: role } });
        expect(r.status, `ops${n}`).toBe(allows(n, role) ? 200 : 403);
      }
    },
  );

  it("operations: unprovision follows its access; denied calls delete nothing", async () => {
    for (const role of ["public", "referrer", "admin"] as const) {
      for (const n of PATTERNS) {
        if (allows(n, role)) continue;
        expect(
          (await t.call("DELETE", `/aps/2/resources/${ops[n]}`, { token: tokens[role] })).status,
          `${role} ops${n}`,
        ).toBe(403);
      }
    }
    for (const n of PATTERNS) {
      const r = await t.call("DELETE", `/aps/2/resources/${ops[n]}`, { token: tokens.owner });
      expect(r.status, `owner ops${n}`).toBe(allows(n, "owner") ? 204 : 403);
    }
  });

  it("lists show each role exactly the resources it may retrieve", async () => {
    for (const role of ROLES) {
      const r = await t.call(
        "GET",
        `/aps/2/resources?in(aps.type,(${PATTERNS.map((n) => encodeURIComponent(id(`ret${n}`))).join(",")}))`,
        { token: tokens[role] },
      );
      const listed = r.json
        .map((x: { aps: { type: string } }) => Number(x.aps.type.match(/ret(\d+)/)![1]))
        .sort((a: number, b: number) => a - b);
      expect(listed, role).toEqual(PATTERNS.filter((n) => allows(n, role)));
    }
  });
});
