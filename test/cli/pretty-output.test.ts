import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../cli/main.ts";
import { colourWanted } from "../../cli/output/terminal-style.ts";
import { repoRoot } from "../helpers/paths.ts";

/** Issue 18: code frames and colour, on a terminal only; NO_COLOR and --color/--no-color honoured. */
async function check(...extra: string[]) {
  const out: string[] = [];
  const code = await main(
    ["check", "--types", "test/fixtures/check/misspelt-attribute", ...extra],
    { out: (l) => out.push(l), err: (l) => out.push(l) },
    repoRoot,
  );
  return { code, text: out.join("\n") };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts every ANSI colour sequence, the thing looked for.
const ANSI = /\u001b\[/;
const saved = { NO_COLOR: process.env.NO_COLOR, FORCE_COLOR: process.env.FORCE_COLOR };
afterEach(() => {
  for (const [k, v] of Object.entries(saved))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
});

describe("terminal output", () => {
  it("decides colour as NO_COLOR, FORCE_COLOR, the flag and the terminal say", () => {
    expect(colourWanted({ isTTY: true }, undefined, {})).toBe(true);
    expect(colourWanted({ isTTY: false }, undefined, {})).toBe(false);
    expect(colourWanted({ isTTY: true }, undefined, { NO_COLOR: "1" })).toBe(false);
    expect(colourWanted({ isTTY: true }, undefined, { TERM: "dumb" })).toBe(false);
    expect(colourWanted({ isTTY: false }, undefined, { FORCE_COLOR: "1" })).toBe(true);
    expect(colourWanted({ isTTY: true }, false, {})).toBe(false);
    expect(colourWanted({ isTTY: false }, true, { NO_COLOR: "1" })).toBe(true);
  });

  it("prints plain diagnostics without frames when not on a terminal", async () => {
    const r = await check();
    expect(r.code).toBe(1);
    expect(r.text).not.toMatch(ANSI);
    expect(r.text).not.toContain("> 7 |");
    expect(r.text).toContain(
      'widget.schema:7:38 - error APS031: property "label": "requried" is not an attribute; did you mean "required"?',
    );
  });

  it("--pretty shows the lines around the position with a caret under the column", async () => {
    const r = await check("--pretty");
    expect(r.text).toContain('> 7 |         "label": { "type": "string", "requried": true }');
    expect(r.text).toMatch(/\n {4}\| {38}\^/);
    expect(r.text).not.toMatch(ANSI);
  });

  it("--color colours the severity and the verdict; NO_COLOR does not override the flag, but does the default", async () => {
    const coloured = await check("--color");
    expect(coloured.text).toContain("\u001b[31merror\u001b[39m");
    expect(coloured.text).toContain("\u001b[31m✗\u001b[39m");
    process.env.FORCE_COLOR = "1";
    process.env.NO_COLOR = "1";
    expect((await check()).text).not.toMatch(ANSI);
    delete process.env.NO_COLOR;
    expect((await check()).text).toMatch(ANSI);
    expect((await check("--no-color")).text).not.toMatch(ANSI);
  });
});
