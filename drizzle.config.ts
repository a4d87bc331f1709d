import { defineConfig } from "drizzle-kit";

// `npx drizzle-kit generate` writes SQL migrations from the schema; the controller applies them on start.
export default defineConfig({
  dialect: "postgresql",
  schema: "./runtime/controller/store/schema.ts",
  out: "./runtime/controller/store/migrations",
});
