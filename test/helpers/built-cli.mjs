// The CLI as dist/ has it built (what the installed package runs), started from a checkout, where
// bin/aps-gen.js would run the TypeScript sources through tsx (helpers/packed-package.ts, builtCli).
const { main } = await import("../../dist/cli-bundle/main.js");
process.exitCode = await main(process.argv.slice(2));
