/**
 * postgres.js, as the controller opens its connections with it: the one import of the driver, so
 * that the published package can point it at its guarded copy (dist/vendor/postgres/, made by
 * scripts/build-package.mjs with scripts/postgres-write-guard.mjs, which says what the guard
 * prevents: a process that ends when PostgreSQL restarts under load). In a checkout,
 * node_modules/postgres is guarded by `npm ci` itself (the `prepare` script).
 */
export { default } from "postgres";
