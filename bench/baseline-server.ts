// The baseline of `npm run bench:controller`: bare Hono on @hono/node-server over the same
// HTTPS certificate, answering a prepared primary-key select with postgres.js. What a GET of one
// resource cannot beat. Run by the benchmark: tsx bench/baseline-server.ts <db-url> <cert> <key> <port>
import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import postgres from "postgres";

const [url, certPath, keyPath, port] = process.argv.slice(2);
const sql = postgres(url!, { max: 10, onnotice: () => {} });
const app = new Hono();
app.get("/resources/:id", async (c) => {
  const rows =
    await sql`select id, type_id, status, revision, modified, body from resources where id = ${c.req.param("id")}`;
  return rows.length ? c.json(rows[0]) : c.json({ error: "not found" }, 404);
});
serve(
  {
    fetch: app.fetch,
    port: Number(port),
    hostname: "127.0.0.1",
    createServer,
    serverOptions: { cert: readFileSync(certPath!), key: readFileSync(keyPath!) },
  },
  () => process.stdout.write("ready\n"),
);
