/**
 * How many cases a property test with a fixed seed checks: `usual` in `npm test`, or
 * APS_GEN_PROPERTY_RUNS for a deeper run (`APS_GEN_PROPERTY_RUNS=10000 npx vitest run test/validators`).
 * The seed is fixed, so every run checks the same cases: more of them in every run buys nothing
 * that one deep run does not.
 */
export function propertyRuns(usual: number): number {
  const asked = Number(process.env.APS_GEN_PROPERTY_RUNS);
  return Number.isInteger(asked) && asked > 0 ? asked : usual;
}
