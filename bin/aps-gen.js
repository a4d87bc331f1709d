#!/usr/bin/env node
// Entry point of the aps-gen CLI. Installed from npm it runs the compiled JavaScript (the CLI bundled: dist/cli-bundle/)
// with plain Node. In a checkout of the repository (the TypeScript sources are beside this file)
// it runs the sources through tsx, resolving "aps-gen/..." to them, so no build step is needed
// there (see README, "Set-up").
import { existsSync } from "node:fs";
import { tuneForOneShot } from "./one-shot-tuning.js";

tuneForOneShot(process.argv.slice(2));

const sources = new URL("../cli/main.ts", import.meta.url);
let main;
if (existsSync(sources)) {
  const { register } = await import("tsx/esm/api");
  register();
  ({ main } = await import(sources.href));
} else {
  ({ main } = await import("../dist/cli-bundle/main.js"));
}
process.exitCode = await main(process.argv.slice(2));
