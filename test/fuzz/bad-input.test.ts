/**
 * Issue 15, items 17 and 19: bad input is a 4xx in the error shape, never a 5xx, and no body is
 * held past its limit (or read at all when the route does not exist). In process, on PGlite and,
 * when DATABASE_URL is set, on PostgreSQL.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { crc32, deflateRawSync } from "node:zlib";
import { Zip, ZipDeflate, type ZipInputFile } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "../../runtime/controller/support/request-body.ts";
import { databases } from "../e2e/controller-harness.ts";
import { repoRoot } from "../helpers/paths.ts";
import { isErrorShape, startInProcessController, type InProcessController } from "./in-process-controller.ts";

const NOTE = "http://notes.example/types/note/1.0";
const MAILBOX = "http://cloudmail.example.com/types/mailbox/1.0";
const JSON_TYPE = { "content-type": "application/json" };

/** A body of `total` bytes sent without Content-Length (chunked), counting how much the server pulled. */
function countedStream(total: number, chunk = 64 * 1024): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      const n = Math.min(chunk, total - sent);
      sent += n;
      controller.enqueue(new Uint8Array(n).fill(0x20));
    },
  });
  return { stream, pulled: () => sent };
}

async function expectError(response: Response, status: number, message?: RegExp): Promise<Record<string, unknown>> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  const body = JSON.parse(text) as Record<string, unknown>;
  expect(isErrorShape(status, body), text).toBe(true);
  if (message) expect(body.message).toMatch(message);
  return body;
}

describe.each(databases)("bad input on %s", (kind) => {
  let c: InProcessController;
  let noteId: string;
  let packageId: string;

  beforeAll(async () => {
    c = await startInProcessController(kind, ["test/fixtures/controller/notes", "types/examples/cloudmail"]);
    const r = await c.request("/aps/2/resources", {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ aps: { type: NOTE }, title: "n" }),
    });
    expect(r.status).toBe(201);
    noteId = ((await r.json()) as { aps: { id: string } }).aps.id;
    const packages = (await (await c.request("/aps/2/packages")).json()) as { id: string; name: string }[];
    packageId = packages.find((p) => p.name.toLowerCase().includes("cloudmail"))!.id;
  }, 60_000);
  afterAll(async () => c?.dispose());

  describe("item 17: malformed input is a 400", () => {
    it.each([
      ["a type id", () => `/aps/2/types/${"%E0%A4%A"}`],
      ["a static operation's type id", () => `/aps/2/static/%E0%A4%A/checkAvailability`],
      ["a package file path", () => `/aps/2/packages/${packageId}/%E0%A4%A`],
    ])("a malformed percent-escape in %s", async (_what, path) => {
      await expectError(
        await c.request(path(), { method: path().includes("/static/") ? "POST" : "GET" }),
        400,
        /malformed %-escape/,
      );
    });

    it.each(
      [
        "eq(title,1e1000000)",
        "eq(size,1e1000000)",
        "lt(score,-1e400)",
        "ge(size,1e-1000000)",
        `in(size,(1,${"9".repeat(1200)}))`,
        "out(score,(1e999))",
      ].map((q) => [q.slice(0, 40), q]),
    )("an RQL number no stored number can be: %s", async (_label, query) => {
      await expectError(await c.request(`/aps/2/resources?${query}`), 400, /out of the range of numbers/);
    });

    it.each(["eq(title,a%00b)", "in(title,(x,%00))", "like(title,*%00*)", "title=eq=%00"])(
      "NUL in an RQL value: %s",
      async (query) => {
        await expectError(await c.request(`/aps/2/resources?${query}`), 400, /U\+0000/);
      },
    );

    it("NUL in a property string or a member name", async () => {
      for (const body of [
        { aps: { type: NOTE }, title: "a\u0000b" },
        { aps: { type: NOTE }, title: "t", meta: { "k\u0000": 1 } },
        { aps: { type: NOTE }, title: "t", tags: ["ok", "\u0000"] },
      ]) {
        const r = await c.request("/aps/2/resources", {
          method: "POST",
          headers: JSON_TYPE,
          body: JSON.stringify(body),
        });
        await expectError(r, 400, /U\+0000/);
      }
      const put = await c.request(`/aps/2/resources/${noteId}`, {
        method: "PUT",
        headers: JSON_TYPE,
        body: JSON.stringify({ body: "x\u0000" }),
      });
      await expectError(put, 400, /U\+0000/);
    });

    it("half of a surrogate pair in a property string or a member name (found by the fuzz suite)", async () => {
      for (const body of [
        `{"aps":{"type":"${NOTE}"},"title":"a\\ud800b"}`,
        `{"aps":{"type":"${NOTE}"},"title":"t","meta":{"\\udc00":1}}`,
        `{"aps":{"type":"${NOTE}"},"title":"t","tags":["\\udbff"]}`,
      ]) {
        const r = await c.request("/aps/2/resources", { method: "POST", headers: JSON_TYPE, body });
        await expectError(r, 400, /surrogate/);
      }
      const paired = await c.request("/aps/2/resources", {
        method: "POST",
        headers: JSON_TYPE,
        body: `{"aps":{"type":"${NOTE}"},"title":"\\ud83d\\ude00"}`,
      });
      expect(paired.status, await paired.clone().text()).toBe(201);
      expect(((await paired.json()) as { title: string }).title).toBe("😀");
    });

    it("an escaped backslash before u0000 is not a NUL", async () => {
      const r = await c.request("/aps/2/resources", {
        method: "POST",
        headers: JSON_TYPE,
        body: JSON.stringify({ aps: { type: NOTE }, title: "\\u0000" }),
      });
      expect(r.status, await r.clone().text()).toBe(201);
      expect(((await r.json()) as { title: string }).title).toBe("\\u0000");
    });

    it.each([
      ["arrays with a long integer (the exact parser)", `${"[".repeat(5000)}12345678901234567${"]".repeat(5000)}`],
      [
        "objects inside a resource",
        `{"aps":{"type":"${NOTE}"},"title":"t","meta":${'{"a":'.repeat(5000)}1${"}".repeat(5000)}}`,
      ],
      ["arrays, plain", `${"[".repeat(100_000)}${"]".repeat(100_000)}`],
    ])("JSON nested 5,000+ deep: %s", async (_what, body) => {
      await expectError(
        await c.request("/aps/2/resources", { method: "POST", headers: JSON_TYPE, body }),
        400,
        /nests .* more than 64 levels/,
      );
    });

    it("JSON nested 64 deep is still read", async () => {
      const meta = `${'{"a":'.repeat(63)}1${"}".repeat(63)}`;
      const r = await c.request("/aps/2/resources", {
        method: "POST",
        headers: JSON_TYPE,
        body: `{"aps":{"type":"${NOTE}"},"title":"deep","meta":${meta}}`,
      });
      expect(r.status, await r.clone().text()).toBe(201);
    });
  });

  describe("item 19: bodies are limited and unknown routes do not read them", () => {
    const big = MAX_BODY_BYTES + 1;

    it("a declared Content-Length over the limit is a 413 before a byte is read", async () => {
      for (const path of [`/aps/2/static/${encodeURIComponent(MAILBOX)}/checkAvailability`, "/aps/2/resources"]) {
        const { stream, pulled } = countedStream(big);
        const r = await c.request(path, {
          method: "POST",
          headers: { ...JSON_TYPE, "content-length": String(big) },
          body: stream,
          duplex: "half",
        } as RequestInit);
        await expectError(r, 413, /at most 1048576/);
        expect(pulled()).toBeLessThanOrEqual(128 * 1024);
      }
    });

    it("a chunked body is cut off at the limit, on custom, static and resource routes", async () => {
      for (const path of [
        `/aps/2/static/${encodeURIComponent(MAILBOX)}/checkAvailability`,
        "/aps/2/resources",
        `/aps/2/resources/${noteId}`,
      ]) {
        const { stream, pulled } = countedStream(20 * 1024 * 1024);
        const r = await c.request(path, {
          method: path.endsWith(noteId) ? "PUT" : "POST",
          headers: JSON_TYPE,
          body: stream,
          duplex: "half",
        } as RequestInit);
        await expectError(r, 413, /larger than the 1048576 bytes/);
        // Read up to the limit and a chunk or two of stream buffering, never the 20 MB.
        expect(pulled()).toBeLessThan(MAX_BODY_BYTES + 512 * 1024);
      }
    });

    it("an operation that does not exist is answered without reading its body", async () => {
      for (const path of [
        `/aps/2/resources/${noteId}/noSuchOperation`,
        `/aps/2/static/${encodeURIComponent(NOTE)}/noSuchOperation`,
        `/aps/2/static/${encodeURIComponent("http://nowhere.example/x/1.0")}/op`,
        "/aps/2/nothing/here",
      ]) {
        const { stream, pulled } = countedStream(50 * 1024 * 1024);
        const r = await c.request(path, {
          method: "POST",
          headers: JSON_TYPE,
          body: stream,
          duplex: "half",
        } as RequestInit);
        await expectError(r, 404);
        expect(pulled(), path).toBeLessThanOrEqual(256 * 1024);
      }
    });

    it("a package import over its own limit is a 413 (Content-Length and chunked)", async () => {
      const limit = 32 * 1024 * 1024;
      const declared = await c.request("/aps/2/packages", {
        method: "POST",
        headers: { "content-type": "application/zip", "content-length": String(limit + 1) },
        body: countedStream(limit + 1).stream,
        duplex: "half",
      } as RequestInit);
      await expectError(declared, 413);
      const { stream, pulled } = countedStream(64 * 1024 * 1024);
      const chunked = await c.request("/aps/2/packages", {
        method: "POST",
        headers: { "content-type": "application/zip" },
        body: stream,
        duplex: "half",
      } as RequestInit);
      await expectError(chunked, 413);
      expect(pulled()).toBeLessThan(limit + 1024 * 1024);
    });
  });

  describe("item 21: a zip bomb is refused before it is inflated", () => {
    it("an .app.zip whose files inflate past the bounds is a 413 and is not stored", async () => {
      // A real package (cloudmail, as a new version so its types do not clash) plus 256 MiB of zeros in ~250 KB.
      const files: Record<string, Uint8Array> = {};
      for (const name of readdirSync(join(repoRoot, "types/examples/cloudmail/schemas")))
        files[`schemas/${name}`] = readFileSync(join(repoRoot, "types/examples/cloudmail/schemas", name));
      files["APP-META.xml"] = readFileSync(join(repoRoot, "types/examples/cloudmail/APP-META.xml"));
      for (const [name, bytes] of Object.entries(files))
        files[name] = new TextEncoder().encode(
          new TextDecoder().decode(bytes).replace(/(cloudmail\.example\.com\/[^"<\s]*?)\/1\.0/g, "$1/1.9"),
        );
      const bomb = zipWithZeros(files, "ui/padding.bin", 256 * 1024 * 1024);
      expect(bomb.length).toBeLessThan(1024 * 1024);
      const before = (await (await c.request("/aps/2/packages")).json()) as unknown[];
      const r = await c.request("/aps/2/packages", {
        method: "POST",
        headers: { "content-type": "application/zip" },
        body: bomb,
      });
      await expectError(r, 413, /padding\.bin declares 268435456 bytes/);
      const after = (await (await c.request("/aps/2/packages")).json()) as unknown[];
      expect(after.length).toBe(before.length);
    });
  });
});

/**
 * A zip of `files` and an entry `name` of `size` zero bytes, deflated by zlib: fflate's own
 * deflate of 256 MiB took ~2 s of CPU (zlib: ~0.5 s), which a test of the bounds need not spend.
 */
function zipWithZeros(files: Record<string, Uint8Array>, name: string, size: number): Uint8Array {
  const chunks: Uint8Array[] = [];
  const zip = new Zip((error, chunk) => {
    if (error) throw error;
    chunks.push(chunk);
  });
  for (const [filename, data] of Object.entries(files)) {
    const entry = new ZipDeflate(filename, { level: 1 });
    zip.add(entry);
    entry.push(data, true);
  }
  const zeros = new Uint8Array(size);
  const padding: ZipInputFile = { filename: name, size, crc: crc32(zeros), compression: 8 };
  zip.add(padding);
  padding.ondata!(null, deflateRawSync(zeros, { level: 9 }), true);
  zip.end();
  return Buffer.concat(chunks);
}
