#!/usr/bin/env node
// Entry point of the aps-gen CLI. The sources are TypeScript; tsx's loader runs them
// directly, so the repository needs no separate compile step (see README, "Limits").
import { register } from "tsx/esm/api";

register();
const { main } = await import("../generator/cli.ts");
process.exitCode = await main(process.argv.slice(2));
