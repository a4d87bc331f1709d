// Writes schema/aps-declaration.schema.json, the JSON Schema editors use for APS type
// declarations, from its source generator/schema/declaration-schema.ts (which builds it from the
// compiler's own attribute lists). Run by `npm run build:schema` after changing either;
// test/schema/declaration-schema.test.ts fails while the committed file is stale.
import { writeFileSync } from "node:fs";
import { tsImport } from "tsx/esm/api";

const { declarationSchema, declarationSchemaText } = await tsImport(
  "../generator/schema/declaration-schema.ts",
  import.meta.url,
);
const target = new URL("../schema/aps-declaration.schema.json", import.meta.url);
writeFileSync(target, declarationSchemaText(declarationSchema()));
console.log(`wrote ${target.pathname}`);
