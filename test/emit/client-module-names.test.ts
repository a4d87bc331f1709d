import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as prettier from "prettier";
import { afterAll, describe, expect, it } from "vitest";
import { emitAll } from "../../generator/build.ts";
import { PRETTIER_OPTIONS } from "../../generator/emit/core/format-options.ts";
import { compile } from "../../generator/pipeline.ts";
import { typecheckEmitted } from "../helpers/typecheck.ts";

/**
 * One client module per package holds the client functions of every type of the package, so
 * every function name in it must be unique, and clear of what it imports and of the globals it
 * uses. These packages try to make them clash.
 */
const dir = mkdtempSync(join(tmpdir(), "aps-client-names-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RESOURCE = "http://aps-standard.org/types/core/resource/1.0";
const id = (name: string) => `http://clash.example/types/${name.toLowerCase()}/1.0`;
const type = (name: string, rest: object) => ({
  apsVersion: "2.0",
  name,
  id: id(name),
  implements: [RESOURCE],
  ...rest,
});
const notification = { event: { kind: "body", type: `${RESOURCE}#Notification`, required: true } };

const schemas: Record<string, object> = {
  "mailbox.schema": type("Mailbox", {
    properties: { size: { type: "integer" } },
    // `listMailboxPages` is also the page-by-page list of Mailbox.
    relations: { pages: { type: id("MailboxPage"), collection: true } },
    operations: {
      // `mailboxQuery` is also Mailbox's query constant.
      query: { verb: "GET", path: "/query", response: { type: "object" } },
      // `mailboxListMailboxPages`: what MailboxPage's `listMailboxPages` becomes when prefixed.
      listMailboxPages: { verb: "GET", path: "/lmp", response: { type: "object" } },
      onEvent: { verb: "POST", path: "/onEvent", parameters: notification },
    },
  }),
  // Its plural list, `listMailboxPages`, is Mailbox's page-by-page list.
  "mailbox-page.schema": type("MailboxPage", { properties: { n: { type: "integer" } } }),
  // `sendJson` is an import of the module; `getMailbox` a function of Mailbox.
  "send.schema": type("Send", { operations: { json: { verb: "POST", path: "/json", response: { type: "object" } } } }),
  "get.schema": type("Get", { operations: { mailbox: { verb: "GET", path: "/m", response: { type: "object" } } } }),
  // `encodeURIComponent` is the global a static operation's path takes.
  "encode-uri.schema": type("EncodeURI", {
    operations: { component: { verb: "GET", path: "/c", static: true, response: { type: "object" } } },
  }),
};

function build() {
  const pkg = join(dir, "clash");
  mkdirSync(pkg, { recursive: true });
  for (const [file, schema] of Object.entries(schemas)) writeFileSync(join(pkg, file), JSON.stringify(schema, null, 2));
  const { model, diagnostics } = compile([pkg], { cwd: dir });
  return { diagnostics, files: emitAll(model) };
}

/** `export function`, `export async function`, `export const` and `export type` names of a module. */
function declared(text: string): string[] {
  return [...text.matchAll(/^export (?:async function|function|const|type) ([A-Za-z0-9_$]+)/gm)].map((m) => m[1]!);
}

describe("names of a package's client module", () => {
  const { diagnostics, files } = build();
  const module = files.find((f) => f.path === "client/clash/index.gen.ts")!;

  it("is the only client file of the package", () => {
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(files.filter((f) => f.path.startsWith("client/clash/")).map((f) => f.path)).toEqual([
      "client/clash/index.gen.ts",
    ]);
  });

  it("declares each name once, prefixing a name two types take with the type's name", () => {
    const names = declared(module.content);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(
      expect.arrayContaining([
        // Mailbox's own clashes, settled in its names: its operation `query` after its query
        // constant, its relation `pages` list after its page-by-page list.
        "mailboxQuery",
        "mailboxQuery_2",
        "listMailboxPages_2",
        // Mailbox's page-by-page list and MailboxPage's plural list, both `listMailboxPages`,
        // take their type's name; Mailbox's operation `listMailboxPages` took that name first.
        "mailboxListMailboxPages",
        "mailboxListMailboxPages_2",
        "mailboxPageListMailboxPages",
        "sendJson",
        "mailboxGetMailbox",
        "getGetMailbox",
        "encodeURIComponent_2",
        "MailboxEventHandler",
        "subscribeMailbox",
      ]),
    );
    expect(names).not.toContain("encodeURIComponent");
    expect(names).not.toContain("listMailboxPages");
    expect(names).not.toContain("getMailbox");
    // The runtime's sendJson is imported under another name.
    expect(module.content).toMatch(/sendJson as sendJson_2/);
  });

  it("is exported by the client index under the module's names", () => {
    const index = files.find((f) => f.path === "client/index.gen.ts")!.content;
    for (const name of [
      "mailboxListMailboxPages",
      "mailboxPageListMailboxPages",
      "mailboxListMailboxPages_2",
      "getGetMailbox",
    ])
      expect(index).toMatch(new RegExp(`\\b${name},`));
  });

  it("is written as Prettier prints it, the same on a second build", async () => {
    expect(await prettier.format(module.content, { ...PRETTIER_OPTIONS, filepath: module.path })).toBe(module.content);
    expect(build().files.find((f) => f.path === module.path)!.content).toBe(module.content);
  });

  it("compiles, with the client index", () => {
    expect(typecheckEmitted(files, join(dir, "out"))).toEqual([]);
  }, 60_000);
});
