import { DrizzleQueryError } from "drizzle-orm/errors";
import { describe, expect, it } from "vitest";
import { loggableError } from "../../runtime/controller/support/loggable-error.ts";

/** Issue 15 item 3: what the log keeps of an error never holds a statement's parameters or quoted input. */
describe("loggableError", () => {
  const secret = "SECRET-value-2f9c";

  it("replaces drizzle's `Failed query ... params:` message and keeps the driver's code and schema names", () => {
    const cause = Object.assign(new Error(`invalid input syntax for type uuid: "${secret}"`), {
      code: "22P02",
      table_name: "resources",
      column_name: "id",
      detail: `Key (id)=(${secret}) already exists.`,
    });
    const error = new DrizzleQueryError(
      "insert into resources (id, body) values ($1, $2)",
      [secret, { password: secret }],
      cause,
    );
    const logged = loggableError(error);
    const text = JSON.stringify(logged);
    expect(text).not.toContain(secret);
    expect(text).not.toMatch(/params:|Failed query/);
    expect(logged.cause).toMatchObject({
      code: "22P02",
      table: "resources",
      column: "id",
      message: 'invalid input syntax for type uuid: "…"',
    });
    expect(
      loggableError(Object.assign(new Error(`invalid input syntax for type uuid: "a"${secret}"`), { code: "22P02" }))
        .message,
    ).toBe('invalid input syntax for type uuid: "…"');
    expect(logged.stack).toMatch(/^\s+at /);
  });

  it("masks quoted input in any message (JSON.parse quotes the text it failed on) and keeps one line", () => {
    let parseError: unknown;
    try {
      JSON.parse(`{"password": "${secret}" oops}`);
    } catch (e) {
      parseError = e;
    }
    expect(JSON.stringify(loggableError(parseError))).not.toContain(secret);
    // Node quotes the first characters of the text, quotes inside included.
    let sliceError: unknown;
    try {
      JSON.parse(`x{"p":"${secret}"}`);
    } catch (e) {
      sliceError = e;
    }
    expect((sliceError as Error).message).toContain("SEC");
    expect(loggableError(sliceError).message).not.toContain("SEC");
    expect(loggableError(new Error(`first line\nsecond ${secret}`)).message).toBe("first line");
  });

  it("says what a thrown non-error is without printing it", () => {
    expect(JSON.stringify(loggableError({ body: secret }))).not.toContain(secret);
  });
});
