// Module resolution hook (node:module register) that appends every module URL a process loads
// to the file named by $APS_IMPORT_TRACE. Used by test/helpers/import-trace.ts.
import { appendFileSync } from "node:fs";

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.APS_IMPORT_TRACE, `${resolved.url}\n`);
  return resolved;
}
