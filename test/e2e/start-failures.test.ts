/**
 * A start that fails gives back what it took (start/held-resources.ts): the data folder lock and
 * the private umask, whichever step failed, so the same process can start again on the folder.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startController } from "../../runtime/controller/serve.ts";
import { ControllerStartError } from "../../runtime/controller/support/start-errors.ts";
import { pgliteTemplate } from "../helpers/pglite-template.ts";

describe("a failed start", () => {
  let dir = "";
  let template: string | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "aps-start-failures-"));
    template = await pgliteTemplate();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const start = (dataDir: string, port: number) =>
    startController({
      types: [],
      validators: new Map(),
      dataDir,
      port,
      logger: pino({ level: "silent" }),
      ...(template ? { pgliteTemplate: template } : {}),
    });
  const umask = () => {
    const current = process.umask(0o022);
    process.umask(current);
    return current;
  };

  it("on a bad key file lets go of the data folder and the umask", async () => {
    const dataDir = join(dir, "bad-key");
    mkdirSync(join(dataDir, "keys"), { recursive: true });
    writeFileSync(join(dataDir, "keys", "token.key"), "too short");
    const before = umask();
    await expect(start(dataDir, 0)).rejects.toThrow(/token\.key must hold 32 bytes/);
    expect(existsSync(join(dataDir, "controller.pid"))).toBe(false);
    expect(umask()).toBe(before);
  });

  it("on a port in use lets go of the folder and the database, and starts again there", async () => {
    const dataDir = join(dir, "port-in-use");
    const blocker = await new Promise<Server>((ready) => {
      const s = createServer().listen(0, "127.0.0.1", () => ready(s));
    });
    const before = umask();
    try {
      const port = (blocker.address() as { port: number }).port;
      const refused = await start(dataDir, port).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ControllerStartError);
      expect((refused as ControllerStartError).reason).toBe("port-in-use");
      expect(existsSync(join(dataDir, "controller.pid"))).toBe(false);
      expect(umask()).toBe(before);
    } finally {
      await new Promise((done) => blocker.close(done));
    }
    const running = await start(dataDir, 0);
    expect(existsSync(join(dataDir, "controller.pid"))).toBe(true);
    await running.close();
    expect(existsSync(join(dataDir, "controller.pid"))).toBe(false);
    expect(umask()).toBe(before);
  }, 60_000);
});
