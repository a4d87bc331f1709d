// The endpoint of npm run bench:provision: the connector runtime serving the bench package,
// answering every provision with one readonly property. Run by the benchmark:
// tsx bench/provision-connector.ts <tls-dir> <credentials-dir>
import { join } from "node:path";
import { createConnectorApp } from "../runtime/connector/app.ts";
import { fileCredentialStore } from "../runtime/connector/credentials.ts";
import { startConnector } from "../runtime/connector/serve.ts";
import { ensureControllerTls } from "../runtime/common/certificate-authority.ts";

const [tlsDir, credentialsDir] = process.argv.slice(2);
const tls = await ensureControllerTls(tlsDir!, ["127.0.0.1"]);
let n = 0;
const app = createConnectorApp({
  credentials: fileCredentialStore(credentialsDir!),
  services: { app: {}, items: { provision: () => ({ externalId: `ext-${++n}` }), configure: () => ({}) } },
});
const running = await startConnector(app, tls.server);
process.stdout.write(`ready ${running.url} ${join(tlsDir!, "tls/ca.crt")}\n`);
// Exits on SIGTERM through process.exit, so that a --cpu-prof profile is written (BENCH_PROFILE).
process.once("SIGTERM", () => process.exit(0));
