import { posix } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { moduleSpecifier } from "../../generator/emit/core/import-set.ts";

/** What emitters computed before: path.posix.relative between the folders, `./` in front, `.js` for `.ts`. */
function byPosix(from: string, to: string): string {
  const spec = posix.relative(posix.dirname(from), to).replace(/\.ts$/, ".js");
  return spec.startsWith(".") ? spec : `./${spec}`;
}

describe("moduleSpecifier", () => {
  it("names a module beside, below and above the importing one", () => {
    expect(moduleSpecifier("types/pkg/a.gen.ts", "types/pkg/b.gen.ts")).toBe("./b.gen.js");
    expect(moduleSpecifier("validators/pkg/a.gen.ts", "types/core/resource.gen.ts")).toBe(
      "../../types/core/resource.gen.js",
    );
    expect(moduleSpecifier("client/index.gen.ts", "client/pkg/a.gen.ts")).toBe("./pkg/a.gen.js");
    expect(moduleSpecifier("index.gen.ts", "types/pkg/a.gen.ts")).toBe("./types/pkg/a.gen.js");
    expect(moduleSpecifier("types/pkg/a.gen.ts", "types/pkgx.gen.ts")).toBe("../pkgx.gen.js");
  });

  it("agrees with path.posix.relative on generated module paths", () => {
    const segment = fc.constantFrom(
      "types",
      "validators",
      "client",
      "pkg",
      "pkg-2",
      "core",
      "a",
      "a.gen.ts",
      "b.gen.ts",
      "index.gen.ts",
      ".hidden.ts",
    );
    const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join("/"));
    fc.assert(
      fc.property(path, path, (from, to) => moduleSpecifier(from, to) === byPosix(from, to)),
      { numRuns: 3000 },
    );
  });
});
