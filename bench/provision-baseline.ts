// The baseline of npm run bench:provision: bare Hono over HTTPS that does the least a
// provisioning can do: call the same connector (mutual TLS, the controller's client
// certificate) and insert one row with postgres.js. Run by the benchmark:
// tsx bench/provision-baseline.ts <db-url> <data-dir> <endpoint> <endpoint-ca> <port> [table|resources]
// With "resources" the row goes into the controller's own resources table (same indexes), so
// the comparison shows what the controller adds beyond storing a resource.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { Agent, createServer, request } from "node:https";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import postgres from "postgres";

const [url, dataDir, endpoint, endpointCaPath, port, into = "table"] = process.argv.slice(2);
const sql = postgres(url!, { max: 10, onnotice: () => {} });
const agent = new Agent({
  keepAlive: true,
  cert: readFileSync(join(dataDir!, "tls/controller-client.crt")),
  key: readFileSync(join(dataDir!, "tls/controller-client.key")),
  ca: readFileSync(endpointCaPath!),
});
const instanceId = process.env.BENCH_INSTANCE ?? "";

function callEndpoint(body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${endpoint}/items/`,
      {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "APS-Instance-ID": instanceId,
          "APS-Request-Phase": "sync",
        },
      },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += String(d)));
        res.on("end", () => resolve(text));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const app = new Hono();
app.post("/items", async (c) => {
  const input = await c.req.json<Record<string, unknown>>();
  const id = randomUUID();
  const returned = JSON.parse(await callEndpoint(JSON.stringify({ aps: { id }, ...input }))) as Record<string, unknown>;
  if (into === "resources") {
    await sql`insert into resources (id, type_id, status, revision, created, modified, owner_path, body)
      values (${id}, 'http://bench.example/types/item/1.0', 'aps:ready', 1, now(), now(), '/bench/', ${sql.json({ ...input, ...returned } as never)})`;
  } else {
    await sql`insert into bench_items (id, body) values (${id}, ${sql.json({ ...input, ...returned } as never)})`;
  }
  return c.json({ id, ...input, ...returned }, 201);
});
await sql`create table if not exists bench_items (id uuid primary key, body jsonb not null)`;
serve(
  {
    fetch: app.fetch,
    port: Number(port),
    hostname: "127.0.0.1",
    createServer,
    serverOptions: {
      cert: readFileSync(join(dataDir!, "tls/server.crt")),
      key: readFileSync(join(dataDir!, "tls/server.key")),
    },
  },
  () => process.stdout.write("ready\n"),
);
