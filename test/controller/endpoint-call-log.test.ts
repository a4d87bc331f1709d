import { describe, expect, it } from "vitest";
import {
  MASKED_VALUE,
  MAX_LOGGED_BODY_BYTES,
  type EndpointCallEntry,
} from "../../runtime/common/endpoint-call-entry.ts";
import { EndpointCallLog, type ObservedCall } from "../../runtime/controller/observability/endpoint-call-log.ts";
import type { RegistryProperty, RegistryType } from "../../runtime/common/registry.ts";

const plain: RegistryProperty = {
  kind: "string",
  required: false,
  readonly: false,
  final: false,
  encrypted: false,
  access: 0,
};
const secret: RegistryProperty = { ...plain, encrypted: true };

function registryType(id: string, properties: Record<string, RegistryProperty>): RegistryType {
  return {
    id,
    name: id,
    packageName: "t",
    ancestors: [],
    isResource: true,
    isApplication: false,
    isSuspendable: false,
    servedBy: "application",
    properties,
    relations: {},
    operations: {},
  };
}

let registry = new Map([["t:mailbox", registryType("t:mailbox", { localPart: plain, password: secret })]]);

function call(overrides: Partial<ObservedCall> = {}): ObservedCall {
  return {
    at: new Date("2026-01-01T00:00:00Z"),
    instance: "i-1",
    method: "POST",
    path: "/mailboxes",
    headers: {},
    outcome: "2xx",
    status: 200,
    ms: 1.5,
    ...overrides,
  };
}

function entries(log: EndpointCallLog): EndpointCallEntry[] {
  const seen: EndpointCallEntry[] = [];
  log.subscribe((e) => seen.push(e))();
  return seen;
}

describe("the endpoint call log of the console", () => {
  it("keeps the newest calls up to its size, replays them oldest first, then follows new ones", () => {
    const log = new EndpointCallLog(() => registry, 3);
    for (let i = 1; i <= 5; i++) log.record(call({ path: `/r/${i}` }));
    expect(entries(log).map((e) => [e.id, e.path])).toEqual([
      [3, "/r/3"],
      [4, "/r/4"],
      [5, "/r/5"],
    ]);
    const live: number[] = [];
    const stop = log.subscribe((e) => live.push(e.id));
    log.record(call());
    stop();
    log.record(call());
    expect(live).toEqual([3, 4, 5, 6]);
  });

  it("drops the headers that carry credentials and the query of the path", () => {
    const log = new EndpointCallLog(() => registry);
    const headers = {
      "APS-Token": "t",
      Authorization: "OAuth x",
      Cookie: "c",
      "X-Auth-User": "u",
      "X-Api-Key": "k",
      "X-Client-Secret": "s",
      "X-Password": "p",
      "APS-Transaction-ID": "tx-1",
      "Content-Type": "application/json",
      "X-Request-ID": "r-1",
    };
    log.record(call({ headers, path: "/mailboxes/1/purge?olderThanDays=3&token=abc" }));
    const [entry] = entries(log);
    expect(entry!.requestHeaders).toEqual({
      "APS-Transaction-ID": "tx-1",
      "Content-Type": "application/json",
      "X-Request-ID": "r-1",
    });
    expect(entry!.path).toBe("/mailboxes/1/purge");
  });

  it("masks every value of an encrypted property, at any depth, in both bodies, and keeps 64-bit integers exact", () => {
    const log = new EndpointCallLog(() => registry);
    const body = Buffer.from(
      '{"aps":{"type":"t:mailbox"},"localPart":"ann","password":"pw-SECRET-1","quota":9223372036854775807,"nested":[{"password":"pw-SECRET-2"}]}',
    );
    log.record(call({ body, replyBody: Buffer.from('{"password":"pw-SECRET-3","address":"ann@example.com"}') }));
    const [entry] = entries(log);
    expect(entry!.requestBody).not.toMatch(/SECRET/);
    expect(JSON.parse(entry!.requestBody!.replace(/9223372036854775807/, '"big"'))).toEqual({
      aps: { type: "t:mailbox" },
      localPart: "ann",
      password: MASKED_VALUE,
      quota: "big",
      nested: [{ password: MASKED_VALUE }],
    });
    expect(entry!.requestBody).toContain("9223372036854775807");
    expect(JSON.parse(entry!.responseBody!)).toEqual({ password: MASKED_VALUE, address: "ann@example.com" });
  });

  it("masks the encrypted properties of types added after it started (an imported package)", () => {
    const log = new EndpointCallLog(() => registry);
    log.record(call({ body: Buffer.from('{"licenseCode":"s-1"}') }));
    registry = new Map([...registry, ["t:app", registryType("t:app", { licenseCode: secret })]]);
    log.record(call({ body: Buffer.from('{"licenseCode":"s-2"}') }));
    expect(entries(log).map((e) => e.requestBody)).toEqual([
      '{"licenseCode":"s-1"}',
      `{"licenseCode":"${MASKED_VALUE}"}`,
    ]);
  });

  it("masks credentials whatever the types declare: the instance's certificate and key on install, OAuth secrets, a private key under any name", () => {
    const log = new EndpointCallLog(() => registry);
    const key = "-----BEGIN PRIVATE KEY-----\nMIIEvQ-KEY-BYTES\n-----END PRIVATE KEY-----\n";
    const install = {
      aps: {
        type: "t:app",
        id: "r1",
        x509: { self: `-----BEGIN CERTIFICATE-----\nCERT\n-----END CERTIFICATE-----\n${key}`, controller: "CERT" },
        auth: { oauth: { key: "k", secret: "oauth-SECRET" } },
      },
      apiEndpoint: "https://api.example",
      notes: key,
    };
    log.record(call({ body: Buffer.from(JSON.stringify(install)) }));
    const [entry] = entries(log);
    expect(entry!.requestBody).not.toMatch(/KEY-BYTES|oauth-SECRET/);
    expect(JSON.parse(entry!.requestBody!)).toEqual({
      aps: { type: "t:app", id: "r1", x509: MASKED_VALUE, auth: MASKED_VALUE },
      apiEndpoint: "https://api.example",
      notes: MASKED_VALUE,
    });
    // Not JSON, and it may hold one: withheld.
    log.record(call({ body: Buffer.from(`key=${key}`) }));
    expect(entries(log)[1]!.requestBody).toMatch(/^\(\d+ bytes, not JSON, withheld/);
  });

  it("withholds a body that names an encrypted property and is not JSON, and keeps other bodies as sent", () => {
    const log = new EndpointCallLog(() => registry);
    log.record(call({ body: Buffer.from('password="pw-SECRET" {"password": 1') }));
    log.record(call({ body: Buffer.from("plain text, nothing secret") }));
    const [withheld, kept] = entries(log);
    expect(withheld!.requestBody).toMatch(/^\(\d+ bytes, not JSON, withheld/);
    expect(kept!.requestBody).toBe("plain text, nothing secret");
  });

  it("cuts bodies at 64 KiB on a character boundary, saying how much is left out", () => {
    const log = new EndpointCallLog(() => registry);
    const big = "é".repeat(MAX_LOGGED_BODY_BYTES); // two bytes each
    log.record(call({ replyBody: Buffer.from(big) }));
    const [entry] = entries(log);
    const [head, rest] = entry!.responseBody!.split("…");
    expect(Buffer.byteLength(head!)).toBe(MAX_LOGGED_BODY_BYTES);
    expect(head).toMatch(/^é+$/);
    expect(rest).toBe(` (${MAX_LOGGED_BODY_BYTES} more bytes not shown)`);
  });

  it("records a call that got no reply with its outcome and error, and no status", () => {
    const log = new EndpointCallLog(() => registry);
    const { status: _none, ...noReply } = call();
    log.record({ ...noReply, outcome: "timeout", error: "the application did not answer in 30 s" });
    const [entry] = entries(log);
    expect(entry).not.toHaveProperty("status");
    expect(entry).toMatchObject({ outcome: "timeout", error: "the application did not answer in 30 s" });
  });
});
