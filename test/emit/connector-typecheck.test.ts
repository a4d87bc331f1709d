import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { emitAll } from "../../generator/build.ts";
import { compile } from "../../generator/pipeline.ts";
import { typecheckEmitted } from "../helpers/typecheck.ts";

/**
 * Every shape of custom operation a package may declare gives a connector, client and
 * validators that compile: no reply type (a handler may answer anything), a typed reply, a
 * body, a path parameter, a static one. (The corpus suite found the first missing; it skips
 * where the corpus is not beside the checkout, this one does not.)
 */
const dir = mkdtempSync(join(tmpdir(), "aps-connector-shapes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TYPE = "http://shapes.example/types/widget/1.0";
const declaration = {
  apsVersion: "2.0",
  name: "Widget",
  id: TYPE,
  implements: ["http://aps-standard.org/types/core/resource/1.0"],
  properties: { label: { type: "string" } },
  operations: {
    noReply: { verb: "POST", path: "/noReply", parameters: {} },
    typedReply: {
      verb: "GET",
      path: "/typed/{day}",
      parameters: { day: { kind: "path", type: "string", required: true } },
      response: { type: "integer" },
    },
    withBody: {
      verb: "PUT",
      path: "/body",
      parameters: { settings: { kind: "body", type: "object", required: true } },
    },
    staticNoReply: { verb: "GET", path: "/count", static: true, parameters: { q: { kind: "query", type: "string" } } },
  },
};

const application = {
  apsVersion: "2.0",
  name: "Shapes",
  id: "http://shapes.example/types/app/1.0",
  implements: ["http://aps-standard.org/types/core/application/1.0"],
  properties: {},
};

describe("connector, client and validators for every operation shape", () => {
  it("compile under strict settings", () => {
    const pkg = join(dir, "shapes");
    mkdirSync(join(pkg, "schemas"), { recursive: true });
    writeFileSync(join(pkg, "schemas/widget.schema"), JSON.stringify(declaration, null, 2));
    writeFileSync(join(pkg, "schemas/app.schema"), JSON.stringify(application, null, 2));
    writeFileSync(
      join(pkg, "APP-META.xml"),
      `<?xml version="1.0" encoding="UTF-8"?>\n<application version="2.0" xmlns="http://aps-standard.org/ns/2"><id>http://shapes.example/app</id><name>Shapes</name><version>1.0</version><release>1</release><service id="app"><schema path="schemas/app.schema"/></service><service id="widgets"><schema path="schemas/widget.schema"/></service></application>\n`,
    );
    const { model, diagnostics } = compile([pkg], { cwd: dir });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const files = emitAll(model);
    expect(files.some((f) => f.path.startsWith("connector/shapes/"))).toBe(true);
    expect(typecheckEmitted(files, join(dir, "out"))).toEqual([]);
  }, 60_000);

  it("declare each name of the package's connector module once, clear of its imports", () => {
    // Services whose names clash: `ServiceHandlers` (the runtime's, imported), `ShapesApplicationHandlers`
    // (the package's), `MySvcHandlers` twice.
    const services = ["service", "shapes-application", "my-svc", "mySvc"];
    const pkg = join(dir, "clash", "shapes");
    mkdirSync(join(pkg, "schemas"), { recursive: true });
    writeFileSync(join(pkg, "schemas/app.schema"), JSON.stringify(application, null, 2));
    services.forEach((service, i) => {
      const type = { ...declaration, name: `Thing${i}`, id: `http://shapes.example/types/thing${i}/1.0` };
      writeFileSync(join(pkg, `schemas/thing${i}.schema`), JSON.stringify(type, null, 2));
    });
    writeFileSync(
      join(pkg, "APP-META.xml"),
      `<?xml version="1.0" encoding="UTF-8"?>\n<application version="2.0" xmlns="http://aps-standard.org/ns/2"><id>http://shapes.example/app</id><name>Shapes</name><version>1.0</version><release>1</release><service id="app"><schema path="schemas/app.schema"/></service>${services.map((s, i) => `<service id="${s}"><schema path="schemas/thing${i}.schema"/></service>`).join("")}</application>\n`,
    );
    const { model, diagnostics } = compile([pkg], { cwd: join(dir, "clash") });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const files = emitAll(model);
    const module = files.find((f) => f.path === "connector/shapes/index.gen.ts")!.content;
    expect(files.filter((f) => f.path.startsWith("connector/")).map((f) => f.path)).toEqual([
      "connector/shapes/index.gen.ts",
    ]);
    const declared = [...module.matchAll(/^export (?:interface|function) ([A-Za-z0-9_$]+)/gm)].map((m) => m[1]!);
    expect(new Set(declared).size).toBe(declared.length);
    expect(declared).toEqual(
      expect.arrayContaining([
        "ShapesApplicationHandlers",
        "shapesServices",
        "ServiceHandlers",
        "ShapesApplicationHandlers_2",
        "MySvcHandlers",
        "MySvcHandlers_2",
        "my_svcService",
        "mySvcService",
      ]),
    );
    expect(module).toMatch(/ServiceHandlers as ServiceHandlers_2/);
    expect(typecheckEmitted(files, join(dir, "clash", "out"))).toEqual([]);
  }, 60_000);
});
